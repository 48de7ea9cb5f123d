/**
 * The Node layer's `HttpClient`: `HttpClient.make` (the platform's span, abort signal, and abort of a response
 * dropped unread) around one undici `dispatch` per request with a handler of its own. The handler is there
 * because it sees the connect phase, which `@effect/platform-node`'s undici client (`Dispatcher.request`)
 * hides: the request waits for a connection from its dispatch (`ConnectPhase.onQueued`) until undici starts
 * it on a socket (`onRequestStart`, `ConnectPhase.onConnected`), and nothing of it is written before. The
 * call's connect limit is undici's connect timeout, with one dispatcher per limit. With proxy settings,
 * requests go through undici's `EnvHttpProxyAgent` (absolute-form for http targets, a CONNECT tunnel for
 * https ones). The body is a `Stream` pulled from the handler, undici paused while more than
 * {@link highWaterMark} bytes wait unread.
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
import * as UrlParams from "@effect/platform/UrlParams"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type ConnectPhase, currentConnectPhase } from "./connectPhase.js"
import { displayProxy, isDirect, ProxyRefused, type ProxySettings, refusalStatus } from "./proxy.js"
import { concat } from "./responseChunks.js"

/** Buffered body bytes above which undici is paused until the reader catches up. */
const highWaterMark = 64 * 1024

const aborted = () => new Error("The request was aborted")

type Head = { readonly status: number; readonly headers: Headers.Headers } | { readonly error: Error }

/** Whether the client's scope is closing: a request its dispatchers' destruction fails is interrupted, not failed. */
interface ClientState {
  closed: boolean
}

/**
 * One request as undici drives it: `onHead` settles its head once; the body's chunks queue up for the
 * response's one reader.
 */
class RequestHandler implements Undici.Dispatcher.DispatchHandler {
  private controller: Undici.Dispatcher.DispatchController | undefined = undefined
  /** Whether the request started on a connected socket (through a proxy: once the tunnel is up). */
  connected = false
  private abortRequested = false
  private readonly chunks: Array<Uint8Array> = []
  private buffered = 0
  private ended = false
  private failure: Error | undefined = undefined
  private wake: (() => void) | undefined = undefined
  onHead: ((head: Head) => void) | undefined = undefined

  constructor(private readonly phase: ConnectPhase, private readonly client: ClientState) {}

  abort(): void {
    if (this.ended) return
    // Undici hands the controller over only when it starts the request: a queued request is aborted then.
    if (this.controller === undefined) this.abortRequested = true
    else this.controller.abort(aborted())
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
    // An informational head (`103 Early Hints`) comes before the answer's own; a 101 without an upgrade asked
    // for fails the request in undici.
    if (status < 200 && status !== 101) return
    this.settleHead({ status, headers: Headers.fromInput(headers) })
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
    if (this.onHead !== undefined) return this.settleHead({ error })
    this.failure = error
    this.ended = true
    this.notify()
  }

  private settleHead(head: Head): void {
    const onHead = this.onHead
    this.onHead = undefined
    // Stryker disable next-line OptionalChaining: equivalent: undici starts a response once, never after a failure
    onHead?.(head)
  }

  private notify(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  /** The body's next chunk, failing with `None` at its end; interrupted while it waits, the request is aborted. */
  pull(): Effect.Effect<Uint8Array, Option.Option<Error>> {
    return Effect.async((resume) => {
      const next = (): void => {
        const chunk = this.chunks.shift()
        if (chunk !== undefined) {
          this.buffered -= chunk.byteLength
          // Stryker disable next-line OptionalChaining,ConditionalExpression: equivalent: resume unpaused: no-op
          if (this.controller?.paused === true && this.buffered <= highWaterMark) this.controller.resume()
          return resume(Effect.succeed(chunk))
        }
        if (!this.ended) return void (this.wake = next)
        resume(
          this.failure !== undefined && this.client.closed
            ? Effect.interrupt
            : Effect.fail(Option.fromNullable(this.failure))
        )
      }
      next()
      return Effect.sync(() => this.abort())
    })
  }
}

class UndiciResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    readonly status: number,
    readonly headers: Headers.Headers,
    private readonly handler: RequestHandler
  ) {
    super()
  }

  private decodeError(cause: unknown): HttpClientError.ResponseError {
    return new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })
  }

  /** The body; it can be read once, as a stream or whole. */
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.repeatEffectOption(
      Effect.mapError(this.handler.pull(), Option.map((cause) => this.decodeError(cause)))
    )
  }

  private cachedBytes: Effect.Effect<Uint8Array<ArrayBuffer>, HttpClientError.ResponseError> | undefined = undefined
  /** The whole body, read once (cached for `text`, `json`, `arrayBuffer`, `formData`). */
  private get bytes(): Effect.Effect<Uint8Array<ArrayBuffer>, HttpClientError.ResponseError> {
    return this.cachedBytes ??= Effect.runSync(Effect.cached(Effect.map(Stream.runCollect(this.stream), (chunks) => {
      const all = Chunk.toReadonlyArray(chunks)
      return concat(all, all.reduce((size, chunk) => size + chunk.byteLength, 0))
    })))
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
    return Effect.map(this.text, (text) => UrlParams.fromInput(new URLSearchParams(text)))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    // Stryker disable next-line StringLiteral: equivalent: no content type or a made-up one: no form
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
    // Stryker disable next-line ConditionalExpression: equivalent: undici takes `undefined` as no body, like `null`
    case "Empty":
      return Effect.succeed(null)
    // Stryker disable next-line ConditionalExpression: equivalent: falling through, the Raw branch sends the same bytes
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
    // Stryker disable next-line all: unreachable, encodeFormData encodes every FormData body first
    case "FormData":
      // Stryker disable next-line all: unreachable, encodeFormData encodes every FormData body first
      return Effect.fail(new HttpClientError.RequestError({ request, reason: "Encode", description: "FormData" }))
  }
}

/**
 * A FormData body is encoded before the request is dispatched, so the multipart boundary chosen by the
 * encoding goes out as the content type (a request's own headers carry none for it).
 */
const encodeFormData = (
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.RequestError> => {
  if (request.body._tag !== "FormData") return Effect.succeed(request)
  const encoded = new Response(request.body.formData)
  // Stryker disable next-line StringLiteral: equivalent: a Response made from FormData always has its content type
  const contentType = encoded.headers.get("content-type") ?? ""
  return Effect.tryPromise({
    try: () => encoded.arrayBuffer(),
    catch: (cause) => new HttpClientError.RequestError({ request, reason: "Encode", cause })
  }).pipe(Effect.map((buffer) => HttpClientRequest.bodyUint8Array(request, new Uint8Array(buffer), contentType)))
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
  head: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>,
  handler: RequestHandler,
  request: HttpClientRequest.HttpClientRequest,
  limit: Duration.Duration
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError> =>
  Effect.raceFirst(
    head,
    Effect.flatMap(Effect.sleep(limit), () =>
      handler.connected
        ? Effect.never
        : Effect.fail(transportError(request, new Undici.errors.ConnectTimeoutError())))
  )

/**
 * Dispatches `request` and succeeds with its head; the body follows through the response. Interrupted
 * while it waits, the request is aborted; so is it when the platform aborts `signal` (a response dropped
 * unread, a body stream ended early).
 */
const dispatch = (
  dispatcherOf: () => Undici.Dispatcher,
  request: HttpClientRequest.HttpClientRequest,
  url: URL,
  signal: AbortSignal,
  phase: ConnectPhase,
  proxy: Option.Option<Redacted.Redacted<string>>,
  client: ClientState
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError> =>
  Effect.flatMap(bodyOf(request), (body) => {
    const handler = new RequestHandler(phase, client)
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent: an abort signal fires once
    signal.addEventListener("abort", () => handler.abort(), { once: true })
    const head = Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
      handler.onHead = (head) =>
        resume(
          "error" in head
            ? client.closed ? Effect.interrupt : Effect.fail(dispatchError(request, proxy, head.error))
            : Effect.succeed(new UndiciResponse(request, head.status, head.headers, handler))
        )
      phase.onQueued()
      try {
        dispatcherOf().dispatch({
          method: request.method,
          origin: url.origin,
          path: url.pathname + url.search + url.hash,
          headers: request.headers,
          body,
          // The exchange bounds the head and the gaps between chunks on the call's clock.
          headersTimeout: 0,
          bodyTimeout: 0
        }, handler)
      } catch (cause) {
        resume(client.closed ? Effect.interrupt : Effect.fail(transportError(request, cause)))
      }
      return Effect.sync(() => handler.abort())
    })
    return Option.isSome(proxy) && Option.isSome(phase.limit)
      ? withinConnectLimit(head, handler, request, phase.limit.value)
      : head
  })

/** How many dispatchers of their own (one per connect limit, direct or through the proxy) a client keeps. */
const maxDispatchers = 8

/**
 * The client on `base`; a connect limit or a proxy gets a dispatcher of its own made with `agentOptions`, the
 * least recently made closed once more than {@link maxDispatchers} would be kept.
 * @internal
 */
export const make = (
  base: Undici.Dispatcher,
  proxies: ProxySettings,
  agentOptions: Undici.Agent.Options = {}
): Effect.Effect<HttpClient.HttpClient, never, Scope.Scope> =>
  Effect.gen(function*() {
    const dispatchers = new Map<string, Undici.Dispatcher>()
    const client: ClientState = { closed: false }
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent: the results are thrown away
    const discard = { discard: true } as const
    // Runs before `base` is destroyed (it was acquired earlier): a call in flight then ends interrupted.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        client.closed = true
        return Effect.forEach(dispatchers.values(), (dispatcher) => Effect.promise(() => dispatcher.destroy()), discard)
      })
    )
    // An https target with no https proxy goes direct, as with curl (undici would send it to the http proxy).
    const proxied = !isDirect(proxies)
    const proxyFor = (url: URL): Option.Option<Redacted.Redacted<string>> =>
      url.protocol === "https:" ? proxies.https : url.protocol === "http:" ? proxies.http : Option.none()
    const newDispatcher = (millis: number | undefined, viaProxy: boolean): Undici.Dispatcher => {
      const timeouts = millis === undefined ? {} : { connect: { timeout: millis } }
      if (!viaProxy) return new Undici.Agent({ ...agentOptions, ...timeouts })
      // Stryker disable next-line ConditionalExpression,EqualityOperator,ObjectLiteral: equivalent: withinConnectLimit
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
      for (const [oldestKey, oldest] of dispatchers) {
        if (dispatchers.size < maxDispatchers) break
        dispatchers.delete(oldestKey)
        // Its requests under way end on it; its idle connections close now.
        oldest.close().catch(() => undefined)
      }
      const dispatcher = newDispatcher(millis, viaProxy)
      dispatchers.set(key, dispatcher)
      return dispatcher
    }
    return HttpClient.make((request, url, signal, fiber) => {
      const phase = fiber.getFiberRef(currentConnectPhase)
      const proxy = proxied ? proxyFor(url) : Option.none()
      // Picked as it is dispatched: a dispatcher closed meanwhile is never handed a request.
      const dispatcherOf = () => dispatcherFor(phase.limit, Option.isSome(proxy))
      return dispatch(dispatcherOf, request, url, signal, phase, proxy, client)
    }).pipe(HttpClient.mapRequestEffect(encodeFormData))
  })
