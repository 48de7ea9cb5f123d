import * as HttpClientError from "@effect/platform/HttpClientError"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import {
  client,
  failFor,
  fakePlatform,
  jsonResponse,
  readyAccessForTests,
  resolves,
  runtimeSends,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

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

// SPEC §5: `messageMayHaveBeenSent` is the call's own. A resolution's errors carry the resolution's (nothing
// sent by it); a call that had already sent its message once, and waits for the fresh resolution after a
// runtime 401, reports true.
describe("guards: each call's own messageMayHaveBeenSent on an error of the fresh resolution", () => {
  it.effect("sent once, 401, the fresh resolve's connection reset: A2ATransportError with messageMayHaveBeenSent true", () =>
    Effect.gen(function*() {
      let resolveCount = 0
      const layer = fakePlatform((request) => {
        if (request.url.startsWith("https://runtime.example/")) return Effect.succeed(jsonResponse(request, 401, {}))
        resolveCount++
        if (resolveCount === 1) return Effect.succeed(jsonResponse(request, 200, readyAccessForTests))
        return Effect.fail(
          new HttpClientError.RequestError({
            request,
            reason: "Transport",
            cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })
          })
        )
      })
      const error = yield* Effect.flip(
        Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
          .pipe(Effect.provide(layer))
      )
      expect(resolveCount).toBe(2)
      expect({ ...error }).toMatchObject({
        _tag: "A2ATransportError",
        step: "resolve-runtime-access",
        messageId: "m-a",
        messageMayHaveBeenSent: true,
        code: "ECONNRESET"
      })
    }))
})

// SPEC §5: a call that waited for a waking runtime and was admitted is no longer waiting: a connect timeout of
// its send is an A2ATimeoutError of the send (limit connect), not AgentRuntimeNotReadyError.
describe("guards: the send's connect limit after a wait", () => {
  it.effect("waking, then admitted, then the send's connect times out: A2ATimeoutError send-message / connect", () =>
    Effect.gen(function*() {
      let resolveCount = 0
      const waking = {
        ...readyAccessForTests,
        runtime_interaction: {
          state: "starting",
          can_submit: false,
          notice: null,
          operation: null,
          retry_after_ms: 100
        }
      }
      const layer = fakePlatform((request) => {
        if (request.url.startsWith("https://runtime.example/")) {
          return Effect.fail(
            new HttpClientError.RequestError({
              request,
              reason: "Transport",
              cause: Object.assign(new Error("Connect Timeout Error"), { code: "UND_ERR_CONNECT_TIMEOUT" })
            })
          )
        }
        resolveCount++
        return Effect.succeed(jsonResponse(request, 200, resolveCount === 1 ? waking : readyAccessForTests))
      })
      const call = yield* Effect.fork(Effect.flip(
        Effect.flatMap(
          A2AClient.A2AClient,
          (a2a) => a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: [5, 30] })
        ).pipe(Effect.provide(layer))
      ))
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(call)
      expect(resolveCount).toBe(2)
      expect({ ...error }).toMatchObject({
        _tag: "A2ATimeoutError",
        step: "send-message",
        limit: "connect",
        seconds: 5,
        messageMayHaveBeenSent: false,
        messageId: "m-a"
      })
    }))
})
