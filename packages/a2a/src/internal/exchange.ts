/**
 * One HTTP exchange (backend or runtime): the request, then its whole answer read as a stream, in the
 * call's phase limits (SPEC §5 `[connect, read]`, `deadlines.ts`): it reports when the HTTP layer has the
 * connection up (`ConnectPhase`) and each body chunk. Each exchange is one CLIENT span with
 * OpenTelemetry's HTTP attributes, propagated as W3C trace context, and one `http.client.request.duration`
 * measure. `HttpClientError`s become `A2ATransportError`s here, carrying the failure kind and code only.
 */
import type * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as A2AError from "../A2AError.js"
import { type A2AStep, A2ATransportError } from "../A2AError.js"
import { parseBoundedJson } from "./boundedJson.js"
import { type Call, type CallTimeout, enterStep, setSent, spanAttributes, timeoutErrorAt } from "./callContext.js"
import { type ConnectPhase, currentConnectPhase } from "./connectPhase.js"
import { deadlinePassed, type PhaseProgress, withinPhaseLimits } from "./deadlines.js"
import { withoutTrailingSlashes } from "./httpUrl.js"
import { oneLine } from "./oneLine.js"
import { ProxyRefused, proxyRefusedCode } from "./proxy.js"
import { concat } from "./responseChunks.js"
import { redactedMarker } from "./scrubSecrets.js"
import * as Telemetry from "./telemetry.js"

const utf8 = new TextDecoder()

/** @internal */
export interface HttpAnswer {
  readonly method: string
  readonly url: string
  readonly status: number
  readonly headers: Headers.Headers
  readonly body: Uint8Array
}

/** @internal */
export type ExchangeError = A2ATransportError | CallTimeout

/**
 * The answer is larger than the client's `maxResponseBytes`: its `Content-Length` said so (`declared`), or
 * its body passed the limit while being read. Each caller turns it into its own error.
 *
 * @internal
 */
export class ResponseTooLarge extends Data.TaggedError("ResponseTooLarge")<{
  readonly url: string
  readonly status: number
  readonly limit: number
  readonly declared: number | undefined
}> {
  /** Why the answer was refused, naming the limit. */
  get reason(): string {
    const size = this.declared === undefined ? "its body passed" : `its Content-Length ${this.declared} is over`
    return `the answer is too large: ${size} the limit of ${this.limit} bytes (maxResponseBytes)`
  }
}

const errorCode = (cause: unknown): string | undefined =>
  Predicate.hasProperty(cause, "code") && Predicate.isString(cause.code) ? cause.code : undefined

/** The server's address is refused, unknown or unroutable: a cached runtime address may be stale. */
const unreachableCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH"
])

/**
 * Failures of the connect phase (DNS, refused, unreachable, undici's connect timeout, a certificate the TLS
 * handshake refused, a proxy that refused to connect or forward): no byte of the request reached the server.
 */
const connectFailureCodes: ReadonlySet<string> = new Set([
  ...unreachableCodes,
  "UND_ERR_CONNECT_TIMEOUT",
  proxyRefusedCode,
  ...A2AError.tlsCertificateCodes
])

/**
 * Whether the request provably never left: a transport failure of the connect phase. Node reports a
 * failure to connect to every address of a host as an `AggregateError` whose `errors` are the attempts.
 *
 * @internal
 */
export const neverLeft = (error: HttpClientError.HttpClientError): boolean => {
  if (error._tag !== "RequestError" || error.reason !== "Transport") return false
  return attemptsOf(error.cause).every((attempt) => connectFailureCodes.has(errorCode(attempt) ?? ""))
}

/** The connection attempts a failure stands for: an `AggregateError`'s own, else the failure itself. */
const attemptsOf = (cause: unknown): ReadonlyArray<unknown> =>
  Predicate.hasProperty(cause, "errors") && Array.isArray(cause.errors) && cause.errors.length > 0
    ? cause.errors
    : [cause]

/**
 * Where the connection failed (`at 127.0.0.1:3128`, or an unknown host's name): through a proxy that is the
 * proxy's address, not the URL's (whether a request goes through the proxy is undici's to decide, `NO_PROXY`).
 */
const failedAt = (cause: unknown): string | undefined => {
  const places = attemptsOf(cause).flatMap((attempt) => {
    if (Predicate.hasProperty(attempt, "address") && Predicate.isString(attempt.address)) {
      const host = attempt.address.includes(":") ? `[${attempt.address}]` : attempt.address
      return [
        Predicate.hasProperty(attempt, "port") && Predicate.isNumber(attempt.port) ? `${host}:${attempt.port}` : host
      ]
    }
    return Predicate.hasProperty(attempt, "hostname") && Predicate.isString(attempt.hostname) ? [attempt.hostname] : []
  })
  return places.length === 0 ? undefined : `at ${Array.from(new Set(places)).join(", ")}`
}

// undici's parser names what broke the protocol (a fixed text of llhttp's, never the server's bytes).
const notHttp = (cause: unknown): string | undefined =>
  Predicate.hasProperty(cause, "name") && cause.name === "HTTPParserError" &&
    Predicate.hasProperty(cause, "message") && Predicate.isString(cause.message)
    ? `the answer is not valid HTTP/1.1: ${platformText(cause.message, identity, maxDetailLength)}`
    : undefined

/**
 * Whether an exchange failed because its server could not be reached: its address refused, unknown or
 * unroutable, or no connection within the connect limit.
 *
 * @internal
 */
export const serverUnreachable = (error: unknown): boolean =>
  (error instanceof A2ATransportError && error.code !== undefined && unreachableCodes.has(error.code)) ||
  (error instanceof A2AError.A2ATimeoutError && error.limit === "connect")

const transportError = (
  call: Call,
  step: A2AStep,
  request: { readonly method: string; readonly url: string },
  error: HttpClientError.HttpClientError,
  sentBefore: boolean,
  scrub: (text: string) => string
): Effect.Effect<never, ExchangeError> =>
  Effect.clockWith((clock): Effect.Effect<never, ExchangeError> => {
    if (neverLeft(error)) setSent(call, sentBefore)
    const code = errorCode(error.cause)
    if (code === "UND_ERR_CONNECT_TIMEOUT" && call.budget.connect !== undefined) {
      return Effect.fail(timeoutErrorAt(call, "connect", clock.unsafeCurrentTimeMillis()))
    }
    return Effect.fail(
      new A2ATransportError({
        agentSessionUid: call.agentSessionUid,
        messageId: call.messageId,
        method: request.method,
        url: request.url,
        step,
        messageMayHaveBeenSent: call.sent,
        cause: scrub(
          [error.reason, code, notHttp(error.cause), failedAt(error.cause)].filter(Predicate.isString).join(" ")
        ),
        ...(code === undefined ? {} : { code }),
        ...(error.cause instanceof ProxyRefused ? { proxy: error.cause.proxy, proxyStatus: error.cause.status } : {})
      })
    )
  })

/** @internal */
export interface ExchangeOptions<TooLarge> {
  readonly maxResponseBytes: number
  /** The `message:send` exchange: the message may be sent from the moment the request is handed over. */
  readonly carriesMessage?: boolean | undefined
  /** Which service answers: the backend or the Agent's runtime (a bounded metric attribute). */
  readonly peer: Telemetry.Peer
  /** The caller's error for an answer over `maxResponseBytes`. */
  readonly tooLarge: (refused: ResponseTooLarge) => TooLarge
  /** What the request's URL shows in errors and spans (a platform may put a secret in an `rpc_url`). */
  readonly scrub?: ((text: string) => string) | undefined
}

/**
 * Executes `request` and reads its whole answer. A `carriesMessage` request may have been sent from the
 * moment it is handed over, unless the client reports it queued (`onQueued`) or it provably never left.
 * An answer over `maxResponseBytes` is refused from its `Content-Length`, else once the bytes read pass it.
 *
 * @internal
 */
export const exchange = <TooLarge>(
  client: HttpClient.HttpClient,
  call: Call,
  step: A2AStep,
  request: HttpClientRequest.HttpClientRequest,
  options: ExchangeOptions<TooLarge>
): Effect.Effect<HttpAnswer, ExchangeError | TooLarge> => {
  const scrub = options.scrub ?? identity
  const shown = { method: request.method, url: scrub(request.url) }
  const server = Telemetry.serverOf(shown.url)
  const attributes = { ...spanAttributes(call), ...Telemetry.httpAttributes(shown, server), "a2a.client.step": step }
  const send = (progress: PhaseProgress, span: Tracer.Span) =>
    Effect.gen(function*() {
      const sentBefore = call.sent
      const carriesMessage = options.carriesMessage === true
      const traced = yield* withTraceContext(request, span)
      const phase: ConnectPhase = {
        limit: Option.fromNullable(call.budget.connect),
        onQueued: () => {
          if (carriesMessage) setSent(call, sentBefore)
        },
        onConnected: () => {
          if (carriesMessage) setSent(call, true)
          progress.progressed()
        }
      }
      if (carriesMessage) setSent(call, true)
      const response = yield* client.execute(traced).pipe(
        Effect.locally(currentConnectPhase, phase),
        // The platform's own span would hold the raw request (the bearer token): this exchange's span instead.
        Effect.locally(HttpClient.currentTracerDisabledWhen, disabled),
        Effect.catchTags({
          RequestError: (error) => transportError(call, step, shown, error, sentBefore, scrub),
          ResponseError: (error) => transportError(call, step, shown, error, sentBefore, scrub)
        })
      )
      progress.progressed()
      const status = response.status
      span.attribute("http.response.status_code", status)
      const readStep: A2AStep = step === "send-message" ? "read-response" : step
      yield* enterStep(call, readStep)
      const tooLarge = (declared: number | undefined) =>
        new ResponseTooLarge({ url: shown.url, status, limit: options.maxResponseBytes, declared })
      const declared = Number(response.headers["content-length"])
      if (Number.isFinite(declared) && declared > options.maxResponseBytes) {
        return yield* Effect.fail(options.tooLarge(tooLarge(declared)))
      }
      const body = yield* readBody(response, options.maxResponseBytes, progress).pipe(
        Effect.catchTags({
          BodyTooLarge: () => Effect.fail(options.tooLarge(tooLarge(undefined))),
          ResponseError: (error) => transportError(call, readStep, shown, error, sentBefore, scrub)
        })
      )
      const answer: HttpAnswer = { method: request.method, url: shown.url, status, headers: response.headers, body }
      return answer
    }).pipe(Telemetry.observeHttpRequest(request, options.peer, server, span, (now) => deadlinePassed(call, now)))
  // A leaf span: nothing runs under it, so it is not made the current span (`withSpan`'s extra context). It
  // ends holding a function, not the answer, so a tracer never sees headers or a body that may echo a token.
  const exchanged = withinPhaseLimits(call, (progress) =>
    Effect.useSpan(
      request.method,
      { kind: "client", captureStackTrace: false, attributes },
      (span) => Effect.map(send(progress, span), (answer) => () => answer)
    )).pipe(Effect.map((answer) => answer()))
  // The runtime is the A2A call's server: its address goes on the call's span too.
  return options.peer === "runtime" ? Effect.zipRight(Effect.annotateCurrentSpan(server), exchanged) : exchanged
}

/** The body, read whole unless it passes `maxBytes`; each chunk is progress for the phase limits. */
const readBody = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number,
  progress: PhaseProgress
): Effect.Effect<Uint8Array, HttpClientError.ResponseError | BodyTooLarge> =>
  Effect.scoped(Effect.flatMap(Stream.toPull(response.stream), (pull) => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    const next: Effect.Effect<Uint8Array, HttpClientError.ResponseError | BodyTooLarge> = Effect.matchEffect(pull, {
      onFailure: Option.match({ onNone: () => Effect.sync(() => concat(chunks, size)), onSome: Effect.fail }),
      onSuccess: (chunk) => {
        progress.progressed()
        for (const bytes of chunk) {
          size += bytes.byteLength
          if (size > maxBytes) return Effect.fail(new BodyTooLarge())
          chunks.push(bytes)
        }
        return next
      }
    })
    return next
  }))

class BodyTooLarge extends Data.TaggedError("BodyTooLarge") {}

/** The request with `span`'s W3C trace context, unless tracing or propagation is off. */
const withTraceContext = (
  request: HttpClientRequest.HttpClientRequest,
  span: Tracer.Span
): Effect.Effect<HttpClientRequest.HttpClientRequest> =>
  Effect.withFiberRuntime((fiber) =>
    Effect.succeed(
      fiber.getFiberRef(HttpClient.currentTracerPropagation) && fiber.getFiberRef(FiberRef.currentTracerEnabled)
        ? HttpClientRequest.setHeaders(request, HttpTraceContext.toHeaders(span))
        : request
    )
  )

const disabled = () => true

/**
 * The media type of an answer without parameters, lower-cased (`application/a2a+json; charset=utf-8` →
 * `application/a2a+json`).
 *
 * @internal
 */
export const mediaTypeOf = (answer: HttpAnswer): string | undefined => {
  const header = answer.headers["content-type"]
  if (header === undefined) return undefined
  // Stryker disable next-line OptionalChaining: equivalent: split always returns at least one element
  return header.split(";")[0]?.trim().toLowerCase()
}

/** @internal */
export const textOf = (answer: HttpAnswer): string => utf8.decode(answer.body)

/**
 * The body as JSON, or `None` when it is not JSON.
 *
 * @internal
 */
export const jsonOf = (answer: HttpAnswer): Option.Option<unknown> => Either.getRight(parseBoundedJson(textOf(answer)))

/**
 * Text the platform sent, for an error: `scrub`bed of secrets before it is cut, one line, at most
 * `maxLength` characters (then `…`); `undefined` when blank.
 *
 * @internal
 */
export const platformText = (
  text: string,
  scrub: (text: string) => string,
  maxLength: number
): string | undefined => {
  // Only the start can be shown: a long text is scrubbed up to `scrubMargin` past it (not whole: its cost grows
  // with the body), without what the cut may have left of a secret.
  const shownLength = maxLength * 4
  const long = text.length > shownLength + scrubMargin
  const scrubbed = long ? withoutCutEnd(scrub(text.slice(0, shownLength + scrubMargin))).trim() : scrub(text).trim()
  const start = scrubbed.slice(0, shownLength)
  const short = oneLine(start)
  if (short === "") return undefined
  return cutText(long || start.length < scrubbed.length ? `${short}…` : short, maxLength)
}

const scrubMargin = 64 * 1024

/**
 * A scrubbed text cut at an arbitrary point, without what the cut may have left of a secret: the end of its last
 * run of characters that are neither whitespace nor the marker, as long as a token a header carries, or the
 * whole run after `Basic`.
 */
const withoutCutEnd = (text: string): string => {
  let run = text.length
  while (run > 0 && !/\s/.test(text.charAt(run - 1)) && !text.endsWith(redactedMarker, run)) run--
  const basic = /\bBasic\s+$/.test(text.slice(Math.max(0, run - 16), run))
  return text.slice(0, basic ? run : Math.max(run, text.length - maxCutSecret))
}

const maxCutSecret = 16 * 1024

/**
 * `text` whole, or its first `maxLength` characters and `…`.
 *
 * @internal
 */
export const cutText = (text: string, maxLength: number): string =>
  text.length > maxLength ? `${text.slice(0, maxLength)}…` : text

/** @internal */
export const maxDetailLength = 1000

/**
 * A short human description of a non-JSON body: an HTML page's title, else the start of the text.
 *
 * @internal
 */
export const describeBody = (answer: HttpAnswer, scrub: (text: string) => string): string | undefined => {
  const text = textOf(answer)
  const mediaType = mediaTypeOf(answer)
  if (mediaType === "text/html" || /^\s*<(!doctype|html)/i.test(text.slice(0, 1024))) {
    // Searched in the page's head only, with bounded repetitions: a hostile page cannot make it slow.
    const title = /<title\b[^>]{0,1024}>([^<]{0,4096})<\/title>/i.exec(text.slice(0, 16384))?.[1]
    const shown = title === undefined ? undefined : platformText(title, scrub, 200)
    return shown === undefined ? "an HTML error page" : `an HTML page "${shown}"`
  }
  return platformText(text, scrub, 200)
}

/** @internal */
export const joinUrl = (base: string, path: string): string => `${withoutTrailingSlashes(base)}${path}`
