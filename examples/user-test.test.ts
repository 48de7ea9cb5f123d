/**
 * Testing your own code that calls the SDK: `@mainsequence/a2a-testing` simulates the platform in memory
 * and every delay runs on the `TestClock`, so a cold start, the 90-second Message limit and a two-minute
 * Task take no real time.
 */
import { describe, expect, it } from "@effect/vitest"
import { A2AClient, A2AProtocol, RuntimeAccessCache } from "@mainsequence/a2a"
import { layerTest, type SessionScenario, SimulatedPlatform } from "@mainsequence/a2a-testing"
import { Effect, Fiber, Layer, TestClock } from "effect"

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

// --- the tests ------------------------------------------------------------------------------------

const sessionUid = "0b2701a1-e777-4cfe-8437-b94025f00069"

/** The SDK client on a simulated platform with one session. */
const simulated = (scenario: Omit<SessionScenario.SessionScenarioInput, "sessionUid" | "agentUid" | "serviceUid">) =>
  A2AClient.layer({
    backendUrl: SimulatedPlatform.defaultBaseUrl,
    accessToken: SimulatedPlatform.defaultUserAccessToken
  }).pipe(
    Layer.provideMerge(Layer.merge(
      layerTest({
        sessions: [{
          sessionUid,
          agentUid: "5c1d7e2a-3b4f-4a6c-9d8e-1f2a3b4c5d6e",
          serviceUid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
          ...scenario
        }]
      }),
      RuntimeAccessCache.layerMemory
    ))
  )

describe("my Agent calls", () => {
  it.effect("wait for a cold start, then get the answer", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(ask(sessionUid, "hello"))
      yield* TestClock.adjust("2 seconds")
      expect(fiber.unsafePoll()).toBeNull() // still waking
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(fiber)).toBe("You said: hello")

      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const counters = yield* platform.counters
      expect(counters.sends[sessionUid]).toBe(1) // sent once, after the runtime was ready
    }).pipe(Effect.provide(simulated({
      access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 500, durationMs: 3000 }] }
    }))))

  it.effect("an Agent that works past the Message limit fails with A2AMessageLimitExceededError at 90 s", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.flip(ask(sessionUid, "think hard")))
      yield* TestClock.adjust("90 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("A2AMessageLimitExceededError")
      expect(error).toMatchObject({ limitSeconds: 90 })
    }).pipe(Effect.provide(simulated({ agent: { workMs: 120_000 } }))))

  it.effect("the same job as a Task completes after two minutes", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(runJob(sessionUid, "think hard"))
      yield* TestClock.adjust("3 minutes")
      const task = yield* Fiber.join(fiber)
      expect(task.status.state).toBe("TASK_STATE_COMPLETED")
      expect(A2AProtocol.textOf(task).length).toBeGreaterThan(0)
    }).pipe(Effect.provide(simulated({ agent: { taskSupport: true, workMs: 120_000 } }))))
})
