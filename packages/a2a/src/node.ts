/**
 * Node.js layers: the client on undici (`@effect/platform-node`) with an in-memory access cache, and the
 * Node `FileSystem` that `Attachment.fromPath` reads with.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as A2AClient from "./A2AClient.js"
import * as UndiciHttpClient from "./internal/undiciHttpClient.js"
import * as RuntimeAccessCache from "./RuntimeAccessCache.js"

/**
 * An undici `HttpClient` that applies the call's connect limit as undici's connect timeout, and tells the
 * call when each request has connected and is on its way (so `read` bounds the response head from then
 * on). Dispatchers are kept per connect value, so connections are reused across calls with the same limit.
 * It traces a request with a client span (and propagates its trace context) only while tracing is on for it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient: Layer.Layer<HttpClient.HttpClient> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.flatMap(NodeHttpClient.makeDispatcher, UndiciHttpClient.make)
)

const dependencies = Layer.merge(layerHttpClient, RuntimeAccessCache.layerMemory)

/**
 * The client on undici with an in-memory access cache, plus the Node `FileSystem` (for `Attachment.fromPath`).
 * Build it once for the life of the program (`ManagedRuntime`, or `Effect.provide` at the top): the access
 * cache and the connection pool live as long as the layer, so providing it around each call starts cold.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: A2AClient.A2AClientOptions
): Layer.Layer<A2AClient.A2AClient | FileSystem.FileSystem> =>
  A2AClient.layer(options).pipe(Layer.provide(dependencies), Layer.merge(NodeFileSystem.layer))

/**
 * {@link layer} with the options from the environment (see `A2AClient.config`); it also provides the Node
 * `FileSystem`. Provide it once, around the whole program, not around each call.
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
  config?: Config.Config<A2AClient.A2AClientOptions>
): Layer.Layer<A2AClient.A2AClient | FileSystem.FileSystem, ConfigError.ConfigError> =>
  A2AClient.layerConfig(config).pipe(Layer.provide(dependencies), Layer.merge(NodeFileSystem.layer))
