import { NodeContext } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import { A2AClient, RuntimeAccessCache } from "@mainsequence/a2a"
import { SimulatedHttpClient, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import { ClientEnvironment } from "../../src/A2ACall.js"
import * as Cli from "../../src/Cli.js"
import * as FileAccessStore from "../../src/FileAccessStore.js"
import * as HttpDebug from "../../src/HttpDebug.js"
import { Output } from "../../src/Output.js"

export interface Captured {
  stdout: string
  stderr: string
}

/**
 * Runs the command line in this process against the real SDK over the in-memory simulated platform (in
 * context), with the file cache in `configDir`. Time is the test clock. `--debug` decorates the simulated
 * HTTP client as the real one is (see LiveEnvironment.ts), the tokens given as the secrets to hide.
 */
export const runCliSimulated = (
  args: ReadonlyArray<string>,
  options: {
    readonly configDir: string
    readonly tty?: boolean
    readonly captured?: Captured
    readonly refreshToken?: Redacted.Redacted<string>
    /** Wraps the simulated platform's client (e.g. to answer some requests by hand). */
    readonly httpClient?: (simulated: HttpClient.HttpClient) => HttpClient.HttpClient
  }
) =>
  Effect.gen(function*() {
    const platform = yield* SimulatedPlatform.SimulatedPlatform
    const captured = options.captured ?? { stdout: "", stderr: "" }
    const store = yield* FileAccessStore.make({ directory: options.configDir })
    const accessToken = SimulatedPlatform.defaultUserAccessToken
    const simulatedClient = options.httpClient === undefined
      ? SimulatedHttpClient.layer
      : Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, options.httpClient)).pipe(
        Layer.provide(SimulatedHttpClient.layer)
      )
    const clientLayer = (debug: boolean) =>
      A2AClient.layer({
        backendUrl: platform.baseUrl,
        accessToken,
        refreshToken: options.refreshToken,
        username: "tester"
      })
        .pipe(
          Layer.provide(RuntimeAccessCache.layerStore(store)),
          Layer.provide(
            debug
              ? HttpDebug.decorate([
                accessToken,
                ...(options.refreshToken === undefined ? [] : [options.refreshToken])
              ])(simulatedClient)
              : simulatedClient
          ),
          Layer.provide(Layer.succeed(SimulatedPlatform.SimulatedPlatform, platform))
        )
    const output = Layer.succeed(Output, {
      stdout: (text) => Effect.sync(() => void (captured.stdout += text)),
      stderr: (text) => Effect.sync(() => void (captured.stderr += text)),
      stderrIsTTY: options.tty ?? false,
      stderrColumns: options.tty === true ? 200 : undefined
    })
    const exitCode = yield* Cli.main(["node", "mainsequence", ...args]).pipe(
      Effect.provide(
        Layer.mergeAll(
          NodeContext.layer,
          output,
          Layer.succeed(ClientEnvironment, { layer: ({ debug }) => clientLayer(debug) })
        )
      )
    )
    return { exitCode, ...captured }
  })

export const tempConfigDir = Effect.flatMap(
  FileSystem.FileSystem,
  (fs) => fs.makeTempDirectoryScoped({ prefix: "ms-cli-sim-" })
)
