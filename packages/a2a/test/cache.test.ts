import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { client, platform, resolves, runFor, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

describe("runtime-access cache on the simulated platform", () => {
  it.effect("keeps admitted access until expires_at − 30 s", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "1" })
      yield* TestClock.adjust("89999 millis")
      yield* a2a.sendA2AMessage(sessionUid, { message: "2" })
      expect(yield* resolves).toHaveLength(1)
      yield* TestClock.adjust("1 millis")
      yield* a2a.sendA2AMessage(sessionUid, { message: "3" })
      expect(yield* resolves).toHaveLength(2)
      expect((yield* runtimeSends).map((s) => s.status)).toEqual([200, 200, 200])
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { ttlSeconds: 120 } })] }))))

  it.effect("without expires_at keeps access for 60 s", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "1" })
      yield* TestClock.adjust("59999 millis")
      yield* a2a.sendA2AMessage(sessionUid, { message: "2" })
      expect(yield* resolves).toHaveLength(1)
      yield* TestClock.adjust("1 millis")
      yield* a2a.sendA2AMessage(sessionUid, { message: "3" })
      expect(yield* resolves).toHaveLength(2)
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { ttlSeconds: null } })] }))))

  it.effect("never holds blocked access: each call after a blocked answer resolves again", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      expect((yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "1" })))._tag).toBe(
        "AgentRuntimeUnavailableError"
      )
      expect((yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "2" })))._tag).toBe(
        "AgentRuntimeUnavailableError"
      )
      expect(yield* resolves).toHaveLength(2)
      yield* p.updateSession(sessionUid, (s) => ({ ...s, access: { _tag: "Ready" } }))
      yield* a2a.sendA2AMessage(sessionUid, { message: "3" })
      expect(yield* resolves).toHaveLength(3)
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "Terminal", state: "update_required" } })]
    }))))

  it.effect("50 concurrent sends to one cold session share exactly one resolve sequence", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const result = yield* runFor(
        Effect.all(
          Array.from({ length: 50 }, (_, i) => a2a.sendA2AMessage(sessionUid, { message: `m${i}` })),
          { concurrency: "unbounded" }
        ),
        "1 minute"
      )
      expect(result.error).toBeUndefined()
      expect(result.value).toHaveLength(50)
      // one sequence: waking at 0 and 1 s, starting at 2 s, ready at 3 s
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000, 2000, 3000])
      const sends = yield* runtimeSends
      expect(sends).toHaveLength(50)
      expect(new Set(sends.map((s) => s.tokenLabel)).size).toBe(1)
      expect(sends.every((s) => s.atMs === 3000)).toBe(true)
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: {
          _tag: "ColdStart",
          phases: [
            { state: "waking", retryAfterMs: 1000, durationMs: 2000 },
            { state: "starting", retryAfterMs: 1000, durationMs: 1000 }
          ]
        }
      })]
    }))))

  it.effect("concurrent calls sharing a failed resolution each report their own message id", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const result = yield* runFor(
        Effect.all(
          ["m-a", "m-b", "m-c"].map((messageId) =>
            Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout: 5 }))
          ),
          { concurrency: "unbounded" }
        ),
        "1 minute"
      )
      expect(result.value?.map((e) => [e._tag, "messageId" in e ? e.messageId : undefined])).toEqual([
        ["AgentRuntimeNotReadyError", "m-a"],
        ["AgentRuntimeNotReadyError", "m-b"],
        ["AgentRuntimeNotReadyError", "m-c"]
      ])
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 2000, 4000])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 2000 } })]
    }))))

  it.effect("a call that joined another call's cold-start wait and runs out of budget → AgentRuntimeNotReadyError", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const result = yield* runFor(
        Effect.all([
          Effect.either(a2a.sendA2AMessage(sessionUid, { message: "leader", messageId: "m-long", timeout: 20 })),
          // joins the leader's resolution (single flight), with a budget that ends during the wait
          Effect.zipRight(
            Effect.yieldNow(),
            Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "follower", messageId: "m-short", timeout: 3 }))
          )
        ], { concurrency: "unbounded" }),
        "1 minute"
      )
      const [leader, follower] = result.value ?? []
      expect(follower).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        messageId: "m-short",
        state: "waking",
        retryAfterMs: 1000
      })
      expect(follower?.message).toContain("Nothing was sent")
      expect(leader?._tag).toBe("Right")
      // one resolve sequence, led by the long call; only its message was sent
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000, 2000, 3000, 4000, 5000])
      expect((yield* runtimeSends).map((s) => s.messageId)).toEqual(["m-long"])
    }).pipe(Effect.provide(simulated({
      sessions: [
        session({ access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 5000 }] } })
      ]
    }))))

  it.effect("a username-scoped cache serves repeated sends from one resolve", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "1" })
      yield* a2a.sendA2AMessage(sessionUid, { message: "2" })
      expect(yield* resolves).toHaveLength(1)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }, { username: "alice" }))))
})
