/**
 * One HTTP exchange (backend or runtime) under the call's phase limits: the head, then the whole body read
 * as a stream so the read limit applies between chunks. `HttpClientError`s become `A2ATransportError`s
 * here, carrying only the failure kind and an error code, never request text.
 */
import type * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Tracer from "effect/Tracer"
import * as A2AError from "../A2AError.js"
import { type A2AStep, type A2ATimeoutError, A2ATransportError, type AgentRuntimeNotReadyError } from "../A2AError.js"
import { parseBoundedJson } from "./boundedJson.js"
import { timeoutError, withinPhaseLimits } from "./budget.js"
import { type Call, PhaseDeadline, spanAttributes } from "./callContext.js"
import {
  type ConnectPhase,
  currentConnectPhase,
  isPhaseAware,
  noConnectPhase,
  PhaseAwareTypeId
} from "./connectTimeout.js"
import { ProxyRefused, proxyRefusedCode } from "./proxy.js"
import { concat, forEachChunk } from "./responseChunks.js"
import { spanned, untraced, untracedTraceContext } from "./spanned.js"

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
 * Failures of the connect phase (DNS, refused, unreachable, undici's connect timeout, a certificate the TLS
 * handshake refused, a proxy that refused to connect or forward): no byte of the request reached the server.
 */
const connectFailureCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
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
  Effect.suspend((): Effect.Effect<never, ExchangeError> => {
    if (neverLeft(error)) call.sent = sentBefore
    const code = errorCode(error.cause)
    if (code === "UND_ERR_CONNECT_TIMEOUT" && call.budget.connect !== undefined) {
      return timeoutError(call, "connect", Duration.toSeconds(call.budget.connect))
    }
    return Effect.fail(
      new A2ATransportError({
        agentSessionUid: call.agentSessionUid,
        messageId: call.messageId,
        method: request.method,
        url: request.url,
        step,
        messageMayHaveBeenSent: call.sent,
        cause: code === undefined ? error.reason : `${error.reason} ${code}`,
        ...(code === undefined ? {} : { code }),
        ...(error.cause instanceof ProxyRefused ? { proxy: error.cause.proxy, proxyStatus: error.cause.status } : {})
      })
    )
  })

/**
 * Executes `request`, reads the whole body and hands the answer to `then`. With `carriesMessage` (the
 * `message:send` exchange) the call counts the message as possibly sent from the moment the request is
 * handed to the client, unless the client proves it never left (see {@link neverLeft}). With a
 * `[connect, read]` budget the head must arrive within `read` of the client saying it has connected and the
 * request is on its way (`Timeout.markConnected`, through {@link currentConnectPhase}; the Node layer's client
 * is handed the phase directly, says so from undici and applies the connect limit itself); a generic
 * `HttpClient` that never says so cannot tell the phases apart, and its head may take connect + read. At most
 * `read` may pass between two body chunks. This exchange moves the call's phase deadline; the call's one
 * alarm (`withinCallBudget`) enforces it with the total. A `shared` exchange (the backend's, which may serve a
 * resolution several calls share) has an alarm of its own instead (`withinPhaseLimits`), so its phase limit
 * fails the exchange and every call sharing it. An answer over `maxResponseBytes` is refused from its
 * `Content-Length` before any body is read, and otherwise as soon as the bytes read pass the limit; the
 * refusal becomes the caller's error through `tooLarge`.
 *
 * `then` runs after the exchange (its span ended, its phase limits cleared); without a tracer and unshared,
 * it continues the exchange's own last step, so no frame of the caller's waits with the request.
 *
 * @internal
 */
export const exchange = <A, E, TooLarge>(
  client: HttpClient.HttpClient,
  call: Call,
  step: A2AStep,
  request: HttpClientRequest.HttpClientRequest,
  options: {
    readonly maxResponseBytes: number
    readonly carriesMessage?: boolean | undefined
    /** The exchange runs for several calls (a shared resolution): see {@link withinPhaseLimits}. */
    readonly shared?: boolean | undefined
    /** The caller's error for an answer over `maxResponseBytes`. */
    readonly tooLarge: (refused: ResponseTooLarge) => TooLarge
  },
  then: (answer: HttpAnswer) => Effect.Effect<A, E>
): Effect.Effect<A, ExchangeError | TooLarge | E> =>
  Effect.withFiberRuntime<A, ExchangeError | TooLarge | E>((fiber) => {
    const under = new Exchange(
      client,
      call,
      step,
      request,
      options,
      Context.get(fiber.currentDefaultServices, Clock.Clock)
    )
    const name = `a2a.http ${request.method}`
    const ofSpan = <B, E2>(span: Tracer.Span, next: (answer: HttpAnswer) => Effect.Effect<B, E2>) =>
      under.bounded(span, HttpTraceContext.toHeaders(span), next)
    if (!untraced(fiber)) {
      return Effect.flatMap(
        spanned(name, {
          kind: "client",
          attributes: {
            ...spanAttributes(call),
            "a2a.step": step,
            "http.request.method": request.method,
            "url.full": request.url
          }
        }, (span) => ofSpan(span, Effect.succeed)),
        then
      )
    }
    // Without a tracer nobody records the span: only its trace context is made, or (where the built-in
    // tracer's span would not be an ordinary one) the span, for its trace context alone.
    const trace = untracedTraceContext(fiber)
    // Stryker disable next-line ConditionalExpression: equivalent: the span made instead gives the same trace context (only heavier)
    if (trace !== undefined) return under.bounded(undefined, trace, then)
    return Effect.flatMap(
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent: only whether a span nobody records keeps a stack trace
      Effect.makeSpan(name, { captureStackTrace: false }),
      (span) => ofSpan(span, then)
    )
  })

/**
 * One exchange under way: its state as fields and its steps as methods (a call in flight keeps this one
 * object, not a closure per step). It is also the connect phase the HTTP layer sees while the head is
 * awaited; the layer calls it synchronously (from undici's callbacks on Node), hence the clock read in place.
 */
class Exchange<TooLarge> implements ConnectPhase {
  private readonly sentBefore: boolean
  private readonly maxResponseBytes: number
  private readonly shared: boolean
  private readonly tooLarge: (refused: ResponseTooLarge) => TooLarge
  // With a `[connect, read]` budget the call's alarm enforces this exchange's phase deadline: the head
  // within read of connecting (within connect + read while the client has not said it connected), then
  // at most read between two chunks.
  private readonly timed: boolean
  private readonly readMillis: number
  private readonly deadline: PhaseDeadline
  private headArrived = false
  private span: Tracer.Span | undefined = undefined
  // The fiber refs the exchange sets for its head, as they were before; `undefined` when a client that takes
  // the phase directly has it (none set then).
  private tracerDisabledWhen: Predicate.Predicate<HttpClientRequest.HttpClientRequest> | undefined = undefined
  private connectPhase: ConnectPhase = noConnectPhase
  private readonly chunks: Array<Uint8Array> = []
  private size = 0

  constructor(
    private readonly client: HttpClient.HttpClient,
    private readonly call: Call,
    private readonly step: A2AStep,
    private request: HttpClientRequest.HttpClientRequest,
    options: Parameters<typeof exchange<unknown, unknown, TooLarge>>[4],
    private readonly clock: Clock.Clock
  ) {
    this.sentBefore = call.sent
    if (options.carriesMessage === true) call.sent = true
    this.maxResponseBytes = options.maxResponseBytes
    this.shared = options.shared === true
    this.tooLarge = options.tooLarge
    const { connect, read } = call.budget
    // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent: a budget has both connect and read, or neither
    const timed = connect !== undefined && read !== undefined
    this.timed = timed
    this.readMillis = timed ? Duration.toMillis(read) : 0
    this.deadline = this.shared ? new PhaseDeadline() : call.phase
    if (timed) {
      this.deadline.set(clock.unsafeCurrentTimeMillis() + Duration.toMillis(connect) + this.readMillis, "response-head")
    }
  }

  /** The connect limit, read once or twice by the HTTP layer: made then, not kept while the request waits. */
  get limit(): Option.Option<Duration.Duration> {
    return Option.fromNullable(this.call.budget.connect)
  }

  onConnected(): void {
    if (this.timed && !this.headArrived) this.readFromNow()
  }

  // Stryker disable next-line BlockStatement: equivalent: a request whose abort is not taken keeps its canceler, which aborts it the same way (only heavier)
  takeAbort(fiber: Fiber.RuntimeFiber<unknown, unknown>, abort: () => void): boolean {
    return this.deadline.takeAbort(fiber, abort)
  }

  private readFromNow(): void {
    this.deadline.set(this.clock.unsafeCurrentTimeMillis() + this.readMillis, "read")
  }

  /**
   * The exchange, its answer handed to `then`, under its own alarm when it is shared and timed (`then`
   * after that alarm); `span` when a tracer records it.
   */
  bounded<A, E>(
    span: Tracer.Span | undefined,
    trace: Headers.Headers,
    then: (answer: HttpAnswer) => Effect.Effect<A, E>
  ): Effect.Effect<A, ExchangeError | TooLarge | E> {
    this.span = span
    return !this.timed || !this.shared
      ? this.run(trace, then)
      : Effect.flatMap(withinPhaseLimits(this.call, this.deadline, this.run(trace, Effect.succeed)), then)
  }

  /** The head, then the body chunk by chunk (refused once it passes `maxResponseBytes`), then `then`. */
  private run<A, E>(
    trace: Headers.Headers,
    then: (answer: HttpAnswer) => Effect.Effect<A, E>
  ): Effect.Effect<A, ExchangeError | TooLarge | E> {
    return Effect.withFiberRuntime((inside) => {
      // With tracing off (`Effect.withTracerEnabled(false)`) no span exists whose context could go out.
      if (
        inside.getFiberRef(HttpClient.currentTracerPropagation) && inside.getFiberRef(FiberRef.currentTracerEnabled)
      ) {
        // The request with its trace context is the one kept (its method and URL are the errors' and the answer's).
        this.request = HttpClientRequest.setHeaders(this.request, trace)
      }
      return Effect.matchEffect(Effect.suspend(() => this.execute()), {
        onFailure: (error) => Effect.zipRight(this.leave(), this.failed(error, this.step)),
        onSuccess: (response) => this.onHead(response, then)
      })
    })
  }
  // Built when it runs: the frame waiting for the head keeps no effect of it alive.
  private execute(): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> {
    // The Node layer's client takes this exchange as its connect phase, and makes no span of its own.
    if (isPhaseAware(this.client)) return this.client[PhaseAwareTypeId](this.request, this)
    // Any other client sees the phase in a fiber ref. The platform's own client span would end holding the
    // raw request and response (headers with the bearer token, unredacted once serialised outside a fiber):
    // off during this exchange, whose own span is propagated instead. Both refs are set back when the head
    // (or a failure) arrives, not in a region of their own: an interrupted exchange's fiber does nothing more.
    return Effect.withFiberRuntime((fiber) => {
      this.tracerDisabledWhen = fiber.getFiberRef(HttpClient.currentTracerDisabledWhen)
      this.connectPhase = fiber.getFiberRef(currentConnectPhase)
      return Effect.zipRight(
        Effect.zipRight(
          FiberRef.set(HttpClient.currentTracerDisabledWhen, disabled),
          FiberRef.set(currentConnectPhase, this)
        ),
        this.client.execute(this.request)
      )
    })
  }

  private leave(): Effect.Effect<void> {
    this.deadline.releaseAbort()
    const tracerDisabledWhen = this.tracerDisabledWhen
    if (tracerDisabledWhen === undefined) return Effect.void
    return Effect.zipRight(
      FiberRef.set(HttpClient.currentTracerDisabledWhen, tracerDisabledWhen),
      FiberRef.set(currentConnectPhase, this.connectPhase)
    )
  }

  private onHead<A, E>(
    response: HttpClientResponse.HttpClientResponse,
    then: (answer: HttpAnswer) => Effect.Effect<A, E>
  ): Effect.Effect<A, ExchangeError | TooLarge | E> {
    this.headArrived = true
    if (this.timed) this.readFromNow()
    const { call, maxResponseBytes, request, step } = this
    const status = response.status
    this.span?.attribute("http.response.status_code", status)
    if (step === "send-message") call.step = "read-response"
    const tooLarge = (declared: number | undefined) =>
      new ResponseTooLarge({ url: request.url, status, limit: maxResponseBytes, declared })
    const declared = Number(response.headers["content-length"])
    if (Number.isFinite(declared) && declared > maxResponseBytes) {
      return Effect.zipRight(this.leave(), this.failed(tooLarge(declared), step))
    }
    const progress = this.timed ? Effect.sync(() => this.readFromNow()) : Effect.void
    const read = forEachChunk(response, (bytes) => {
      this.size += bytes.byteLength
      if (this.size > maxResponseBytes) return Effect.fail(tooLarge(undefined))
      this.chunks.push(bytes)
      return progress
    })
    const readStep: A2AStep = step === "send-message" ? "read-response" : step
    return Effect.zipRight(
      this.leave(),
      Effect.matchEffect(read, {
        onFailure: (error) => this.failed(error, readStep),
        onSuccess: () => then(this.answered(status, response.headers))
      })
    )
  }

  private answered(status: number, headers: Headers.Headers): HttpAnswer {
    this.deadline.clear()
    const { method, url } = this.request
    return { method, url, status, headers, body: concat(this.chunks, this.size) }
  }

  private failed(
    error: ResponseTooLarge | HttpClientError.HttpClientError,
    during: A2AStep
  ): Effect.Effect<never, ExchangeError | TooLarge> {
    this.deadline.clear()
    return error._tag === "ResponseTooLarge"
      ? Effect.fail(this.tooLarge(error))
      : transportError(this.call, during, this.request, error, this.sentBefore)
  }
}

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

const squash = (text: string): string => text.replace(/\s+/g, " ").trim()

/**
 * A short human description of a non-JSON body: an HTML page's title, else the start of the text, `scrub`bed
 * of secrets before it is cut.
 *
 * @internal
 */
export const describeBody = (answer: HttpAnswer, scrub: (text: string) => string): string | undefined => {
  const text = scrub(textOf(answer))
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
