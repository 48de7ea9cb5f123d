// (2) A user-style @effect/vitest test of code that calls the SDK, on the simulated clock.
import { describe, expect, it } from "@effect/vitest"
import { A2AClient, A2AProtocol, RuntimeAccessCache } from "@mainsequence/a2a"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import { Effect, Fiber, Layer, TestClock } from "effect"

const ask = (sessionUid: string, question: string) =>
  Effect.flatMap(A2AClient.A2AClient, (client) => client.sendA2AMessage(sessionUid, { message: question })).pipe(
    Effect.map((answer) => A2AProtocol.textOf(answer).join("\n"))
  )

const sessionUid = "0b2701a1-e777-4cfe-8437-b94025f00069"
const ids = {
  sessionUid,
  agentUid: "5c1d7e2a-3b4f-4a6c-9d8e-1f2a3b4c5d6e",
  serviceUid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"
}

const simulated = (options: SimulatedPlatform.Options) =>
  A2AClient.layer({
    backendUrl: SimulatedPlatform.defaultBaseUrl,
    accessToken: SimulatedPlatform.defaultUserAccessToken
  })
    .pipe(Layer.provideMerge(Layer.merge(layerTest(options), RuntimeAccessCache.layerMemory)))

describe("ask", () => {
  it.effect("waits out a cold start", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(ask(sessionUid, "hi"))
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(fiber)).toBe("You said: hi")
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      expect((yield* platform.counters).sends[sessionUid]).toBe(1)
    }).pipe(Effect.provide(simulated({
      sessions: [{
        ...ids,
        access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 500, durationMs: 3000 }] }
      }]
    }))))

  it.effect("fails with A2AMessageLimitExceededError at the 90 s limit", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.flip(ask(sessionUid, "long")))
      yield* TestClock.adjust("90 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("A2AMessageLimitExceededError")
    }).pipe(Effect.provide(simulated({ sessions: [{ ...ids, agent: { workMs: 120_000 } }] }))))
})
