// in-process: SDK cost per warm send with an instant in-memory HttpClient
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Headers from "@effect/platform/Headers"
import { A2AClient, RuntimeAccessCache } from "./dist/index.js"
import { ChunkSourceTypeId } from "./dist/internal/responseChunks.js"
const uid = "5e55a0e1-0000-4000-8000-000000000001"
const enc = new TextEncoder()
const answerFor = (url, reqBody) => {
  if (url.includes("runtime-access") || url.includes("resolve")) return { status: 200, body: { coding_agent_service_uid: "svc", mode: "token", rpc_url: "http://rt.local/x/", token: "rt-tok", expires_at: new Date(Date.now() + 3600e3).toISOString(), runtime_interaction: { state: "ready", can_submit: true, retry_after_ms: null } } }
  return { status: 200, ct: "application/a2a+json", body: { message: { messageId: "r1", role: "ROLE_AGENT", contextId: uid, parts: [{ text: "hi" }] } } }
}
const client = HttpClient.makeWith((req) => Effect.map(req, (request) => {
  const a = answerFor(request.url)
  let sent = false
  const bytes = enc.encode(JSON.stringify(a.body))
  return { request, status: a.status, headers: Headers.fromInput({ "content-type": a.ct ?? "application/json", "content-length": String(bytes.length) }),
    [ChunkSourceTypeId]: Effect.sync(() => { if (sent) return Option.none(); sent = true; return Option.some(bytes) }) }
}), Effect.succeed)
const layer = A2AClient.layer({ backendUrl: "http://backend.local", accessToken: Redacted.make("user-token") }).pipe(
  Layer.provide(Layer.merge(Layer.succeed(HttpClient.HttpClient, client), RuntimeAccessCache.layerMemory)))
const tracerOff = process.argv.includes("--notracer")
const N = 20000
const prog = Effect.gen(function*() {
  const c = yield* A2AClient.A2AClient
  const one = c.sendA2AMessage(uid, { message: "Hello there" })
  for (let i = 0; i < 3000; i++) yield* one
  const c0 = process.cpuUsage()
  for (let i = 0; i < N; i++) yield* one
  const u = process.cpuUsage(c0)
  console.log("SDK per warm send (instant HttpClient):", ((u.user + u.system) / N).toFixed(1), "µs CPU")
})
await Effect.runPromise(prog.pipe(Effect.provide(tracerOff ? Layer.merge(layer, Layer.setTracerEnabled(false)) : layer)))
