import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import { client, failFor, resolves, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

// SPEC §5/§6: an error of the session's resolution reaches every call that waits for it; every call reports its
// own ids: session, message id and, for a follow-up turn, its Task id.
describe("guards: each call's own ids on an error of a shared resolution", () => {
  it.effect("a resolve cut by its phase limit: both calls, one a follow-up, each get their own messageId and taskId", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const first = yield* Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, {
        message: "a",
        messageId: "m-a",
        responseKind: "task",
        taskId: "task-a",
        timeout: [5, 2]
      })))
      const joined = yield* Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, {
        message: "b",
        messageId: "m-b",
        responseKind: "task",
        taskId: "task-b",
        timeout: [5, 2]
      })))
      yield* TestClock.adjust("1 minute")
      const firstError = yield* Fiber.join(first)
      const joinedError = yield* Fiber.join(joined)
      const cutResolve = {
        _tag: "A2ATimeoutError",
        agentSessionUid: sessionUid,
        step: "resolve-runtime-access",
        limit: "read",
        seconds: 2,
        messageMayHaveBeenSent: false
      }
      expect({ ...firstError }).toEqual({ ...cutResolve, messageId: "m-a", taskId: "task-a" })
      expect({ ...joinedError }).toEqual({ ...cutResolve, messageId: "m-b", taskId: "task-b" })
      // one shared resolve, cut once; nothing sent
      expect((yield* resolves).map((r) => [r.atMs, r.outcome])).toEqual([[0, "interrupted"]])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ backend: { resolveDelay: "forever" }, agent: { taskSupport: true } })]
    }))))
})

// SPEC §3: `runtime_presence` is for display only; a transient answer whose presence has another shape still
// waits, and running out of budget is `AgentRuntimeNotReadyError` without a detail.
describe("guards: a transient answer without a usable presence", () => {
  it.effect("a string presence: progress without presence fields, AgentRuntimeNotReadyError without detail", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const events: Array<A2AProgressEvent> = []
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", timeout: 3 }).pipe(
          Effect.provideService(A2AProgress, { report: (event) => Effect.sync(() => void events.push(event)) })
        ),
        "1 minute"
      )
      expect({ ...error }).toEqual({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        state: "starting",
        retryAfterMs: 2000,
        remainingMs: 1000
      })
      expect(error).toHaveProperty("detail", undefined)
      expect(events).toEqual([{ _tag: "MessagePrepared", agentSessionUid: sessionUid, messageId: "m-1" }, {
        _tag: "RuntimeAccessProgress",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        state: "starting",
        notice: undefined,
        presencePhase: undefined,
        presenceDetail: undefined,
        retryAfterMs: 2000,
        attempt: 1
      }])
      expect(millis).toBe(2000)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 2000])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: { _tag: "StuckTransient", state: "starting", retryAfterMs: 2000 },
        backend: { oddDiagnostics: "string" }
      })]
    }))))

  it.effect("a string presence on a terminal answer: AgentRuntimeUnavailableError without presenceDetail", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }), "1 minute")
      expect({ ...error }).toEqual({
        _tag: "AgentRuntimeUnavailableError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        state: "unavailable",
        detail: "The runtime is not available."
      })
      expect(error).toHaveProperty("presenceDetail", undefined)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "Terminal", state: "unavailable" }, backend: { oddDiagnostics: "string" } })]
    }))))
})
