/**
 * The in-memory HTTP face of the simulated platform: an `@effect/platform`
 * `HttpClient` that hands every request to `SimulatedPlatform.handle`.
 *
 * The response body is the platform's `Stream`, run in the reader's fiber
 * (no web `ReadableStream` in between), so `TestClock` drives slow heads and
 * trickled bodies. Interrupting the
 * request (a timeout) interrupts the simulated work; interrupting the body
 * read stops the body stream. A dropped connection, or a host that is not the
 * platform's, fails with a transport `RequestError`. A body that is all there
 * at once is handed over whole, as one chunk of its stream or as bytes.
 *
 * With the platform's tracing on for a request, the request gets
 * `@effect/platform`'s `http.client` span, as through `HttpClient.make`. The
 * SDK turns that span off for its own requests: those go straight to the
 * platform, without it and without the abort signal that client makes for
 * each request (the simulation is interrupted, not aborted).
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { fromSimResponse } from "./internal/clientResponse.js"
import { SimulatedPlatform } from "./SimulatedPlatform.js"

const concat = (chunks: Iterable<Uint8Array>): Uint8Array => {
  const parts = [...chunks]
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

const encodeError = (request: HttpClientRequest.HttpClientRequest, description: string, cause?: unknown) =>
  new HttpClientError.RequestError({ request, reason: "Encode", description, cause })

/**
 * The bytes of a request body (`Uint8Array`, string / bytes `Raw`, or `Stream`).
 */
const bodyBytes = (
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<Uint8Array, HttpClientError.RequestError> => {
  const body = request.body
  switch (body._tag) {
    case "Empty":
      return Effect.succeed(new Uint8Array(0))
    case "Uint8Array":
      return Effect.succeed(body.body)
    case "Raw": {
      const raw = body.body
      if (typeof raw === "string") return Effect.succeed(new TextEncoder().encode(raw))
      if (raw instanceof Uint8Array) return Effect.succeed(raw)
      if (raw instanceof ArrayBuffer) return Effect.succeed(new Uint8Array(raw))
      return Effect.fail(encodeError(request, "the simulated platform reads Raw bodies of string or bytes only"))
    }
    case "FormData":
      return Effect.fail(encodeError(request, "the simulated platform does not read FormData bodies"))
    case "Stream":
      return Stream.runCollect(body.stream).pipe(
        Effect.map((chunks) => concat(Chunk.toReadonlyArray(chunks))),
        Effect.mapError((cause) => encodeError(request, "the request body stream failed", cause))
      )
  }
}

/**
 * An `HttpClient` backed by the `SimulatedPlatform` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<HttpClient.HttpClient, never, SimulatedPlatform> = Effect.map(
  SimulatedPlatform,
  (platform) => {
    const send = (request: HttpClientRequest.HttpClientRequest, url: URL) =>
      Effect.gen(function*() {
        const body = yield* bodyBytes(request)
        const response = yield* platform.handle({
          method: request.method,
          url: url.toString(),
          headers: request.headers,
          body
        }).pipe(
          Effect.mapError((cause) =>
            new HttpClientError.RequestError({ request, reason: "Transport", cause, description: cause.message })
          )
        )
        return fromSimResponse(request, response)
      })
    const traced = HttpClient.make(send)
    return HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
      (effect) =>
        Effect.flatMap(effect, (request) =>
          Effect.withFiberRuntime((fiber) => {
            if (
              fiber.getFiberRef(FiberRef.currentTracerEnabled) &&
              !fiber.getFiberRef(HttpClient.currentTracerDisabledWhen)(request)
            ) return traced.execute(request)
            const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
            return url._tag === "Left"
              ? Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left }))
              : send(request, url.right)
          })),
      Effect.succeed
    )
  }
)

/**
 * The `HttpClient` layer over the `SimulatedPlatform` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<HttpClient.HttpClient, never, SimulatedPlatform> = Layer.effect(
  HttpClient.HttpClient,
  make
)
