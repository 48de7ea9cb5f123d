/**
 * Diagnostic side: the bare @effect/platform `HttpClient` on undici (`NodeHttpClient.layerUndici`, the
 * transport our SDK runs on) sending the same request and parsing the JSON answer, with none of the
 * SDK's pipeline. Separates "Effect + platform HttpClient" cost from "SDK pipeline" cost.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as A2ANode from "@mainsequence/a2a/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { RESPONSE_KIND_EXTENSION, runtimeUrl, sendBody, type Side, type SideOptions, type Target } from "./side.js"

export const makeEffectHttp = async (
  target: Target,
  tracer: boolean,
  transport: "platform" | "lean" = "platform",
  options: SideOptions = {}
): Promise<Side> => {
  const http = transport === "lean"
    ? A2ANode.layerHttpClient({ maxConnectionsPerOrigin: options.maxConnectionsPerOrigin })
    : NodeHttpClient.layerUndici
  const layer = tracer ? http : Layer.merge(http, Layer.setTracerEnabled(false))
  const runtime = ManagedRuntime.make(layer)
  const client = await runtime.runPromise(HttpClient.HttpClient)
  const url = runtimeUrl(target.rpcUrl, "/api/a2a/v1/message:send")
  const sendOne = Effect.suspend(() => {
    const body = new TextEncoder().encode(sendBody(target.sessionUid))
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.bearerToken(target.runtimeToken),
      HttpClientRequest.setHeaders({
        "Accept": "application/a2a+json",
        "A2A-Extensions": RESPONSE_KIND_EXTENSION,
        "A2A-Version": "1.0"
      }),
      HttpClientRequest.bodyUint8Array(body, "application/a2a+json")
    )
    return Effect.flatMap(client.execute(request), (res) => res.json)
  }).pipe(Effect.map((answer) => {
    const a = answer as { message?: { role?: unknown } }
    if (a.message?.role !== "ROLE_AGENT") throw new Error(`effect-http: unexpected answer ${JSON.stringify(a)}`)
  }))
  return {
    name: transport === "lean"
      ? "diag: our Node HttpClient (lean undici)"
      : tracer
      ? "diag: @effect/platform HttpClient (undici)"
      : "diag: @effect/platform HttpClient, tracer off",
    block: async (n, out) => {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now()
        await runtime.runPromise(sendOne)
        out.push(performance.now() - t0)
      }
    },
    close: () => runtime.dispose()
  }
}
