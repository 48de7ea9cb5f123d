/**
 * One HTTP exchange (backend or runtime) under the call's phase limits: the head, then the whole body read
 * as a stream so the read limit applies between chunks. `HttpClientError`s become `A2ATransportError`s
 * here, carrying only the failure kind and an error code, never request text.
 */
import type * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { type A2AStep, type A2ATimeoutError, A2ATransportError, type AgentRuntimeNotReadyError } from "../A2AError.js"
import { type PhaseLimit, phaseTimeoutError, timeoutError, withinPhaseLimit } from "./budget.js"
import { type Call, spanAttributes } from "./callContext.js"
import { currentConnectTimeout, currentOnConnected } from "./connectTimeout.js"

/** @internal */
export interface HttpAnswer {
  readonly method: string
  readonly url: string
  readonly status: number
  readonly headers: Headers.Headers
  readonly body: Uint8Array
}

/** @internal */
export type ExchangeError = A2ATransportError | A2ATimeoutError | AgentRuntimeNotReadyError

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

/**
 * Failures of the connect phase (DNS, refused, unreachable, undici's connect timeout): no socket was
 * connected, so no byte of the request was written.
 */
const connectFailureCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT"
])

/**
 * Whether the request provably never left: a transport failure of the connect phase. Node reports a
 * failure to connect to every address of a host as an `AggregateError` whose `errors` are the attempts.
 *
 * @internal
 */
export const neverLeft = (error: HttpClientError.HttpClientError): boolean => {
  if (error._tag !== "RequestError" || error.reason !== "Transport") return false
  const attempts: ReadonlyArray<unknown> =
    Predicate.hasProperty(error.cause, "errors") && Array.isArray(error.cause.errors) && error.cause.errors.length > 0
      ? error.cause.errors
      : [error.cause]
  return attempts.every((attempt) => connectFailureCodes.has(errorCode(attempt) ?? ""))
}

const transportError = (
  call: Call,
  step: A2AStep,
  request: HttpClientRequest.HttpClientRequest,
  error: HttpClientError.HttpClientError,
  sentBefore: boolean
): Effect.Effect<never, ExchangeError> =>
  Effect.gen(function*() {
    if (neverLeft(error)) yield* Ref.set(call.sent, sentBefore)
    const code = errorCode(error.cause)
    if (code === "UND_ERR_CONNECT_TIMEOUT" && call.budget.connect !== undefined) {
      return yield* timeoutError(call, "connect", Duration.toSeconds(call.budget.connect))
    }
    return yield* new A2ATransportError({
      agentSessionUid: call.agentSessionUid,
      messageId: call.messageId,
      method: request.method,
      url: request.url,
      step,
      messageMayHaveBeenSent: yield* Ref.get(call.sent),
      cause: code === undefined ? error.reason : `${error.reason} ${code}`
    })
  })

const concat = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

const noSignal = () => {}

/**
 * Runs one exchange with the FiberRefs the HTTP layer reads set, and restores them after (one region for all
 * three: each `Effect.locally` kept its own frames alive for the whole exchange). The platform's own client
 * span is off: it would end holding the raw request and response (headers with the bearer token, unredacted
 * once serialised outside a fiber); the exchange has its own span instead.
 */
const withExchangeRefs = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  connect: Option.Option<Duration.Duration>,
  onConnected: () => void
): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.all([
      FiberRef.getAndSet(HttpClient.currentTracerDisabledWhen, () => true),
      FiberRef.getAndSet(currentConnectTimeout, connect),
      FiberRef.getAndSet(currentOnConnected, onConnected)
    ]),
    () => effect,
    ([tracerDisabledWhen, connectTimeout, signal]) =>
      Effect.all([
        FiberRef.set(HttpClient.currentTracerDisabledWhen, tracerDisabledWhen),
        FiberRef.set(currentConnectTimeout, connectTimeout),
        FiberRef.set(currentOnConnected, signal)
      ], { discard: true })
  )

/**
 * Executes `request` and reads the whole body. With `carriesMessage` (the `message:send` exchange) the
 * call counts the message as possibly sent from the moment the request is handed to the client, unless
 * the client proves it never left (see {@link neverLeft}). With a `[connect, read]` budget the head must arrive
 * within `read` of the client saying it has connected and the request is on its way (`Timeout.markConnected`,
 * through {@link currentOnConnected}; the Node layer does so from undici and applies the connect limit
 * itself from {@link currentConnectTimeout}); a generic `HttpClient` that never says so cannot tell the
 * phases apart, and its head may take connect + read. At most `read` may pass between two body chunks. The call's total budget is enforced around the whole call, not here. An answer over
 * `maxResponseBytes` is refused from its `Content-Length` before any body is read, and otherwise as soon
 * as the bytes read pass the limit. The call's watchdog (`withinPhaseLimit`) enforces both phase limits.
 *
 * @internal
 */
export const exchange = (
  client: HttpClient.HttpClient,
  call: Call,
  step: A2AStep,
  request: HttpClientRequest.HttpClientRequest,
  options: { readonly maxResponseBytes: number; readonly carriesMessage?: boolean | undefined }
): Effect.Effect<HttpAnswer, ExchangeError | ResponseTooLarge> =>
  Effect.gen(function*() {
    const { connect, read } = call.budget
    const sentBefore = options.carriesMessage === true
      ? yield* Ref.getAndSet(call.sent, true)
      : yield* Ref.get(call.sent)
    // With the platform's client span off (below), the trace context is propagated from this exchange's span.
    const propagate = yield* FiberRef.get(HttpClient.currentTracerPropagation)
    const span = propagate ? yield* Effect.option(Effect.currentSpan) : Option.none()
    const traced = Option.match(span, {
      onNone: () => request,
      onSome: (span) => HttpClientRequest.setHeaders(request, HttpTraceContext.toHeaders(span))
    })
    const execute = client.execute(traced).pipe(
      Effect.catchAll((error) => transportError(call, step, request, error, sentBefore))
    )
    const readStep: A2AStep = step === "send-message" ? "read-response" : step
    const limit = options.maxResponseBytes
    // The head, then the body chunk by chunk (refused once it passes `maxResponseBytes`); `progress` runs
    // when the head and each chunk arrive.
    const exchangeWith = (progress: Effect.Effect<void>) =>
      Effect.gen(function*() {
        const response = yield* execute
        yield* progress
        yield* Effect.annotateCurrentSpan("http.response.status_code", response.status)
        if (step === "send-message") yield* Ref.set(call.step, "read-response")
        const tooLarge = (declared: number | undefined) =>
          new ResponseTooLarge({ url: request.url, status: response.status, limit, declared })
        const declared = Number(response.headers["content-length"])
        if (Number.isFinite(declared) && declared > limit) return yield* tooLarge(declared)
        const chunks: Array<Uint8Array> = []
        let size = 0
        yield* Stream.runForEachChunk(response.stream, (chunk) => {
          for (const bytes of chunk) {
            size += bytes.byteLength
            if (size > limit) return Effect.fail(tooLarge(undefined))
            chunks.push(bytes)
          }
          return progress
        }).pipe(
          Effect.catchTag("ResponseError", (error) => transportError(call, readStep, request, error, sentBefore))
        )
        const answer: HttpAnswer = {
          method: request.method,
          url: request.url,
          status: response.status,
          headers: response.headers,
          body: concat(chunks, size)
        }
        return answer
      })
    if (connect === undefined || read === undefined) {
      return yield* withExchangeRefs(exchangeWith(Effect.void), Option.none(), noSignal)
    }
    // The phase limits (one deadline, enforced by the call's watchdog): the head within read of connecting
    // (within connect + read while the client has not said it connected), then at most read between two chunks.
    const readMillis = Duration.toMillis(read)
    const headSeconds = Duration.toSeconds(Duration.sum(connect, read))
    const clock = yield* Effect.clock
    let connected = false
    let headArrived = false
    const phase: PhaseLimit = {
      deadline: clock.unsafeCurrentTimeMillis() + Duration.toMillis(connect) + readMillis,
      expired: () =>
        headArrived || connected
          ? phaseTimeoutError(call, "read", Duration.toSeconds(read))
          : phaseTimeoutError(call, "response-head", headSeconds)
    }
    // Called synchronously by the HTTP layer (from undici's callbacks on Node), hence the clock read in place.
    const onConnected = () => {
      if (headArrived) return
      connected = true
      phase.deadline = clock.unsafeCurrentTimeMillis() + readMillis
    }
    const progress = Effect.map(Clock.currentTimeMillis, (now) => {
      headArrived = true
      phase.deadline = now + readMillis
    })
    return yield* withinPhaseLimit(
      call,
      read,
      phase,
      withExchangeRefs(exchangeWith(progress), Option.some(connect), onConnected)
    )
  }).pipe(
    Effect.withSpan(`a2a.http ${request.method}`, {
      kind: "client",
      attributes: {
        ...spanAttributes(call),
        "a2a.step": step,
        "http.request.method": request.method,
        "url.full": request.url
      }
    })
  )

/**
 * The media type of an answer without parameters, lower-cased (`application/a2a+json; charset=utf-8` →
 * `application/a2a+json`).
 *
 * @internal
 */
export const mediaTypeOf = (answer: HttpAnswer): string | undefined => {
  const header = answer.headers["content-type"]
  if (header === undefined) return undefined
  return header.split(";")[0]?.trim().toLowerCase()
}

/** @internal */
export const isJsonMediaType = (mediaType: string | undefined): boolean =>
  mediaType !== undefined && (mediaType === "application/json" || mediaType.endsWith("+json"))

/** @internal */
export const textOf = (answer: HttpAnswer): string => new TextDecoder().decode(answer.body)

/**
 * The body as JSON, or `None` when it is not JSON.
 *
 * @internal
 */
export const jsonOf = (answer: HttpAnswer): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(textOf(answer)))
  } catch {
    return Option.none()
  }
}

const squash = (text: string): string => text.replace(/\s+/g, " ").trim()

/**
 * A short human description of a non-JSON body: an HTML page's title, else the start of the text.
 *
 * @internal
 */
export const describeBody = (answer: HttpAnswer): string | undefined => {
  const text = textOf(answer)
  const mediaType = mediaTypeOf(answer)
  if (mediaType === "text/html" || /^\s*<(!doctype|html)/i.test(text)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]
    return title === undefined || squash(title) === "" ? "an HTML error page" : `an HTML page "${squash(title)}"`
  }
  const short = squash(text)
  if (short === "") return undefined
  return short.length > 200 ? `${short.slice(0, 200)}…` : short
}

/** @internal */
export const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, "")}${path}`
