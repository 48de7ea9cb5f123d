import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { client, resolves, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const ids = ["m-1", "m-2", "m-3"] as const

/** Three sends started together; their errors once the TestClock moved a minute ahead. */
const threeTogether = Effect.gen(function*() {
  const a2a = yield* client
  const fibers = yield* Effect.forEach(
    ids,
    (messageId) => Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId }))),
    { concurrency: "unbounded" }
  )
  yield* TestClock.adjust("1 minute")
  return yield* Effect.forEach(fibers, Fiber.join)
})

// SPEC §6: calls that join a session's resolution share its outcome, a failure included: the followers do
// not resolve again, and each reports its own ids.
describe("guards: followers of a failed shared resolution", () => {
  it.effect("terminal update_required: three calls, one resolve, each error with its own messageId", () =>
    Effect.gen(function*() {
      const errors = yield* threeTogether
      expect(errors).toEqual(ids.map((messageId) =>
        expect.objectContaining({
          _tag: "AgentRuntimeUnavailableError",
          agentSessionUid: sessionUid,
          messageId,
          state: "update_required",
          presenceDetail: "The runtime is not deployed."
        })
      ))
      expect(yield* resolves).toHaveLength(1)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: { _tag: "Terminal", state: "update_required" },
        backend: { resolveDelay: 100 }
      })]
    }))))

  it.effect("a backend 404 on resolve: three calls, one resolve, each SessionNotFoundError with its own messageId", () =>
    Effect.gen(function*() {
      const errors = yield* threeTogether
      expect(errors).toEqual(ids.map((messageId) =>
        expect.objectContaining({
          _tag: "SessionNotFoundError",
          agentSessionUid: sessionUid,
          messageId,
          status: 404
        })
      ))
      expect((yield* resolves).map((r) => r.status)).toEqual([404])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ backend: { resolveDelay: 100, resolveFault: { status: 404, detail: "No such session." } } })]
    }))))
})
