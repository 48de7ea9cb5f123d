/**
 * Node.js layers: the client on undici (`@effect/platform-node`) with an in-memory access cache, and the
 * Node `FileSystem` that `Attachment.fromPath` reads with.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Undici from "@effect/platform-node/Undici"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as A2AClient from "./A2AClient.js"
import { currentConnectTimeout, currentOnConnected } from "./internal/connectTimeout.js"
import * as RuntimeAccessCache from "./RuntimeAccessCache.js"

/**
 * Forwards every event to `handler`, and calls `onConnected` when undici starts the request on a connected
 * socket (right before it writes the request), the moment from which `read` bounds the response head.
 */
class ConnectedSignal implements Undici.Dispatcher.DispatchHandler {
  constructor(
    private readonly handler: Undici.Dispatcher.DispatchHandler,
    private readonly onConnected: () => void
  ) {}
  onRequestStart(controller: Undici.Dispatcher.DispatchController, context: unknown): void {
    this.onConnected()
    this.handler.onRequestStart?.(controller, context)
  }
  onRequestUpgrade(
    ...args: Parameters<NonNullable<Undici.Dispatcher.DispatchHandler["onRequestUpgrade"]>>
  ): void {
    this.handler.onRequestUpgrade?.(...args)
  }
  onResponseStart(...args: Parameters<NonNullable<Undici.Dispatcher.DispatchHandler["onResponseStart"]>>): void {
    this.handler.onResponseStart?.(...args)
  }
  onResponseData(...args: Parameters<NonNullable<Undici.Dispatcher.DispatchHandler["onResponseData"]>>): void {
    this.handler.onResponseData?.(...args)
  }
  onResponseEnd(...args: Parameters<NonNullable<Undici.Dispatcher.DispatchHandler["onResponseEnd"]>>): void {
    this.handler.onResponseEnd?.(...args)
  }
  onResponseError(...args: Parameters<NonNullable<Undici.Dispatcher.DispatchHandler["onResponseError"]>>): void {
    this.handler.onResponseError?.(...args)
  }
}

/**
 * An undici `HttpClient` that applies the call's connect limit as undici's connect timeout, and tells the
 * call when each request has connected and is on its way (so `read` bounds the response head from then
 * on). Dispatchers are kept per connect value, so connections are reused across calls with the same limit.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient: Layer.Layer<HttpClient.HttpClient> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.gen(function*() {
    const base = yield* NodeHttpClient.makeDispatcher
    const dispatchers = new Map<number, Undici.Dispatcher>()
    yield* Effect.addFinalizer(() =>
      Effect.forEach(dispatchers.values(), (dispatcher) => Effect.promise(() => dispatcher.destroy()), {
        discard: true
      })
    )
    const dispatcherFor = (connectMillis: number): Undici.Dispatcher => {
      const existing = dispatchers.get(connectMillis)
      if (existing !== undefined) return existing
      const dispatcher = new Undici.Agent({ connect: { timeout: connectMillis } })
      dispatchers.set(connectMillis, dispatcher)
      return dispatcher
    }
    // `makeWith` adds no span of its own: the undici client made per request traces the request once.
    return HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
      (request) =>
        Effect.flatMap(request, (request) =>
          Effect.gen(function*() {
            const connect = yield* FiberRef.get(currentConnectTimeout)
            const onConnected = yield* FiberRef.get(currentOnConnected)
            const dispatcher = Option.match(connect, {
              onNone: () => base,
              onSome: (limit) => dispatcherFor(Math.max(1, Math.ceil(Duration.toMillis(limit))))
            })
            const signalling = dispatcher.compose((dispatch) => (options, handler) =>
              dispatch(options, new ConnectedSignal(handler, onConnected))
            )
            return yield* NodeHttpClient.makeUndici(signalling).execute(request)
          })),
      Effect.succeed
    )
  })
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
