import { describe, expect, it } from "@effect/vitest"
import type { SessionScenario } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import { client, platform, runtimeSends, serviceUid, session, sessionUid, simulated } from "./fixtures.js"

const sendPath = `/runtimes/${serviceUid}/api/a2a/v1/message:send`

/** Sends once with the Agent answering `behaviour`; the error and the one request on the wire. */
const failWith = (behaviour: typeof SessionScenario.SendBehaviour.Encoded) =>
  Effect.gen(function*() {
    const a2a = yield* client
    const p = yield* platform
    yield* p.updateSession(sessionUid, (s) => ({ ...s, agent: { ...s.agent, behaviour } }))
    yield* p.clearRequestLog
    const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
    const sends = yield* runtimeSends
    expect(sends.map((s) => [s.method, s.path, s.status])).toEqual([[
      "POST",
      sendPath,
      "status" in error ? error.status : undefined
    ]])
    return error
  })

const limit = (metadata: Record<string, string> | undefined, reason = "MESSAGE_RESPONSE_LIMIT_EXCEEDED") => ({
  _tag: "RpcError" as const,
  httpStatus: 504,
  status: "DEADLINE_EXCEEDED",
  message: "The Agent did not answer within the Message limit.",
  reason,
  domain: "mainsequence.ai",
  ...(metadata === undefined ? {} : { metadata })
})

// SPEC §4: the Message limit is `ErrorInfo.metadata.limitSeconds` (90 when missing or unusable), and only
// `reason: MESSAGE_RESPONSE_LIMIT_EXCEEDED` from `mainsequence.ai` on a 504 is the Message limit.
describe("guards: message-limit answers", () => {
  it.effect("limitSeconds is read trimmed; missing or invalid metadata means 90", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, string> | undefined, number]> = [
        [{ limitSeconds: " 120 " }, 120],
        [{ limitSeconds: "45" }, 45],
        [undefined, 90],
        [{}, 90],
        [{ limitSeconds: "soon" }, 90],
        [{ limitSeconds: "-5" }, 90],
        [{ limitSeconds: "0" }, 90]
      ]
      for (const [metadata, seconds] of cases) {
        const error = yield* failWith(limit(metadata))
        expect([metadata, error]).toMatchObject([metadata, {
          _tag: "A2AMessageLimitExceededError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          method: "POST",
          status: 504,
          origin: "runtime",
          reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
          limitSeconds: seconds
        }])
      }
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a mainsequence.ai 504 with another reason is a plain ServerError carrying the rpc message", () =>
    Effect.gen(function*() {
      const error = yield* failWith(limit({ limitSeconds: "90" }, "UPSTREAM_TIMEOUT"))
      expect(error).toMatchObject({
        _tag: "ServerError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        method: "POST",
        status: 504,
        origin: "runtime",
        reason: "UPSTREAM_TIMEOUT",
        detail: "The Agent did not answer within the Message limit."
      })
      expect(error.message).toContain("The Agent did not answer within the Message limit.")
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("the limit reason on a status other than 504 is not the Message limit", () =>
    Effect.gen(function*() {
      const error = yield* failWith({ ...limit({ limitSeconds: "90" }), httpStatus: 503 })
      expect(error).toMatchObject({ _tag: "ServerError", status: 503, reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED" })
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

// SPEC §4: a runtime 4xx other than 401/403 is an A2ARequestError, with or without an ErrorInfo, and the
// google.rpc `message` is its detail.
describe("guards: runtime error answers", () => {
  it.effect("a 4xx without ErrorInfo → A2ARequestError with the rpc message and no reason, sent once", () =>
    Effect.gen(function*() {
      const error = yield* failWith({
        _tag: "RpcError",
        httpStatus: 400,
        status: "INVALID_ARGUMENT",
        message: "parts must not be empty"
      })
      expect(error).toMatchObject({
        _tag: "A2ARequestError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        method: "POST",
        status: 400,
        detail: "parts must not be empty"
      })
      expect("reason" in error ? error.reason : "no reason field").toBeUndefined()
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a 4xx with ErrorInfo keeps its reason", () =>
    Effect.gen(function*() {
      const error = yield* failWith({
        _tag: "RpcError",
        httpStatus: 409,
        status: "ABORTED",
        message: "busy",
        reason: "CONTEXT_BUSY"
      })
      expect(error).toMatchObject({ _tag: "A2ARequestError", status: 409, reason: "CONTEXT_BUSY", detail: "busy" })
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a 3xx is not a success: A2ARequestError with the status, sent once (an answer is HTTP 2xx)", () =>
    Effect.gen(function*() {
      for (const status of [300, 302]) {
        const error = yield* failWith({ _tag: "NonJson", status })
        expect(error).toMatchObject({
          _tag: "A2ARequestError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          method: "POST",
          status,
          detail: `an HTML page "${status} Error"`
        })
      }
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})
