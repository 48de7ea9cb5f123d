import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { client, fakeRuntime, jsonResponse, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const failure = (code: string | undefined) =>
  code === undefined ? new Error("boom") : Object.assign(new Error(code), { code })

const transport = (request: HttpClientRequest.HttpClientRequest, cause: unknown) =>
  Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause }))

const sendOnce = Effect.flatMap(
  client,
  (a2a) => Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", timeout: [5, 10] }))
)

describe("messageMayHaveBeenSent after a transport failure", () => {
  for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]) {
    it.effect(`${code}: the request never left → false, and the message says nothing about a send`, () =>
      Effect.gen(function*() {
        const error = yield* sendOnce
        expect(error).toMatchObject({ _tag: "A2ATransportError", step: "send-message", messageMayHaveBeenSent: false })
        expect(error.message).toContain(code)
        expect(error.message).not.toContain("may already have reached")
      }).pipe(Effect.provide(fakeRuntime((request) => transport(request, failure(code))))))
  }

  it.effect("a refusal by every address of the host (AggregateError) never left → false", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: false })
    }).pipe(Effect.provide(fakeRuntime((request) =>
      transport(request, new AggregateError([failure("ECONNREFUSED"), failure("ECONNREFUSED")]))
    ))))

  it.effect("undici's connect timeout → A2ATimeoutError with the connect limit, nothing sent", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        limit: "connect",
        seconds: 5,
        messageMayHaveBeenSent: false
      })
      expect(error.message).not.toContain("may already have reached")
    }).pipe(Effect.provide(fakeRuntime((request) => transport(request, failure("UND_ERR_CONNECT_TIMEOUT"))))))

  for (const code of ["ECONNRESET", "EPIPE", undefined]) {
    it.effect(`${code ?? "no error code"}: the request may have been written → true`, () =>
      Effect.gen(function*() {
        const error = yield* sendOnce
        expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: true })
        expect(error.message).toContain("may already have reached the runtime")
      }).pipe(Effect.provide(fakeRuntime((request) => transport(request, failure(code))))))
  }

  it.effect("a refused resend after a runtime 401 is still true: the first send was written", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: true })
    }).pipe(Effect.provide(fakeRuntime((request, n) =>
      n === 0
        ? Effect.succeed(jsonResponse(request, 401, { error: { code: 401, message: "expired" } }))
        : transport(request, failure("ECONNREFUSED"))
    ))))

  it.effect("on the simulated platform: an unreachable external runtime (ECONNREFUSED) → false", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", step: "send-message", messageMayHaveBeenSent: false })
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session({ rpcUrl: "http://127.0.0.1:9/runtime/" })] }))))

  it.effect("on the simulated platform: a connection dropped after the request (ECONNRESET) → true", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: true })
    }).pipe(Effect.provide(
      simulated({ sessions: [session({ agent: { behaviour: { _tag: "ConnectionFailure" } } })] })
    )))
})
