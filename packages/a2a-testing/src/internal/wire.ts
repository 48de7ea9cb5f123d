/**
 * Building simulated HTTP answers: JSON, google.rpc.Status errors, HTML pages,
 * timestamps.
 *
 * @internal
 */
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SimResponse } from "./model.js"

/** @internal */
export const A2A_CONTENT_TYPE = "application/a2a+json"

/** @internal */
export const RESPONSE_KIND_EXTENSION = "https://mainsequence.ai/a2a/extensions/response-kind/v1"

/** @internal */
export const OUTPUT_CONTRACT_EXTENSION = "https://mainsequence.ai/a2a/extensions/output-contract/v1"

/** @internal */
export const A2A_ERROR_DOMAIN = "a2a-protocol.org"

/** @internal */
export const MAINSEQUENCE_DOMAIN = "mainsequence.ai"

const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { fatal: false })

/** @internal */
export const encodeText = (text: string): Uint8Array => encoder.encode(text)

/** @internal */
export const decodeText = (bytes: Uint8Array): string => decoder.decode(bytes)

/** @internal */
export const encodeJson = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value))

/**
 * A body that is all there at once, as its HTTP client can read it without running its `Stream` (running
 * one is most of the cost of a simulated request): its bytes, and what to record
 * when they are handed over whole.
 *
 * @internal
 */
export interface WholeBody {
  readonly bytes: Uint8Array
  readonly handedOver: Effect.Effect<void>
}

// Keyed by the body's Stream (a `SimResponse` is a plain object, copied as it goes): trickled and endless
// bodies are not here, and are read as streams.
const wholeBodies = new WeakMap<Stream.Stream<Uint8Array>, WholeBody>()

/**
 * The whole body a stream stands for, if it is one of `bodyStream`'s (or `wholeAs`'s).
 *
 * @internal
 */
export const wholeBodyOf = (body: Stream.Stream<Uint8Array>): WholeBody | undefined => wholeBodies.get(body)

/**
 * `wrapped` (a stream around `body`) stands for `body`'s whole bytes too, handing them over running
 * `handedOver`.
 *
 * @internal
 */
export const wholeAs = (
  body: Stream.Stream<Uint8Array>,
  wrapped: Stream.Stream<Uint8Array>,
  handedOver: Effect.Effect<void>
): void => {
  const whole = wholeBodies.get(body)
  if (whole !== undefined) wholeBodies.set(wrapped, { bytes: whole.bytes, handedOver })
}

/** @internal */
export const bodyStream = (bytes: Uint8Array): Stream.Stream<Uint8Array> => {
  const stream = bytes.length === 0 ? Stream.empty : Stream.make(bytes)
  wholeBodies.set(stream, { bytes, handedOver: Effect.void })
  return stream
}

/** @internal */
export const bytesResponse = (
  status: number,
  bytes: Uint8Array,
  headers: Readonly<Record<string, string>>
): SimResponse => ({
  status,
  headers: { ...headers, "content-length": String(bytes.length) },
  body: bodyStream(bytes)
})

/** @internal */
export const jsonResponse = (
  status: number,
  value: unknown,
  options?: { readonly contentType?: string; readonly headers?: Readonly<Record<string, string>> }
): SimResponse =>
  bytesResponse(status, encodeJson(value), {
    ...options?.headers,
    "content-type": options?.contentType ?? "application/json"
  })

/**
 * A body sent in `chunks` pieces: the first with the head, each next one
 * `gapMs` later (an `Effect.sleep`, so the Clock in use drives it).
 *
 * @internal
 */
export const trickledStream = (bytes: Uint8Array, chunks: number, gapMs: number): Stream.Stream<Uint8Array> => {
  const count = Math.max(1, Math.min(chunks, bytes.length))
  const size = Math.ceil(bytes.length / count)
  const pieces: Array<Uint8Array> = []
  for (let offset = 0; offset < bytes.length; offset += size) {
    pieces.push(bytes.subarray(offset, Math.min(bytes.length, offset + size)))
  }
  return Stream.fromIterable(pieces).pipe(
    Stream.zipWithIndex,
    Stream.mapEffect(([piece, index]) => index === 0 ? Effect.succeed(piece) : Effect.as(Effect.sleep(gapMs), piece))
  )
}

/** @internal */
export interface ErrorInfo {
  readonly reason: string
  readonly domain: string
  readonly metadata?: Readonly<Record<string, string>>
}

/** @internal */
export interface FieldViolation {
  readonly field: string
  readonly description: string
}

/**
 * A google.rpc.Status error answer, as an A2A v1 HTTP+JSON server gives it.
 *
 * @internal
 */
export const rpcErrorResponse = (options: {
  readonly httpStatus: number
  readonly status: string
  readonly message: string
  readonly errorInfo?: ErrorInfo | undefined
  readonly fieldViolations?: ReadonlyArray<FieldViolation> | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}): SimResponse => {
  const details: Array<unknown> = []
  if (options.errorInfo !== undefined) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: options.errorInfo.reason,
      domain: options.errorInfo.domain,
      ...(options.errorInfo.metadata === undefined ? {} : { metadata: options.errorInfo.metadata })
    })
  }
  if (options.fieldViolations !== undefined && options.fieldViolations.length > 0) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: options.fieldViolations
    })
  }
  return jsonResponse(
    options.httpStatus,
    {
      error: {
        code: options.httpStatus,
        status: options.status,
        message: options.message,
        ...(details.length === 0 ? {} : { details })
      }
    },
    { contentType: A2A_CONTENT_TYPE, headers: options.headers ?? {} }
  )
}

/** @internal */
export const invalidArgument = (field: string, description: string): SimResponse =>
  rpcErrorResponse({
    httpStatus: 400,
    status: "INVALID_ARGUMENT",
    message: `Invalid request: ${field}: ${description}`,
    fieldViolations: [{ field, description }]
  })

/**
 * The platform's Message-limit answer (SPEC §4).
 *
 * @internal
 */
export const messageLimitResponse = (limitSeconds: number): SimResponse =>
  rpcErrorResponse({
    httpStatus: 504,
    status: "DEADLINE_EXCEEDED",
    message: `The Agent did not answer the Message within ${limitSeconds} seconds. Use Task mode for longer work.`,
    errorInfo: {
      reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
      domain: MAINSEQUENCE_DOMAIN,
      metadata: { limitSeconds: String(limitSeconds) }
    }
  })

const reasonPhrases: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Time-out"
}

/** @internal */
export const reasonPhrase = (status: number): string => reasonPhrases[status] ?? "Error"

/**
 * An HTML error page like the ones gateways and Django serve.
 *
 * @internal
 */
export const htmlResponse = (status: number, options?: {
  readonly text?: string | undefined
  readonly server?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}): SimResponse => {
  const title = `${status} ${reasonPhrase(status)}`
  const html = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n` +
    (options?.text === undefined ? "" : `<p>${options.text}</p>\r\n`) +
    `<hr><center>${options?.server ?? "nginx"}</center>\r\n</body>\r\n</html>\r\n`
  return bytesResponse(status, encodeText(html), { ...options?.headers, "content-type": "text/html; charset=utf-8" })
}

/**
 * ISO-8601 UTC timestamp of a Clock reading: whole seconds print without
 * fractional digits (`2026-11-29T21:00:00Z`), others with milliseconds.
 *
 * @internal
 */
export const isoTime = (millis: number): string => {
  const iso = DateTime.formatIso(DateTime.unsafeMake(millis))
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso
}
