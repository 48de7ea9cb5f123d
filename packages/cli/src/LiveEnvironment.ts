/**
 * The real `ClientEnvironment`: the SDK client configured from the environment (`CliConfig`), over the undici
 * HTTP client (through the proxy of `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`, either case, as curl reads
 * them), with the runtime-access cache kept in `runtime_access_cache.json` (`FileAccessStore`).
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { A2AClient, RuntimeAccessCache } from "@mainsequence/a2a"
import * as A2ANode from "@mainsequence/a2a/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ClientEnvironment } from "./A2ACall.js"
import * as CliConfig from "./CliConfig.js"
import * as FileAccessStore from "./FileAccessStore.js"

/**
 * The client's layer: read the configuration, open the file cache, build the client.
 *
 * @since 0.1.0
 * @category layers
 */
export const clientLayer: Layer.Layer<A2AClient.A2AClient, CliConfig.CliConfigError> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const options = yield* CliConfig.clientOptions
    const directory = yield* CliConfig.configDirectory
    const store = yield* FileAccessStore.make({ directory })
    return A2AClient.layer(options).pipe(
      Layer.provide(RuntimeAccessCache.layerStore(store)),
      Layer.provide(A2ANode.layerHttpClient().pipe(Layer.mapError(CliConfig.fromConfigError)))
    )
  }).pipe(
    Effect.mapError(CliConfig.fromConfigError),
    Effect.provide(NodeContext.layer)
  )
)

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ClientEnvironment> = Layer.succeed(ClientEnvironment, { layer: clientLayer })
