import { describe, expect, it } from "@effect/vitest"
import { SimulatedTime } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { client, failFor, resolves, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

// A whole default budget (905 s) of re-resolves of a session that stays `waking`: played by
// `SimulatedTime.play` it ends exactly as under `TestClock.adjust` (same error, same resolves at the same
// instants), so tests of long waits can use the cheap driver.
describe("SimulatedTime.play drives the SDK's transient wait as TestClock.adjust does", () => {
  const scenario = simulated({
    sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 1500 } })]
  })
  const outcome = (error: unknown) =>
    Effect.gen(function*() {
      return {
        error,
        resolves: (yield* resolves).map((entry) => [entry.atMs, entry.outcome]),
        sends: (yield* runtimeSends).length
      }
    })
  const send = (timeout?: number) =>
    Effect.flatMap(client, (a2a) =>
      a2a.sendA2AMessage(sessionUid, {
        message: "hi",
        messageId: "m-1",
        ...(timeout === undefined ? {} : { timeout })
      }))

  it.effect("a 60 s budget ends the same under both drivers: same error, same resolves at the same instants", () =>
    Effect.gen(function*() {
      const adjusted = yield* Effect.flatMap(failFor(send(60), "60 seconds"), ({ error }) => outcome(error)).pipe(
        Effect.provide(scenario)
      )
      yield* TestClock.setTime(0)
      const played = yield* SimulatedTime.play(
        Effect.flatMap(Effect.flip(send(60)), outcome).pipe(Effect.provide(scenario))
      )
      expect(played).toEqual(adjusted)
      expect(played.error).toMatchObject({ _tag: "AgentRuntimeNotReadyError", remainingMs: 1500 })
      expect(played.resolves).toHaveLength(40)
    }))

  it.effect(
    "the 905 s budget: AgentRuntimeNotReadyError after 604 resolves 1.5 s apart, nothing sent",
    () =>
      Effect.gen(function*() {
        const played = yield* SimulatedTime.play(
          Effect.flatMap(Effect.flip(send()), outcome).pipe(Effect.provide(scenario))
        )
        expect(played.error).toMatchObject({
          _tag: "AgentRuntimeNotReadyError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          state: "waking",
          retryAfterMs: 1500,
          remainingMs: 500
        })
        expect(played.resolves).toHaveLength(604)
        expect(played.resolves.every(([atMs, outcome], i) => atMs === i * 1500 && outcome === "responded")).toBe(true)
        expect(played.sends).toBe(0)
        expect(yield* TestClock.currentTimeMillis).toBe(603 * 1500)
      }),
    60_000
  )
})
