/**
 * The in-memory HTTP face of the simulated platform: an `@effect/platform`
 * `HttpClient` that hands every request to `SimulatedPlatform.handle`.
 *
 * The response body is the platform's `Stream`, run in the caller's runtime,
 * so `TestClock` drives slow heads and trickled bodies. Interrupting the
 * request (a timeout) interrupts the simulated work; interrupting the body
 * read stops the body stream. A dropped connection, or a host that is not the
 * platform's, fails with a transport `RequestError`.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { SimulatedPlatform } from "./SimulatedPlatform.js"

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])

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

/** Succeeds when the signal aborts. */
const aborted = (signal: AbortSignal): Effect.Effect<"aborted"> =>
  Effect.async<"aborted">((resume) => {
    const onAbort = () => resume(Effect.succeed("aborted" as const))
    if (signal.aborted) {
      onAbort()
      return
    }
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/**
 * An `HttpClient` backed by the `SimulatedPlatform` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<HttpClient.HttpClient, never, SimulatedPlatform> = Effect.map(
  SimulatedPlatform,
  (platform) =>
    HttpClient.make((request, url, signal) =>
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
        const headers = new Headers()
        for (const [name, value] of Object.entries(response.headers)) headers.set(name, value)
        const readable = NULL_BODY_STATUSES.has(response.status)
          ? null
          : yield* Stream.toReadableStreamEffect(response.body.pipe(Stream.interruptWhen(aborted(signal))))
        return HttpClientResponse.fromWeb(request, new Response(readable, { status: response.status, headers }))
      })
    )
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
