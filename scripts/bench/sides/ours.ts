/**
 * Our SDK: `A2AClient` from `@mainsequence/a2a/node` (the undici `HttpClient` of @effect/platform-node),
 * in-memory access cache, run through one `ManagedRuntime`. The first send resolves access; after that
 * the cache is warm (the minimal backend's `expires_at` is an hour ahead).
 *
 * - mode `promise`: `runtime.runPromise(client.sendA2AMessage(...))` per send — what a non-Effect caller
 *   pays, Promise boundary included.
 * - mode `effect`: the sends run inside one Effect program (an Effect caller's cost).
 */
import { A2AClient, type RuntimeAccessCache } from "@mainsequence/a2a"
import * as A2ANode from "@mainsequence/a2a/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import { USER_TOKEN } from "../servers/minimalPlatform.js"
import { MESSAGE_TEXT, type Side, type Target } from "./side.js"

export interface OursOptions {
  /** The Node layer's per-origin connection limit (default: the SDK's). */
  readonly maxConnectionsPerOrigin?: number | undefined
  /** An access cache of the benchmark's own (default: the Node layer's in-memory one). */
  readonly cache?: Layer.Layer<RuntimeAccessCache.RuntimeAccessCache> | undefined
}

/** The client layer the benchmarks use: Node (undici) HTTP, a fresh in-memory access cache. */
export const oursLayer = (
  backendUrl: string,
  options: OursOptions = {}
): Layer.Layer<A2AClient.A2AClient> => {
  const clientOptions = { backendUrl, accessToken: Redacted.make(USER_TOKEN) }
  if (options.cache === undefined) {
    return Layer.orDie(A2ANode.layer({ ...clientOptions, maxConnectionsPerOrigin: options.maxConnectionsPerOrigin }))
  }
  return A2AClient.layer(clientOptions).pipe(
    Layer.provide(
      Layer.merge(
        A2ANode.layerHttpClient({ maxConnectionsPerOrigin: options.maxConnectionsPerOrigin }),
        options.cache
      )
    ),
    Layer.orDie
  )
}

export const makeOurs = async (
  target: Target,
  mode: "promise" | "effect",
  options: { readonly tracer?: boolean; readonly maxConnectionsPerOrigin?: number | undefined } = {}
): Promise<Side> => {
  const tracer = options.tracer ?? true
  const layer = oursLayer(target.baseUrl, { maxConnectionsPerOrigin: options.maxConnectionsPerOrigin })
  const runtime = ManagedRuntime.make(tracer ? layer : Layer.merge(layer, Layer.setTracerEnabled(false)))
  const client = await runtime.runPromise(A2AClient.A2AClient)
  const check = (answer: { readonly role: string; readonly contextId?: string | null | undefined }) => {
    if (answer.role !== "ROLE_AGENT" || answer.contextId !== target.sessionUid) {
      throw new Error(`ours: unexpected answer ${JSON.stringify(answer)}`)
    }
  }
  const sendOne = () => client.sendA2AMessage(target.sessionUid, { message: MESSAGE_TEXT })
  if (mode === "promise") {
    return {
      name: tracer ? "ours (runPromise per send)" : "diag: ours, tracer off (runPromise)",
      block: async (n, out) => {
        for (let i = 0; i < n; i++) {
          const t0 = performance.now()
          check(await runtime.runPromise(sendOne()))
          out.push(performance.now() - t0)
        }
      },
      close: () => runtime.dispose()
    }
  }
  const loop = (n: number, out: Array<number>) =>
    Effect.gen(function*() {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now()
        check(yield* sendOne())
        out.push(performance.now() - t0)
      }
    })
  return {
    name: "ours (in Effect)",
    block: (n, out) => runtime.runPromise(loop(n, out)),
    close: () => runtime.dispose()
  }
}
