import * as Effect from "effect/Effect"
import { buildRequestBody, validateSessionUid, randomUuidV4 } from "./dist/internal/buildRequestBody.js"
import * as Timeout from "./dist/Timeout.js"
import { makeCall } from "./dist/internal/callContext.js"
import { withinBudget } from "./dist/internal/budget.js"
import * as A2AProgress from "./dist/A2AProgress.js"
const N = 20000
const time = async (label, eff) => {
  await Effect.runPromise(Effect.forEach(Array.from({length: 3000}), () => eff, { discard: true }))
  const c0 = process.cpuUsage()
  await Effect.runPromise(Effect.forEach(Array.from({length: N}), () => eff, { discard: true }))
  const c = process.cpuUsage(c0)
  console.log(label.padEnd(40), ((c.user + c.system) / N).toFixed(1), "µs cpu")
}
const uid = "5e55a0e1-0000-4000-8000-000000000001"






const budget = Effect.runSync(Timeout.toBudget(undefined))

const call = Effect.runSync(makeCall({ agentSessionUid: uid, budget, step: "resolve-runtime-access" }))

import * as HttpClient from "@effect/platform/HttpClient"
import * as Headers from "@effect/platform/Headers"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { ChunkSourceTypeId } from "./dist/internal/responseChunks.js"
import { exchange } from "./dist/internal/exchange.js"
import { runtimeRequest, sendToRuntime } from "./dist/internal/sendToRuntime.js"
import { decodeSendAnswer } from "./dist/internal/answers.js"
const enc = new TextEncoder()
const bytes = enc.encode(JSON.stringify({ message: { messageId: "r1", role: "ROLE_AGENT", contextId: uid, parts: [{ text: "hi" }] } }))
const client = HttpClient.makeWith((req) => Effect.map(req, (request) => {
  let sent = false
  return { request, status: 200, headers: Headers.fromInput({ "content-type": "application/a2a+json", "content-length": String(bytes.length) }),
    [ChunkSourceTypeId]: Effect.sync(() => { if (sent) return Option.none(); sent = true; return Option.some(bytes) }) }
}), Effect.succeed)
const access = { rpcUrl: "http://rt.local/x/", token: Redacted.make("tok"), expiresAtMillis: Date.now() + 3600e3 }
const req = runtimeRequest(access, "POST", "/api/a2a/v1/message:send", bytes)


await time("exchange", Effect.suspend(() => exchange(client, call, "send-message", req, { maxResponseBytes: 1e7, carriesMessage: true })))
const ctx = { ...call, client, maxResponseBytes: 1e7 }
const body = Effect.runSync(buildRequestBody(uid, { message: "Hello there" }))

const answer = { method: "POST", url: "http://x", status: 200, headers: Headers.fromInput({ "content-type": "application/a2a+json" }), body: bytes }


await time("sendToRuntime", Effect.suspend(() => sendToRuntime(ctx, access, body, 1)))
console.log(JSON.stringify(budget))
const call2 = Effect.runSync(makeCall({ agentSessionUid: uid, budget: Effect.runSync(Timeout.toBudget(30)), step: "resolve-runtime-access" }))
await time("exchange untimed", Effect.suspend(() => exchange(client, call2, "send-message", req, { maxResponseBytes: 1e7, carriesMessage: true })))
await time("exchange untimed notracer", Effect.suspend(() => exchange(client, call2, "send-message", req, { maxResponseBytes: 1e7, carriesMessage: true })).pipe(Effect.withTracerEnabled(false)))
