/**
 * The `HttpClientResponse` of `SimulatedHttpClient`: the platform's response as a web `Response` would
 * present it (`HttpClientResponse.fromWeb`), without the round trip through a web `ReadableStream` (a
 * fiber per read, promises per chunk: most of the cost of a simulated request). The body stream is the
 * platform's own, run in the reader's fiber, so `TestClock` still drives trickled bodies, and interrupting
 * the read stops it. As with a web `Response`, the body can be read once: `text` and `arrayBuffer` are
 * cached (`json` and `urlParamsBody` read `text`), and a second read of another kind fails. A body that is
 * all there at once (`wholeBodyOf`) is handed over whole: as one chunk of its stream, or as bytes.
 */
import * as Cookies from "@effect/platform/Cookies"
import * as Headers from "@effect/platform/Headers"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as IncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as UrlParams from "@effect/platform/UrlParams"
import type * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { SimResponse } from "./model.js"
import { type WholeBody, wholeBodyOf } from "./wire.js"

// Statuses whose web `Response` has no body.
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])

const concat = (chunks: Chunk.Chunk<Uint8Array>): Uint8Array => {
  let size = 0
  for (const chunk of chunks) size += chunk.byteLength
  const out = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => {
  const buffer = new ArrayBuffer(bytes.byteLength)
  new Uint8Array(buffer).set(bytes)
  return buffer
}

class SimulatedClientResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [IncomingMessage.TypeId]: IncomingMessage.TypeId = IncomingMessage.TypeId
  readonly status: number
  readonly headers: Headers.Headers
  readonly remoteAddress: Option.Option<string> = Option.none()
  private readonly hasBody: boolean
  private used = false
  private cachedCookies: Cookies.Cookies | undefined
  private textBody: Effect.Effect<string, HttpClientError.ResponseError> | undefined
  private bytesBody: Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> | undefined
  private formDataBody: Effect.Effect<FormData, HttpClientError.ResponseError> | undefined

  constructor(readonly request: HttpClientRequest.HttpClientRequest, protected readonly source: SimResponse) {
    super()
    this.status = source.status
    this.headers = Headers.fromInput(source.headers)
    this.hasBody = !NULL_BODY_STATUSES.has(source.status)
  }

  toJSON(): unknown {
    return IncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }

  get cookies(): Cookies.Cookies {
    const setCookie = this.source.headers["set-cookie"]
    return this.cachedCookies ??= Cookies.fromSetCookie(setCookie === undefined ? [] : [setCookie])
  }

  private error(reason: "Decode" | "EmptyBody", description?: string, cause?: unknown) {
    return new HttpClientError.ResponseError({
      request: this.request,
      response: this,
      reason,
      ...(description === undefined ? {} : { description }),
      ...(cause === undefined ? {} : { cause })
    })
  }

  // A body read: once per response, like a web `Response`.
  protected take(): Effect.Effect<Stream.Stream<Uint8Array>, HttpClientError.ResponseError> {
    return Effect.suspend(() => {
      if (this.used) return Effect.fail(this.error("Decode", "the body has already been read"))
      this.used = true
      return Effect.succeed(this.hasBody ? this.source.body : Stream.empty)
    })
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return this.hasBody
      ? Stream.unwrap(this.take())
      : Stream.fail(this.error("EmptyBody", "can not create stream from empty body"))
  }

  protected get bytes(): Effect.Effect<Uint8Array, HttpClientError.ResponseError> {
    return Effect.flatMap(this.take(), (body) => Effect.map(Stream.runCollect(body), concat))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return this.bytesBody ??= Effect.runSync(Effect.cached(Effect.map(this.bytes, toArrayBuffer)))
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return this.textBody ??= Effect.runSync(
      Effect.cached(Effect.map(this.bytes, (bytes) => new TextDecoder().decode(bytes)))
    )
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: (): unknown => text === "" ? null : JSON.parse(text),
        catch: (cause) => this.error("Decode", undefined, cause)
      }))
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => UrlParams.fromInput(new URLSearchParams(text)),
        catch: (cause) => this.error("Decode", undefined, cause)
      }))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    // Rare in tests: the web `Response` parses it.
    return this.formDataBody ??= Effect.runSync(Effect.cached(Effect.flatMap(this.bytes, (bytes) =>
      Effect.tryPromise({
        try: () =>
          new Response(this.hasBody ? toArrayBuffer(bytes) : null, {
            status: this.status,
            headers: this.source.headers
          }).formData(),
        catch: (cause) => this.error("Decode", undefined, cause)
      }))))
  }
}

/** A response whose body is all there at once: handed over whole, as one chunk or as bytes. */
class WholeBodyResponse extends SimulatedClientResponse {
  constructor(request: HttpClientRequest.HttpClientRequest, source: SimResponse, private readonly whole: WholeBody) {
    super(request, source)
  }

  // The body's one reading, recorded as complete when its bytes are handed over.
  private handOver(): Effect.Effect<Uint8Array, HttpClientError.ResponseError> {
    return Effect.flatMap(this.take(), () => Effect.as(this.whole.handedOver, this.whole.bytes))
  }

  override get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.fromEffect(this.handOver())
  }

  protected override get bytes(): Effect.Effect<Uint8Array, HttpClientError.ResponseError> {
    return this.handOver()
  }
}

/** @internal */
export const fromSimResponse = (
  request: HttpClientRequest.HttpClientRequest,
  response: SimResponse
): HttpClientResponse.HttpClientResponse => {
  const whole = wholeBodyOf(response.body)
  return whole !== undefined && !NULL_BODY_STATUSES.has(response.status)
    ? new WholeBodyResponse(request, response, whole)
    : new SimulatedClientResponse(request, response)
}
