/**
 * Node.js layers: the client on undici (`@effect/platform-node`) with an in-memory access cache, and the
 * Node `FileSystem` that `Attachment.fromPath` reads with.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Undici from "@effect/platform-node/Undici"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as A2AClient from "./A2AClient.js"
import * as A2AError from "./A2AError.js"
import * as UndiciHttpClient from "./internal/undiciHttpClient.js"
import * as RuntimeAccessCache from "./RuntimeAccessCache.js"

/**
 * Options of the Node layer's HTTP client.
 *
 * @since 0.2.0
 * @category models
 */
export interface HttpClientOptions {
  /**
   * The most connections open at once to one origin (scheme, host and port: the backend is one, each
   * runtime's `rpc_url` another); default {@link defaultMaxConnectionsPerOrigin}. A request beyond it waits
   * in the pool for a connection to come free, inside its call's budget (see {@link layerHttpClientWith}).
   * A positive integer.
   */
  readonly maxConnectionsPerOrigin?: number | undefined
}

/**
 * The default per-origin connection limit of the Node layer: 64. Chosen by measurement (docs/BENCHMARKS.md,
 * "Connection limit"): a burst of 5,000 concurrent sends to 100 sessions at limits 16 to 256 and without one.
 * Without a limit the burst opened 5,000 sockets, and raw undici needed twice the heap (+61 MiB against
 * +29 MiB) and twice the time; from 16 to 256 the heap is flat, and 64 was the fastest for both raw undici and
 * the SDK on a loopback server, with a quarter of 256's sockets. A server across a network, where each
 * request holds its connection for a round trip, may want more.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxConnectionsPerOrigin = 64

const validConnections = (options: HttpClientOptions | undefined): Effect.Effect<number> => {
  const value = options?.maxConnectionsPerOrigin ?? defaultMaxConnectionsPerOrigin
  return Number.isSafeInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.die(
      new A2AError.A2AInputError({
        field: "maxConnectionsPerOrigin",
        reason: `must be a positive integer (got ${String(value)})`
      })
    )
}

/**
 * An undici `HttpClient` that applies the call's connect limit as undici's connect timeout, and tells the
 * call when each request has connected and is on its way (so `read` bounds the response head from then
 * on). Dispatchers are kept per connect value, so connections are reused across calls with the same limit.
 * It traces a request with a client span (and propagates its trace context) only while tracing is on for it.
 *
 * It keeps at most `maxConnectionsPerOrigin` connections open to one origin, per pool: calls with a
 * total-only budget share one, calls with `[connect, read]` one per `connect` value (a program whose calls
 * share one budget shape, such as the default `[5, 900]`, has one pool). A request beyond
 * that waits in undici's pool for a connection to come free. The wait is part of its call: with a
 * `[connect, read]` budget, undici's connect timeout (`connect`) bounds only the handshake of a new
 * connection, from when the pool opens it, never the time spent queued; `read` starts when the request is
 * written on its connection; the wait itself counts against the call's total (before the request is
 * written its response head is due within connect + read of the exchange's start, which is never later
 * than the total). With a total-only budget the wait counts against the total alone. A call that runs out
 * of budget while queued ends at once with `A2ATimeoutError` (`limit: "total"`; `messageMayHaveBeenSent:
 * true`, as for any send handed to the client, though the request was never written): its request stays in
 * undici's queue until a connection comes free and is then dropped unwritten (undici closes that connection).
 *
 * An invalid `maxConnectionsPerOrigin` (not a positive integer) is a defect (`A2AInputError`) when the
 * layer is built.
 *
 * @example
 * import { A2AClient, RuntimeAccessCache } from "@mainsequence/a2a"
 * import * as A2ANode from "@mainsequence/a2a/node"
 * import * as Layer from "effect/Layer"
 *
 * // at most 8 connections to the backend and to each runtime
 * export const A2AClientLive = A2AClient.layerConfig().pipe(
 *   Layer.provide(Layer.merge(A2ANode.layerHttpClientWith({ maxConnectionsPerOrigin: 8 }), RuntimeAccessCache.layerMemory))
 * )
 *
 * @since 0.2.0
 * @category layers
 */
export const layerHttpClientWith = (options?: HttpClientOptions): Layer.Layer<HttpClient.HttpClient> =>
  Layer.scoped(
    HttpClient.HttpClient,
    Effect.flatMap(validConnections(options), (connections) =>
      Effect.acquireRelease(
        Effect.sync(() => new Undici.Agent({ connections })),
        (dispatcher) => Effect.promise(() => dispatcher.destroy())
      ).pipe(Effect.flatMap((base) => UndiciHttpClient.make(base, { connections }))))
  )

/**
 * {@link layerHttpClientWith} with the default options (at most {@link defaultMaxConnectionsPerOrigin}
 * connections per origin).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient: Layer.Layer<HttpClient.HttpClient> = layerHttpClientWith()

const dependencies = (options: HttpClientOptions | undefined) =>
  Layer.merge(layerHttpClientWith(options), RuntimeAccessCache.layerMemory)

/**
 * The options of {@link layer}: the client's, and its HTTP client's.
 *
 * @since 0.2.0
 * @category models
 */
export interface NodeLayerOptions extends A2AClient.A2AClientOptions, HttpClientOptions {}

/**
 * The client on undici with an in-memory access cache, plus the Node `FileSystem` (for `Attachment.fromPath`).
 * Build it once for the life of the program (`ManagedRuntime`, or `Effect.provide` at the top): the access
 * cache and the connection pool live as long as the layer, so providing it around each call starts cold.
 * `maxConnectionsPerOrigin` bounds the connections to each origin (see {@link layerHttpClientWith}).
 *
 * @example
 * import { A2AClient } from "@mainsequence/a2a"
 * import * as A2ANode from "@mainsequence/a2a/node"
 * import * as Effect from "effect/Effect"
 *
 * export const ask = (agentSessionUid: string, message: string) =>
 *   Effect.flatMap(A2AClient.A2AClient, (client) => client.sendA2AMessage(agentSessionUid, { message })).pipe(
 *     Effect.provide(A2ANode.layer({ backendUrl: "https://api.main-sequence.app", accessToken: "…", maxConnectionsPerOrigin: 64 }))
 *   )
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: NodeLayerOptions
): Layer.Layer<A2AClient.A2AClient | FileSystem.FileSystem> => {
  const { maxConnectionsPerOrigin, ...clientOptions } = options
  return A2AClient.layer(clientOptions).pipe(
    Layer.provide(dependencies({ maxConnectionsPerOrigin })),
    Layer.merge(NodeFileSystem.layer)
  )
}

/**
 * {@link layer} with the options from the environment (see `A2AClient.config`); it also provides the Node
 * `FileSystem`. Provide it once, around the whole program, not around each call. `httpOptions` sets the
 * HTTP client's (see {@link layerHttpClientWith}).
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
  httpOptions?: HttpClientOptions
): Layer.Layer<A2AClient.A2AClient | FileSystem.FileSystem, ConfigError.ConfigError> =>
  A2AClient.layerConfig(config).pipe(Layer.provide(dependencies(httpOptions)), Layer.merge(NodeFileSystem.layer))
