/**
 * Testing your own code that calls the SDK: `@mainsequence/a2a-testing/client` gives the SDK client on a
 * simulated platform in one call, and every delay runs on the `TestClock`, so a cold start, the 90-second
 * Message limit and a two-minute Task take no real time.
 */
import { describe, expect, it } from "@effect/vitest"
import { A2AClient, A2AProtocol } from "@mainsequence/a2a"
import { SimulatedPlatform } from "@mainsequence/a2a-testing"
import { SimulatedA2AClient } from "@mainsequence/a2a-testing/client"
import { Effect, Fiber, TestClock } from "effect"

// --- the code under test --------------------------------------------------------------------------

/** Asks an Agent a question and returns the text of its answer. */
const ask = (agentSessionUid: string, question: string) =>
  Effect.flatMap(A2AClient.A2AClient, (client) => client.sendA2AMessage(agentSessionUid, { message: question })).pipe(
    Effect.map((answer) => A2AProtocol.textOf(answer).join("\n"))
  )

/** Runs a long job as a Task and waits for its outcome. */
const runJob = (agentSessionUid: string, job: string) =>
  Effect.gen(function*() {
    const client = yield* A2AClient.A2AClient
    const task = yield* client.sendA2AMessage(agentSessionUid, { message: job, responseKind: "task" })
    return yield* client.waitForA2ATask(agentSessionUid, task.id)
  })

// --- the tests: each is the scenario plus its assertions ----------------------------------------------

const { layer, sessionUid } = SimulatedA2AClient

describe("my Agent calls", () => {
  it.effect("wait for a cold start, then get the answer", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(ask(sessionUid, "hello"))
      yield* TestClock.adjust("2 seconds")
      expect(fiber.unsafePoll()).toBeNull() // still waking
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(fiber)).toBe("You said: hello")
      const counters = yield* Effect.flatMap(SimulatedPlatform.SimulatedPlatform, (platform) => platform.counters)
      expect(counters.sends[sessionUid]).toBe(1) // sent once, after the runtime was ready
    }).pipe(Effect.provide(layer({
      access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 500, durationMs: 3000 }] }
    }))))

  it.effect("an Agent that works past the Message limit fails with A2AMessageLimitExceededError at 90 s", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.flip(ask(sessionUid, "think hard")))
      yield* TestClock.adjust("90 seconds")
      expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "A2AMessageLimitExceededError", limitSeconds: 90 })
    }).pipe(Effect.provide(layer({ agent: { workMs: 120_000 } }))))

  it.effect("the same job as a Task completes after two minutes", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(runJob(sessionUid, "think hard"))
      yield* TestClock.adjust("3 minutes")
      const task = yield* Fiber.join(fiber)
      expect(task.status.state).toBe("TASK_STATE_COMPLETED")
      expect(A2AProtocol.textOf(task)).toEqual(["You said: think hard"])
    }).pipe(Effect.provide(layer({ agent: { taskSupport: true, workMs: 120_000 } }))))
})
