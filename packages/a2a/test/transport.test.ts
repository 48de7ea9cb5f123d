import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as A2AClient from "../src/A2AClient.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import { client, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const ready = {
  mode: "token",
  rpc_url: "https://runtime.example/",
  token: "runtime-token",
  expires_at: null,
  runtime_interaction: { state: "ready", can_submit: true, notice: null, operation: null, retry_after_ms: null }
}

const json = (request: HttpClientRequest.HttpClientRequest, status: number, body: unknown) =>
  HttpClientResponse.fromWeb(
    request,
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })
  )

const failure = (code: string | undefined) =>
  code === undefined ? new Error("boom") : Object.assign(new Error(code), { code })

/**
 * A client whose backend admits at once and whose runtime answers the n-th `message:send` with `runtime(n)`.
 */
const fakeClient = (
  runtime: (
    request: HttpClientRequest.HttpClientRequest,
    n: number
  ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>
) => {
  let sends = 0
  const http = HttpClient.make((request) =>
    request.url.startsWith("https://runtime.example/")
      ? runtime(request, sends++)
      : Effect.succeed(json(request, 200, ready))
  )
  return A2AClient.layer({ backendUrl: "https://backend.example", accessToken: Redacted.make("user-token") }).pipe(
    Layer.provide(Layer.merge(Layer.succeed(HttpClient.HttpClient, http), RuntimeAccessCache.layerMemory))
  )
}

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
      }).pipe(Effect.provide(fakeClient((request) => transport(request, failure(code))))))
  }

  it.effect("a refusal by every address of the host (AggregateError) never left → false", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: false })
    }).pipe(Effect.provide(fakeClient((request) =>
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
    }).pipe(Effect.provide(fakeClient((request) => transport(request, failure("UND_ERR_CONNECT_TIMEOUT"))))))

  for (const code of ["ECONNRESET", "EPIPE", undefined]) {
    it.effect(`${code ?? "no error code"}: the request may have been written → true`, () =>
      Effect.gen(function*() {
        const error = yield* sendOnce
        expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: true })
        expect(error.message).toContain("may already have reached the runtime")
      }).pipe(Effect.provide(fakeClient((request) => transport(request, failure(code))))))
  }

  it.effect("a refused resend after a runtime 401 is still true: the first send was written", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: true })
    }).pipe(Effect.provide(fakeClient((request, n) =>
      n === 0
        ? Effect.succeed(json(request, 401, { error: { code: 401, message: "expired" } }))
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
