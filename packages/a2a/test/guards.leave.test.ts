import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import { client, failFor, resolves, runFor, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const waking1500 = { state: "waking" as const, retryAfterMs: 1500, durationMs: 1500 }

// SPEC §1.3/§6: when a call with a short budget leaves the session's wait, the wait goes on for the others
// unchanged: the next retry when the platform asked for it, the attempts counted on.
describe("guards: a cold-start wait that a short call left", () => {
  it.effect("goes on for the longer call: its progress counts on (1, 2, 3, 4) and it sends at 6 s", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const progress: Record<string, Array<[number, number]>> = { "m-3s": [], "m-20s": [] }
      const send = (messageId: "m-3s" | "m-20s", timeout: number) =>
        Effect.either(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout })).pipe(
          Effect.provideService(A2AProgress, {
            report: (event: A2AProgressEvent) =>
              Effect.sync(() => {
                if (event._tag === "RuntimeAccessProgress") {
                  progress[messageId]?.push([event.attempt, event.retryAfterMs])
                }
              })
          })
        )
      // Both calls start before the first resolve answers (the short one first: it starts the resolution).
      const result = yield* runFor(
        Effect.all([send("m-3s", 3), send("m-20s", 20)], { concurrency: "unbounded" }),
        "1 minute"
      )
      const [short, long] = result.value ?? []
      expect(short).toMatchObject({ _tag: "Left", left: { _tag: "AgentRuntimeNotReadyError", messageId: "m-3s" } })
      expect(long?._tag).toBe("Right")
      // the short call saw attempt 1 and left at attempt 2: the next retry at 3 s no longer fit its budget
      expect(progress["m-3s"]).toEqual([[1, 1500]])
      // the long call was in the same wait from the start: attempts 1 to 4 transient, 5 admitted
      expect(progress["m-20s"]).toEqual([[1, 1500], [2, 1500], [3, 1500], [4, 1500]])
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500, 6000])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-20s", 6000]])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "ColdStart", phases: [waking1500, waking1500, waking1500, waking1500] } })]
    }))))
})

// SPEC §1.3/§5: a call leaves as soon as the wait's next resolve no longer fits its budget; a next
// resolve exactly at its deadline does not fit.
describe("guards: a call whose deadline is exactly the wait's next retry", () => {
  it.effect("fails at once with AgentRuntimeNotReadyError, its whole budget left; the other call waits on", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const other = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: 30 }))
      // the first resolve (t = 0) answered waking: the next one is at 2 s
      yield* TestClock.adjust(0)
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 2 }),
        "1 minute"
      )
      expect({ ...error }).toEqual({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-b",
        state: "waking",
        retryAfterMs: 2000,
        remainingMs: 2000,
        detail: "Waking the runtime."
      })
      expect(millis).toBe(0)
      yield* Fiber.interrupt(other)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 2000 } })]
    }))))
})
