/**
 * The real `ClientEnvironment`: the SDK client configured from the environment (`CliConfig`), over the undici
 * HTTP client (through the proxy of `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`, either case, as curl reads
 * them), with the runtime-access cache kept in `runtime_access_cache.json` (`FileAccessStore`). With
 * `--debug` the HTTP client is decorated by `HttpDebug`, which hides the tokens and proxy credentials it read.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { A2AClient, RuntimeAccessCache } from "@mainsequence/a2a"
import * as A2ANode from "@mainsequence/a2a/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { ClientEnvironment, type ClientSettings } from "./A2ACall.js"
import * as CliConfig from "./CliConfig.js"
import * as FileAccessStore from "./FileAccessStore.js"
import * as HttpDebug from "./HttpDebug.js"
import { type Output, printErrorLine } from "./Output.js"

const asRedacted = (value: string | Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.isRedacted(value) ? value : Redacted.make(value)

/**
 * The client's layer: read the configuration, open the file cache, build the client.
 *
 * @since 0.1.0
 * @category layers
 */
export const clientLayer = (
  settings: ClientSettings = { debug: false }
): Layer.Layer<A2AClient.A2AClient, CliConfig.CliConfigError, Output> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const options = yield* CliConfig.clientOptions
      const directory = yield* CliConfig.configDirectory
      const misspelt = (yield* CliConfig.unreadVariables).filter((variable) => variable.closest !== undefined)
      yield* Effect.forEach(misspelt, (variable) => printErrorLine(CliConfig.unreadLine(variable)), { discard: true })
      const store = yield* FileAccessStore.make({ directory })
      const http = A2ANode.layerHttpClient().pipe(Layer.mapError(CliConfig.fromConfigError))
      const proxies = settings.debug ? yield* A2ANode.proxyConfig : undefined
      const secrets = [
        asRedacted(options.accessToken),
        ...(options.refreshToken === undefined ? [] : [asRedacted(options.refreshToken)]),
        ...(proxies === undefined ? [] : [...Option.toArray(proxies.httpProxy), ...Option.toArray(proxies.httpsProxy)])
      ]
      return A2AClient.layer(options).pipe(
        Layer.provide(RuntimeAccessCache.layerStore(store)),
        Layer.provide(settings.debug ? HttpDebug.decorate(secrets)(http) : http)
      )
    }).pipe(
      Effect.catchAll(CliConfig.failWith),
      Effect.provide(NodeContext.layer)
    )
  )

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ClientEnvironment> = Layer.succeed(ClientEnvironment, { layer: clientLayer })
