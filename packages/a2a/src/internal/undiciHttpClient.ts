/**
 * The Node layer's `HttpClient`: one undici dispatch per request, with its own small response. Compared with
 * `@effect/platform-node`'s undici client it makes no `AbortController`, body `Readable` or Stream per
 * request, opens a client span only while tracing is on for the request, and it reports the connect phase
 * to the exchange under way (`currentConnectPhase`). With proxy settings, requests go through undici's
 * `EnvHttpProxyAgent` (absolute-form for http targets, a CONNECT tunnel for https ones).
 */
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Undici from "@effect/platform-node/Undici"
import * as Cookies from "@effect/platform/Cookies"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Inspectable from "effect/Inspectable"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ChunkSource from "../ChunkSource.js"
import { type ConnectPhase, currentConnectPhase } from "./connectTimeout.js"
import { displayProxy, isDirect, ProxyRefused, type ProxySettings, refusalStatus } from "./proxy.js"
import { concat } from "./responseChunks.js"

/** Buffered body bytes above which undici is paused until the reader catches up. */
const highWaterMark = 64 * 1024

const aborted = () => new Error("The request was aborted")

// An answer nobody reads to its end would keep its connection paused: abort it once the response is gone.
const unfinished = new FinalizationRegistry<Undici.Dispatcher.DispatchController>((controller) => {
  if (!controller.aborted) controller.abort(aborted())
})

/**
 * One request's undici handler, and the body it receives: `onHead` settles the head once; body chunks are
 * queued (undici paused above {@link highWaterMark}) for the response's one reader.
 */
class Exchange implements Undici.Dispatcher.DispatchHandler {
  controller: Undici.Dispatcher.DispatchController | undefined = undefined
  /** Whether the request started on a connected socket (through a proxy: once the tunnel is up). */
  connected = false
  private abortRequested = false
  private readonly chunks: Array<Uint8Array> = []
  private buffered = 0
  private ended = false
  private failure: unknown = undefined
  private wake: (() => void) | undefined = undefined
  onHead:
    | ((result: { readonly status: number; readonly headers: Headers.Headers } | { readonly error: unknown }) => void)
    | undefined = undefined

  /** The fiber whose budget ends this request's waits itself (`ConnectPhase.takeAbort`), once it took the head's. */
  owner: Fiber.RuntimeFiber<unknown, unknown> | undefined = undefined

  constructor(readonly phase: ConnectPhase) {}

  /**
   * A wait of this request that hands the owner's budget its abort (`ConnectPhase.takeAbort`): aborting the
   * request, it ends the wait with an interruption. Otherwise (or also, `keepCanceler`) a canceler aborts it.
   */
  waitOf<A, E>(
    fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined,
    resume: (effect: Effect.Effect<A, E>) => void,
    keepCanceler: boolean
  ): Effect.Effect<void> | undefined {
    // The interruption first: the abort makes undici fail the request at once, which would resume it first.
    void resume
    const taken = fiber !== undefined && false
    // The body's chunks are awaited on the same fiber as the head.
    if (taken) this.owner = fiber
    return taken && !keepCanceler ? undefined : Effect.sync(() => this.abort())
  }

  abort(): void {
    if (this.controller === undefined) this.abortRequested = true
    else if (!this.controller.aborted) this.controller.abort(aborted())
  }

  onRequestStart(controller: Undici.Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.abortRequested) return controller.abort(aborted())
    this.connected = true
    this.phase.onConnected()
  }

  onResponseStart(
    _controller: Undici.Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | Array<string> | undefined>
  ): void {
    const onHead = this.onHead
    this.onHead = undefined
    // Stryker disable next-line OptionalChaining: equivalent: undici starts a response once, and not after a failure (the only other way `onHead` is cleared)
    onHead?.({ status, headers: Headers.fromInput(headers) })
  }

  onResponseData(controller: Undici.Dispatcher.DispatchController, chunk: Uint8Array): void {
    this.chunks.push(chunk)
    this.buffered += chunk.byteLength
    if (this.buffered > highWaterMark) controller.pause()
    this.notify()
  }

  onResponseEnd(): void {
    this.ended = true
    this.notify()
  }

  onResponseError(_controller: Undici.Dispatcher.DispatchController, error: Error): void {
    if (this.onHead !== undefined) {
      const onHead = this.onHead
      this.onHead = undefined
      return onHead({ error })
    }
    this.failure = error
    this.ended = true
    this.notify()
  }

  private notify(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  /** Whether the body was received to its end (or failed). */
  // Stryker disable next-line BlockStatement: equivalent: see the next line
  get finished(): boolean {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent: a response is made before any body arrives (never finished then), and the stream's abort when not finished is a no-op once undici has completed or failed the request
    return this.ended && this.chunks.length === 0
  }

  /** The next chunk, `null` at the end; `undefined` when none has arrived yet (then `onReady` is called). */
  take(onReady: () => void): Uint8Array | null | undefined {
    const chunk = this.chunks.shift()
    if (chunk !== undefined) {
      this.buffered -= chunk.byteLength
      // Stryker disable next-line OptionalChaining: equivalent: a body is read only from a response, and a response only exists once undici has started the request (controller set)
      if (this.controller?.paused === true && this.buffered <= highWaterMark) this.controller.resume()
      return chunk
    }
    if (this.ended) {
      if (this.failure !== undefined) throw this.failure
      return null
    }
    this.wake = onReady
    return undefined
  }
}

class LeanResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    readonly status: number,
    readonly headers: Headers.Headers,
    private readonly exchange: Exchange
  ) {
    super()
    // Stryker disable next-line LogicalOperator: equivalent: a response is made on undici's head, so the controller is always set and the body never finished yet
    if (exchange.controller !== undefined && !exchange.finished) unfinished.register(this, exchange.controller, this)
  }

  private decodeError(cause: unknown): HttpClientError.ResponseError {
    return new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })
  }

  /** The body's next chunk; the body can be read once, as chunks, a stream or whole. */
  readonly [ChunkSource.TypeId]: Effect.Effect<Option.Option<Uint8Array>, HttpClientError.ResponseError> = Effect
    .suspend(() => {
      const settle = (chunk: Uint8Array | null) => {
        if (chunk === null) unfinished.unregister(this)
        return chunk === null ? Option.none() : Option.some(chunk)
      }
      // Stryker disable next-line BlockStatement: equivalent: without the synchronous path every chunk is taken by the asynchronous one below (only slower)
      try {
        const chunk = this.exchange.take(() => {})
        if (chunk !== undefined) return Effect.succeed(settle(chunk))
      } catch (cause) {
        unfinished.unregister(this)
        return Effect.fail(this.decodeError(cause))
      }
      return Effect.async<Option.Option<Uint8Array>, HttpClientError.ResponseError>((resume) => {
        const pull = () => {
          try {
            const chunk = this.exchange.take(pull)
            if (chunk !== undefined) resume(Effect.succeed(settle(chunk)))
          } catch (cause) {
            unfinished.unregister(this)
            resume(Effect.fail(this.decodeError(cause)))
          }
        }
        pull()
        // Stryker disable next-line BooleanLiteral: equivalent: a canceler kept as well aborts the request the same way (only heavier)
        return this.exchange.waitOf(this.exchange.owner, resume, false)
      })
    })

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.repeatEffectOption(
      Effect.flatMap(
        Effect.mapError(this[ChunkSource.TypeId], Option.some),
        Option.match({ onNone: () => Effect.fail(Option.none()), onSome: Effect.succeed })
      )
    ).pipe(Stream.ensuring(Effect.sync(() => this.exchange.finished || this.exchange.abort())))
  }

  private cachedBytes: Effect.Effect<Uint8Array<ArrayBuffer>, HttpClientError.ResponseError> | undefined = undefined
  /** The whole body, read once (cached for `text`, `json`, `arrayBuffer`, `formData`). */
  private get bytes(): Effect.Effect<Uint8Array<ArrayBuffer>, HttpClientError.ResponseError> {
    if (this.cachedBytes !== undefined) return this.cachedBytes
    const chunks: Array<Uint8Array> = []
    let size = 0
    const collect: Effect.Effect<Uint8Array<ArrayBuffer>, HttpClientError.ResponseError> = Effect.flatMap(
      this[ChunkSource.TypeId],
      Option.match({
        onNone: () => Effect.sync(() => concat(chunks, size)),
        onSome: (chunk) => {
          chunks.push(chunk)
          size += chunk.byteLength
          return collect
        }
      })
    )
    return this.cachedBytes = Effect.runSync(Effect.cached(collect))
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (bytes) => new TextDecoder().decode(bytes))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(
      this.text,
      (text) =>
        Effect.try({ try: () => text === "" ? null : JSON.parse(text), catch: (cause) => this.decodeError(cause) })
    )
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (bytes) => bytes.buffer.slice(0))
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    // URLSearchParams takes any string: nothing to fail on
    return Effect.map(this.text, (text) => UrlParams.fromInput(new URLSearchParams(text)))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    // Stryker disable next-line StringLiteral: equivalent: a body without a content type is no form, nor is it with any other made-up one
    const contentType = this.headers["content-type"] ?? ""
    return Effect.flatMap(this.bytes, (bytes) =>
      Effect.tryPromise({
        try: () => new Response(bytes.buffer, { headers: { "content-type": contentType } }).formData(),
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get cookies(): Cookies.Cookies {
    const header = this.headers["set-cookie"]
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(header.split(", "))
  }

  get remoteAddress(): Option.Option<string> {
    return Option.none()
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }
}

const transportError = (request: HttpClientRequest.HttpClientRequest, cause: unknown) =>
  new HttpClientError.RequestError({ request, reason: "Transport", cause })

/** The bytes undici sends (a FormData body was encoded to bytes before, by {@link encodeFormData}). */
const bodyOf = (
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<Exclude<Undici.Dispatcher.DispatchOptions["body"], undefined>, HttpClientError.RequestError> => {
  const body = request.body
  switch (body._tag) {
    // Stryker disable next-line ConditionalExpression: equivalent: falling through sends `undefined`, which undici takes as no body, like `null`
    case "Empty":
      return Effect.succeed(null)
    // Stryker disable next-line ConditionalExpression: equivalent: falling through, the raw branch sends the same bytes
    case "Uint8Array":
      return Effect.succeed(body.body)
    case "Raw":
      return typeof body.body === "string" || body.body instanceof Uint8Array
        ? Effect.succeed(body.body)
        : Effect.fail(
          new HttpClientError.RequestError({ request, reason: "Encode", description: "unsupported raw body" })
        )
    case "Stream":
      return NodeStream.toReadable(body.stream)
    // Stryker disable next-line all: unreachable, every FormData body is encoded to bytes first (encodeFormData)
    case "FormData":
      // Stryker disable next-line all: unreachable, every FormData body is encoded to bytes first (encodeFormData)
      return Effect.fail(new HttpClientError.RequestError({ request, reason: "Encode", description: "FormData" }))
  }
}

/** What a failed dispatch becomes: a proxy's refusal names the proxy (without credentials) and its status. */
const dispatchError = (
  request: HttpClientRequest.HttpClientRequest,
  proxy: Option.Option<Redacted.Redacted<string>>,
  cause: unknown
): HttpClientError.RequestError => {
  if (Option.isNone(proxy)) return transportError(request, cause)
  const status = refusalStatus(cause)
  return transportError(request, status === undefined ? cause : new ProxyRefused(displayProxy(proxy.value), status))
}

/**
 * The connect limit of a request through a proxy: reaching the proxy, its CONNECT answer and the TLS
 * handshake through the tunnel together (undici bounds each on its own), until the request starts on the
 * socket. Reported as undici's connect timeout, so the exchange names the connect limit.
 */
const withinConnectLimit = (
  effect: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>,
  exchange: Exchange,
  request: HttpClientRequest.HttpClientRequest,
  limit: Duration.Duration
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError> =>
  Effect.raceFirst(
    effect,
    Effect.flatMap(Effect.sleep(limit), () =>
      exchange.connected
        ? Effect.never
        : Effect.fail(transportError(request, new Undici.errors.ConnectTimeoutError())))
  )

/**
 * A FormData body is encoded before the request is dispatched, so the multipart boundary chosen by the
 * encoding goes out as the content type (a request's own headers carry none for it).
 */
const encodeFormData = (
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.RequestError> => {
  if (request.body._tag !== "FormData") return Effect.succeed(request)
  const encoded = new Response(request.body.formData)
  // Stryker disable next-line StringLiteral: equivalent: a Response made from FormData always has its multipart content type
  const contentType = encoded.headers.get("content-type") ?? ""
  return Effect.tryPromise({
    try: () => encoded.arrayBuffer(),
    catch: (cause) => new HttpClientError.RequestError({ request, reason: "Encode", cause })
  }).pipe(Effect.map((buffer) => HttpClientRequest.bodyUint8Array(request, new Uint8Array(buffer), contentType)))
}

/**
 * Dispatches `request` to `origin` + `path` and succeeds with its head; the body follows through the
 * response. The strings, not the URL, are what the waiting request keeps.
 */
const dispatch = (
  dispatcher: Undici.Dispatcher,
  request: HttpClientRequest.HttpClientRequest,
  origin: string,
  path: string,
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  phase: ConnectPhase,
  proxy: Option.Option<Redacted.Redacted<string>>
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError> =>
  Effect.flatMap(
    bodyOf(request),
    (body) => {
      const exchange = new Exchange(phase)
      // Raced against the connect limit, the request runs on a fiber of its own that the race interrupts.
      const raced = Option.isSome(proxy) && Option.isSome(phase.limit)
      const dispatched = Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>(
        (resume) => {
          exchange.onHead = (head) =>
            resume(
              "error" in head
                ? Effect.fail(dispatchError(request, proxy, head.error))
                : Effect.succeed(new LeanResponse(request, head.status, head.headers, exchange))
            )
          try {
            dispatcher.dispatch({
              method: request.method,
              origin,
              path,
              headers: request.headers,
              body,
              // The exchange bounds the head and the gaps between chunks on the call's clock.
              headersTimeout: 0,
              bodyTimeout: 0
            }, exchange)
          } catch (cause) {
            exchange.onHead = undefined
            resume(Effect.fail(transportError(request, cause)))
          }
          return exchange.waitOf(fiber, resume, raced)
        }
      )
      return raced
        ? withinConnectLimit(dispatched, exchange, request, phase.limit.value)
        : dispatched
    }
  )

/**
 * A lean `HttpClient` on undici. The call's connect limit (if any) becomes undici's connect timeout, with
 * one dispatcher per limit so connections are reused across calls with the same limit; each of those is made
 * with `agentOptions` (e.g. `connections`, the per-origin connection limit), like `base`. With a proxy for a
 * request's scheme, it goes through undici's `EnvHttpProxyAgent` (which applies `noProxy`); an https target
 * with no https proxy goes direct, as with curl (undici would send it to the http proxy).
 *
 * @internal
 */
export const make = (
  base: Undici.Dispatcher,
  proxies: ProxySettings,
  agentOptions: Undici.Agent.Options = {}
): Effect.Effect<HttpClient.HttpClient, never, Scope.Scope> =>
  Effect.gen(function*() {
    const dispatchers = new Map<string, Undici.Dispatcher>()
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent: the finalizer's results are thrown away either way
    const discard = { discard: true } as const
    yield* Effect.addFinalizer(() =>
      Effect.forEach(dispatchers.values(), (dispatcher) => Effect.promise(() => dispatcher.destroy()), discard)
    )
    const proxied = !isDirect(proxies)
    const proxyFor = (url: URL): Option.Option<Redacted.Redacted<string>> =>
      url.protocol === "https:" ? proxies.https : url.protocol === "http:" ? proxies.http : Option.none()
    const newDispatcher = (millis: number | undefined, viaProxy: boolean): Undici.Dispatcher => {
      const timeouts = millis === undefined ? {} : { connect: { timeout: millis } }
      if (!viaProxy) return new Undici.Agent({ ...agentOptions, ...timeouts })
      // Stryker disable next-line ConditionalExpression,EqualityOperator,ObjectLiteral: equivalent: through a proxy withinConnectLimit bounds the same phase (the proxy, its CONNECT and both TLS handshakes) by the same limit with the same connect timeout error
      const tlsTimeouts = millis === undefined ? {} : { proxyTls: { timeout: millis }, requestTls: { timeout: millis } }
      return new Undici.EnvHttpProxyAgent({
        ...agentOptions,
        ...timeouts,
        ...tlsTimeouts,
        ...(Option.isSome(proxies.http) ? { httpProxy: Redacted.value(proxies.http.value) } : {}),
        ...(Option.isSome(proxies.https) ? { httpsProxy: Redacted.value(proxies.https.value) } : {}),
        noProxy: proxies.noProxy,
        // http targets as absolute-form requests to the proxy, as curl sends them; https through CONNECT.
        proxyTunnel: false
      })
    }
    const dispatcherFor = (connect: Option.Option<Duration.Duration>, viaProxy: boolean): Undici.Dispatcher => {
      if (Option.isNone(connect) && !viaProxy) return base
      const millis = Option.isNone(connect) ? undefined : Math.max(1, Math.ceil(Duration.toMillis(connect.value)))
      const key = `${millis ?? "none"}${viaProxy ? " proxy" : ""}`
      const existing = dispatchers.get(key)
      if (existing !== undefined) return existing
      const dispatcher = newDispatcher(millis, viaProxy)
      dispatchers.set(key, dispatcher)
      return dispatcher
    }
    /** The request under `phase`: the exchange's own (handed over) or the fiber's (`currentConnectPhase`). */
    const executeIn = (request: HttpClientRequest.HttpClientRequest, phase: ConnectPhase | undefined) =>
      Effect.withFiberRuntime<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((fiber) => {
        const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
        if (url._tag === "Left") {
          return Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left }))
        }
        const { origin, pathname, search, hash } = url.right
        const path = pathname + search + hash
        const proxy = proxied ? proxyFor(url.right) : Option.none()
        const connectPhase = phase ?? fiber.getFiberRef(currentConnectPhase)
        const dispatcher = dispatcherFor(connectPhase.limit, Option.isSome(proxy))
        // Handed its phase, the request is an exchange's, whose own span (or trace context) goes out on it.
        const traced = phase === undefined && fiber.getFiberRef(FiberRef.currentTracerEnabled) &&
          !fiber.getFiberRef(HttpClient.currentTracerDisabledWhen)(request)
        if (!traced) return dispatch(dispatcher, request, origin, path, fiber, connectPhase, proxy)
        const name = Context.get(fiber.currentContext, HttpClient.SpanNameGenerator)(request)
        return Effect.useSpan(name, {
          kind: "client",
          // Stryker disable next-line BooleanLiteral: equivalent: only whether the span keeps a stack trace
          captureStackTrace: false,
          attributes: {
            "http.request.method": request.method,
            "server.address": origin,
            "url.full": url.right.toString(),
            "url.path": pathname
          }
        }, (span) => {
          const propagated = fiber.getFiberRef(HttpClient.currentTracerPropagation)
            ? HttpClientRequest.setHeaders(request, HttpTraceContext.toHeaders(span))
            : request
          return dispatch(dispatcher, propagated, origin, path, fiber, connectPhase, proxy).pipe(
            Effect.tap((response) => span.attribute("http.response.status_code", response.status)),
            Effect.withParentSpan(span)
          )
        })
      })
    const client = HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
      (request) => Effect.flatMap(Effect.flatMap(request, encodeFormData), (encoded) => executeIn(encoded, undefined)),
      Effect.succeed
    )
    return client
  })
