import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import { client, failFor, runFor, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const waking1500 = { state: "waking" as const, retryAfterMs: 1500, durationMs: 1500 }

// SPEC §1.3/§6: a call that takes over the session's wait after the leader's budget ended continues it: the
// next retry when the platform asked for it, and the attempts counted on from the leader's.
describe("guards: a call that takes over a cold-start wait", () => {
  it.effect("continues the leader's attempt count in its progress events (2, 3, 4) and sends at 6 s", () =>
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
      const result = yield* runFor(
        Effect.all([send("m-3s", 3), Effect.zipRight(Effect.yieldNow(), send("m-20s", 20))], {
          concurrency: "unbounded"
        }),
        "1 minute"
      )
      const [leader, follower] = result.value ?? []
      expect(leader?._tag).toBe("Left")
      expect(follower?._tag).toBe("Right")
      // the leader resolved twice (attempts 1, 2) and left: the next retry at 3 s no longer fit its budget
      expect(progress["m-3s"]).toEqual([[1, 1500]])
      // the follower resumes the leader's wait (attempt 2), then resolves as attempts 3, 4 and 5 (admitted)
      expect(progress["m-20s"]).toEqual([[2, 1500], [3, 1500], [4, 1500]])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-20s", 6000]])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "ColdStart", phases: [waking1500, waking1500, waking1500, waking1500] } })]
    }))))
})

// SPEC §1.3/§5: a joined call leaves as soon as the wait's next resolve no longer fits its budget; a next
// resolve exactly at its deadline does not fit.
describe("guards: a joined call whose deadline is exactly the wait's next retry", () => {
  it.effect("fails at once with AgentRuntimeNotReadyError, its whole budget left; the leader waits on", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const leader = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: 30 }))
      // the leader's first resolve (t = 0) answered waking: the next one is at 2 s
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
      yield* Fiber.interrupt(leader)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 2000 } })]
    }))))
})
