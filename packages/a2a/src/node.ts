/**
 * Node.js layers: the client on undici (`@effect/platform-node`) with an in-memory access cache, and the
 * Node `FileSystem` that `Attachment.fromPath` reads with.
 *
 * Requests go through an HTTP(S) proxy as curl and Python `requests` choose it: `http_proxy` / `HTTP_PROXY`
 * for http targets (absolute-form requests to the proxy), `https_proxy` / `HTTPS_PROXY` for https targets (a
 * CONNECT tunnel), the lowercase name first, and `no_proxy` / `NO_PROXY` exempting hosts (names, domain
 * suffixes, IP addresses, `host:port`, `*`); see {@link HttpClientOptions} to choose otherwise. Credentials
 * in a proxy URL (`http://user:password@proxy:3128`) are sent as `Proxy-Authorization` and are kept secret
 * like tokens. Through a proxy the `connect` limit covers reaching the proxy and, for https, the tunnel (its
 * CONNECT answer and the TLS handshake with the server). A proxy that refuses (407, 403, a 502 to CONNECT)
 * fails the call with an `A2ATransportError` naming the proxy and its status, `messageMayHaveBeenSent: false`.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Undici from "@effect/platform-node/Undici"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as A2AClient from "./A2AClient.js"
import * as A2AError from "./A2AError.js"
import { describeValue, notAStringReason, unknownFieldReason } from "./internal/describeValue.js"
import { fieldsOf } from "./internal/options.js"
import * as Proxy from "./internal/proxy.js"
import * as UndiciHttpClient from "./internal/undiciHttpClient.js"
import * as RuntimeAccessCache from "./RuntimeAccessCache.js"

/**
 * Which proxy the Node layer's requests go through:
 *
 * - `"environment"` (the default): `http_proxy` / `HTTP_PROXY` for http targets, `https_proxy` /
 *   `HTTPS_PROXY` for https targets (lowercase first; an https target with no https proxy goes direct),
 *   `no_proxy` / `NO_PROXY` for the exemptions;
 * - `"none"`: every request goes direct, whatever the environment says;
 * - a proxy URL (`http://[user:password@]host:port`, or `https://…` for a TLS proxy; a plain string is
 *   redacted at once): every request, http or https, goes through it, except the hosts of `noProxy`.
 *
 * @since 0.2.0
 * @category models
 */
export type ProxyOption = "environment" | "none" | (string & {}) | Redacted.Redacted<string>

/**
 * The options of the Node layer's HTTP client.
 *
 * @since 0.2.0
 * @category models
 */
export interface HttpClientOptions {
  /** Which proxy requests go through (default `"environment"`). */
  readonly proxy?: ProxyOption | undefined
  /**
   * Hosts that bypass the proxy, in `NO_PROXY`'s syntax (`localhost,.internal.example,10.0.0.7,host:8443`, or
   * `*`). Default: `no_proxy` / `NO_PROXY` with `"environment"`, none with a proxy URL.
   */
  readonly noProxy?: string | undefined
  /**
   * A bound on the connections open at once to one origin (scheme, host and port: the backend is one, each
   * runtime's `rpc_url` another). Default: none, so concurrent calls never wait for a connection behind
   * other calls' answers (each request in flight has a connection of its own, as with other A2A clients).
   * With a bound, a request beyond it waits in the pool for a connection to come free, inside its call's
   * budget (see {@link layerHttpClient}). A positive integer.
   */
  readonly maxConnectionsPerOrigin?: number | undefined
}

const validConnections = (options: HttpClientOptions): Effect.Effect<Undici.Agent.Options> => {
  const value = options.maxConnectionsPerOrigin
  if (value === undefined) return Effect.succeed({})
  return Number.isSafeInteger(value) && value > 0
    ? Effect.succeed({ connections: value })
    : Effect.die(
      new A2AError.A2AInputError({
        field: "maxConnectionsPerOrigin",
        reason: `must be a positive integer (got ${describeValue(value)})`
      })
    )
}

/** The first of the two variables that is set and not blank, with its name. */
const firstSet = (
  lower: string,
  upper: string
): Config.Config<Option.Option<{ readonly name: string; readonly value: Redacted.Redacted<string> }>> =>
  Config.all([Config.option(Config.redacted(lower)), Config.option(Config.redacted(upper))]).pipe(
    Config.map(([low, up]) => {
      const set = (name: string, value: Option.Option<Redacted.Redacted<string>>) =>
        Option.map(Option.filter(value, (v) => Redacted.value(v).trim() !== ""), (v) => ({ name, value: v }))
      return Option.orElse(set(lower, low), () => set(upper, up))
    })
  )

const proxyUrl = (lower: string, upper: string): Config.Config<Option.Option<Redacted.Redacted<string>>> =>
  Config.mapOrFail(firstSet(lower, upper), (found) =>
    Option.match(found, {
      onNone: () => Either.right(Option.none()),
      onSome: ({ name, value }) =>
        Either.mapBoth(Proxy.parseProxyUrl(Redacted.value(value)), {
          onLeft: (reason) => ConfigError.InvalidData([name], reason),
          onRight: Option.some
        })
    }))

/**
 * The proxy settings from the environment, read as curl and Python `requests` read them (see
 * {@link ProxyOption}). A proxy URL that is not an `http://` or `https://` URL is a `ConfigError` that names
 * the variable, not its value (which may hold a password).
 *
 * @since 0.2.0
 * @category config
 */
export const proxyConfig: Config.Config<{
  readonly httpProxy: Option.Option<Redacted.Redacted<string>>
  readonly httpsProxy: Option.Option<Redacted.Redacted<string>>
  readonly noProxy: string
}> = Config.all({
  httpProxy: proxyUrl("http_proxy", "HTTP_PROXY"),
  httpsProxy: proxyUrl("https_proxy", "HTTPS_PROXY"),
  noProxy: Config.all([Config.option(Config.string("no_proxy")), Config.option(Config.string("NO_PROXY"))]).pipe(
    Config.map(([lower, upper]) => Option.getOrElse(Option.orElse(lower, () => upper), () => ""))
  )
})

const proxySettings = (options: HttpClientOptions): Effect.Effect<Proxy.ProxySettings, ConfigError.ConfigError> => {
  if (options.noProxy !== undefined && typeof options.noProxy !== "string") {
    return Effect.fail(
      ConfigError.InvalidData(
        ["noProxy"],
        `The noProxy option ${notAStringReason(options.noProxy)}`
      )
    )
  }
  const proxy = options.proxy ?? "environment"
  if (proxy === "environment") {
    return Effect.map(proxyConfig, (env) => ({
      http: env.httpProxy,
      https: env.httpsProxy,
      noProxy: options.noProxy ?? env.noProxy
    }))
  }
  if (proxy === "none") return Effect.succeed(Proxy.direct)
  const url: unknown = Redacted.isRedacted(proxy) ? Redacted.value(proxy) : proxy
  // Never quoted: a proxy URL may hold a password.
  if (typeof url !== "string") {
    return Effect.fail(ConfigError.InvalidData(["proxy"], `The proxy option must be "environment", "none" or a URL`))
  }
  return Either.match(Proxy.parseProxyUrl(url), {
    onLeft: (reason) => Effect.fail(ConfigError.InvalidData(["proxy"], `The proxy option ${reason}`)),
    onRight: (url) =>
      Effect.succeed({ http: Option.some(url), https: Option.some(url), noProxy: options.noProxy ?? "" })
  })
}

/**
 * An undici `HttpClient` that applies the call's connect limit as undici's connect timeout, and tells the
 * call when each request has connected and is on its way (so `read` bounds the response head from then
 * on). Dispatchers are kept per connect value, so connections are reused across calls with the same limit.
 * It is built with `HttpClient.make`: a request gets the platform's client span (and trace propagation)
 * while tracing is on for it, and a response dropped unread has its request aborted.
 * Requests go through the proxy that `options.proxy` chooses (default: from the environment, see
 * {@link ProxyOption}); a proxy URL that is not valid fails the layer with a `ConfigError`.
 *
 * By default it opens a connection for each request in flight that finds none free (undici's pool with no
 * per-origin limit), so concurrent calls never wait behind other calls' answers. With
 * `maxConnectionsPerOrigin`, it keeps at most that many connections open to one origin, per pool: calls with
 * a total-only budget share one, calls with `[connect, read]` one per `connect` value (a program whose calls
 * share one budget shape, such as the default `[5, 900]`, has one pool). A request beyond the bound waits in
 * undici's pool for a connection to come free. The wait is part of its call: with a `[connect, read]`
 * budget, undici's connect timeout (`connect`) bounds only the handshake of a new connection, from when the
 * pool opens it, never the time spent queued; `read` starts when the request is written on its connection;
 * the wait itself counts against the call's total. A call whose budget ends while its request is queued
 * ends with `A2ATimeoutError` (`messageMayHaveBeenSent: false`: nothing of it was written), and its request
 * is never written: undici drops it when a connection comes free for it (and closes that connection).
 * An invalid `maxConnectionsPerOrigin` (not a positive integer), or a field these options do not have, is a
 * defect (`A2AInputError`) when the layer is built.
 *
 * @example
 * import * as A2ANode from "@mainsequence/a2a/node"
 *
 * // from the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, either case)
 * export const fromEnvironment = A2ANode.layerHttpClient()
 * // through one proxy, whatever the environment says, except hosts of the company's own domain
 * export const throughProxy = A2ANode.layerHttpClient({ proxy: "http://proxy.example:3128", noProxy: ".example" })
 * // direct, whatever the environment says
 * export const direct = A2ANode.layerHttpClient({ proxy: "none" })
 * // at most 8 connections to the backend and to each runtime (default: no bound)
 * export const fewConnections = A2ANode.layerHttpClient({ maxConnectionsPerOrigin: 8 })
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient = (
  options: HttpClientOptions = {}
): Layer.Layer<HttpClient.HttpClient, ConfigError.ConfigError> =>
  withKnownFields(
    options,
    httpClientFields,
    Layer.scoped(
      HttpClient.HttpClient,
      Effect.gen(function*() {
        const proxies = yield* proxySettings(options)
        const agentOptions = yield* validConnections(options)
        const base = yield* Effect.acquireRelease(
          Effect.sync(() => new Undici.Agent(agentOptions)),
          (dispatcher) => Effect.promise(() => dispatcher.destroy())
        )
        return yield* UndiciHttpClient.make(base, proxies, agentOptions)
      })
    )
  )

const httpClientFields = Object.keys(
  { proxy: null, noProxy: null, maxConnectionsPerOrigin: null } satisfies Record<keyof HttpClientOptions, null>
)

// A misspelt or misplaced field would be dropped in silence: the layer dies as for a bad connection bound.
const withKnownFields = <A, E, R>(
  options: object,
  fields: ReadonlyArray<string>,
  layer: Layer.Layer<A, E, R>
): Layer.Layer<A, E, R> => {
  const reason = unknownFieldReason(options, fields)
  return reason === undefined
    ? layer
    : Layer.unwrapEffect<A, E, R, never, never>(Effect.die(new A2AError.A2AInputError({ field: "options", reason })))
}

const dependencies = (options: HttpClientOptions) =>
  Layer.merge(layerHttpClient(options), RuntimeAccessCache.layerMemory)

const httpClientOptions = (options: HttpClientOptions): HttpClientOptions => ({
  proxy: options.proxy,
  noProxy: options.noProxy,
  maxConnectionsPerOrigin: options.maxConnectionsPerOrigin
})

/**
 * The options of {@link layer}: the client's, and the HTTP client's (the proxy, the connection limit).
 *
 * @since 0.2.0
 * @category models
 */
export interface LayerOptions extends A2AClient.A2AClientOptions, HttpClientOptions {}

/**
 * The client on undici with an in-memory access cache, plus the Node `FileSystem` (for `Attachment.fromPath`).
 * Build it once for the life of the program (`ManagedRuntime`, or `Effect.provide` at the top): the access
 * cache and the connection pool live as long as the layer, so providing it around each call starts cold.
 *
 * `proxy` and `noProxy` choose the proxy (see {@link HttpClientOptions}; default: from the environment);
 * `maxConnectionsPerOrigin` bounds the connections to each origin (default: no bound; see
 * {@link layerHttpClient}). A field these options do not have is a defect (`A2AInputError`) when the layer
 * is built.
 *
 * @example
 * import * as A2ANode from "@mainsequence/a2a/node"
 * import * as Redacted from "effect/Redacted"
 *
 * // through the company's proxy (its password stays redacted), the internal hosts direct
 * export const layer = A2ANode.layer({
 *   backendUrl: "https://api.main-sequence.app",
 *   accessToken: Redacted.make("an access token"),
 *   proxy: Redacted.make("http://user:password@proxy.internal:3128"),
 *   noProxy: ".internal"
 * })
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: LayerOptions
): Layer.Layer<A2AClient.A2AClient | FileSystem.FileSystem, ConfigError.ConfigError> => {
  const { maxConnectionsPerOrigin: _max, noProxy: _noProxy, proxy: _proxy, ...clientOptions } = options
  return withKnownFields(
    options,
    [...fieldsOf.clientOptions, ...httpClientFields],
    A2AClient.layer(clientOptions).pipe(
      Layer.provide(dependencies(httpClientOptions(options))),
      Layer.merge(NodeFileSystem.layer)
    )
  )
}

/**
 * {@link layer} with the options from the environment (see `A2AClient.config`); it also provides the Node
 * `FileSystem`. Provide it once, around the whole program, not around each call. `options` choose the proxy (default:
 * from the environment; `A2ANode.layerConfig(undefined, { proxy: "none" })` goes direct) and a connection bound.
 *
 * @example
 * import { A2AClient } from "@mainsequence/a2a"
 * import * as A2ANode from "@mainsequence/a2a/node"
 * import * as Effect from "effect/Effect"
 *
 * // run `main` with NodeRuntime.runMain from @effect/platform-node
 * export const main = (agentSessionUid: string) =>
 *   Effect.flatMap(A2AClient.A2AClient, (client) => client.sendA2AMessage(agentSessionUid, { message: "Hello" })).pipe(
 *     Effect.tap((answer) => Effect.log(answer.parts)),
 *     Effect.provide(A2ANode.layerConfig())
 *   )
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config?: Config.Config<A2AClient.A2AClientOptions>,
  options: HttpClientOptions = {}
): Layer.Layer<A2AClient.A2AClient | FileSystem.FileSystem, ConfigError.ConfigError> =>
  A2AClient.layerConfig(config).pipe(
    Layer.provide(dependencies(options)),
    Layer.merge(NodeFileSystem.layer)
  )
