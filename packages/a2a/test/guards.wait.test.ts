import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import {
  client,
  failFor,
  leaveWaitThenWake,
  platform,
  resolves,
  runFor,
  runtimeSends,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

const waking = { _tag: "StuckTransient", state: "waking", retryAfterMs: 1500 } as const

// SPEC §1.3: the only wait before sending is the one the backend asked for, within the call's own budget.
describe("guards: only the wait the backend asked for, within each call's budget", () => {
  it.effect("a new call does not sit out an earlier call's leftover retry_after_ms", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // resolves at 0 and 1.5 s; the retry at 3 s does not fit its 2 s budget
      const first = yield* leaveWaitThenWake("1500 millis")
      expect(first.error).toMatchObject({ _tag: "AgentRuntimeNotReadyError", messageId: "m-a", remainingMs: 500 })
      expect(first.millis).toBe(1500)
      // the session asked to retry at 3 s, but the new call resolves at once and sends at once
      const second = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }), "10 seconds")
      expect(second.error).toBeUndefined()
      expect(second.millis).toBe(0)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 1500])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status])).toEqual([["m-b", 1500, 200]])
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: waking })] }))))

  it.effect("a joined call leaves at once when the wait's next retry is past its deadline; the first call goes on", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const first = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      yield* TestClock.adjust(0)
      // the wait retries at 1.5 s; a call with a 1 s budget that joins it cannot see that retry
      const joined = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 1 }),
        "0 millis"
      )
      expect(joined.error).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-b",
        state: "waking",
        retryAfterMs: 1500,
        remainingMs: 1000
      })
      expect(joined.millis).toBe(0)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0])
      yield* p.updateSession(sessionUid, (s) => ({ ...s, access: { _tag: "Ready" } }))
      yield* TestClock.adjust("10 seconds")
      const answer = yield* Fiber.join(first)
      expect(answer.role).toBe("ROLE_AGENT")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-a", 1500]])
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: waking })] }))))

  it.effect("a call joined before the wait is recorded leaves the moment the resolution records it past its deadline", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const first = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      yield* TestClock.adjust(0)
      // it joins while the first resolve is still under way (answered at 100 ms): no wait is known yet
      const joined = yield* Effect.fork(
        runFor(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 1 }), "0 millis")
      )
      yield* TestClock.adjust(0)
      expect(Option.isNone(yield* Fiber.poll(joined))).toBe(true)
      // at 100 ms the resolution records the wait: next resolve at 1.6 s, past the joined call's 1 s deadline
      yield* TestClock.adjust("100 millis")
      expect(Option.isSome(yield* Fiber.poll(joined))).toBe(true)
      const { error, millis } = yield* Fiber.join(joined)
      expect(error).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        messageId: "m-b",
        state: "waking",
        retryAfterMs: 1500,
        remainingMs: 900
      })
      expect(millis).toBe(100)
      yield* p.updateSession(sessionUid, (s) => ({ ...s, access: { _tag: "Ready" } }))
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(first)).role).toBe("ROLE_AGENT")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1600])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-a", 1700]])
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: waking, backend: { resolveDelay: 100 } })] }))))
})
