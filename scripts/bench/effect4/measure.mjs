/**
 * By hand, outside the workspace (the stack is pinned to Effect 3): the least idiomatic Effect client of
 * `../sides/idiomatic.ts` written again for Effect 4, measured the bench's way beside the official client and
 * the Effect 3 version. Node ≥ 22.19; `pnpm build` first, then in this folder `npm install` and
 *   node measure.mjs per-send
 *   node --expose-gc measure.mjs in-flight floor|official|effect-idiomatic|effect4
 *   node --expose-gc measure.mjs peak effect3|effect4 cold|burst
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Data, Duration, Effect, ManagedRuntime, Metric, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { fork } from "node:child_process"
import { randomUUID } from "node:crypto"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { TextEncoder } from "node:util"

const bench = new URL("../../dist/bench/", import.meta.url)
const load = (path) => import(new URL(path, bench).href)
const { admin, RESOLVE_PATH, USER_TOKEN } = await load("servers/minimalPlatform.js")
const { RESPONSE_KIND_EXTENSION, runtimeUrl, sendBody } = await load("sides/side.js")
const { makeSide } = await load("sides/index.js")
const { fullGc, sleep } = await load("lib/gc.js")
const { startMemorySampler } = await load("lib/memSampler.js")

class BudgetExceeded extends Data.TaggedError("BudgetExceeded") {}

const nullable = (schema) => Schema.optional(Schema.NullOr(schema))
const Part = Schema.Struct({
  text: nullable(Schema.String),
  data: nullable(Schema.Unknown),
  raw: nullable(Schema.String),
  url: nullable(Schema.String),
  filename: nullable(Schema.String),
  mediaType: nullable(Schema.String)
})
const Message = Schema.Struct({
  messageId: Schema.String,
  role: Schema.String,
  contextId: nullable(Schema.String),
  taskId: nullable(Schema.String),
  parts: Schema.Array(Part),
  extensions: nullable(Schema.Array(Schema.String)),
  referenceTaskIds: nullable(Schema.Array(Schema.String))
})
const decodeSend = Schema.decodeUnknownEffect(Schema.Struct({ message: Message }))
const decodeResolve = Schema.decodeUnknownEffect(Schema.Struct({ rpc_url: Schema.String, token: Schema.String }))
const callDuration = Metric.histogram("bench.effect4.call.duration", {
  boundaries: [0.05, 0.1, 0.5, 1, 5, 10, 60, 900]
})

const request = (url, token, body, contentType, headers = {}) =>
  HttpClientRequest.post(url).pipe(
    HttpClientRequest.bearerToken(token),
    HttpClientRequest.setHeaders(headers),
    HttpClientRequest.bodyUint8Array(new TextEncoder().encode(body), contentType)
  )

/** The Effect 4 client: `sendWith` a warm access, `sendTo` a session resolved once for all its calls. */
const makeEffect4 = async (baseUrl, budget = true) => {
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  const client = HttpClient.filterStatusOk(await runtime.runPromise(HttpClient.HttpClient))
  const call = (uid, use) => {
    const bounded = budget
      ? Effect.timeoutOrElse(use, { duration: "900 seconds", orElse: () => Effect.fail(new BudgetExceeded()) })
      : use
    return Effect.timed(bounded).pipe(
      Effect.flatMap(([took, answer]) => Effect.as(Metric.update(callDuration, Duration.toSeconds(took)), answer)),
      Effect.withSpan("SendMessage", { kind: "client", attributes: { "gen_ai.conversation.id": uid } })
    )
  }
  const send = (access, uid) =>
    client.execute(request(
      runtimeUrl(access.rpcUrl, "/api/a2a/v1/message:send"),
      access.token,
      sendBody(uid),
      "application/a2a+json",
      { "Accept": "application/a2a+json", "A2A-Extensions": RESPONSE_KIND_EXTENSION, "A2A-Version": "1.0" }
    )).pipe(Effect.flatMap((response) => response.json), Effect.flatMap(decodeSend))
  const resolutions = new Map()
  const resolved = (uid) =>
    Effect.gen(function*() {
      let access = resolutions.get(uid)
      if (access === undefined) {
        access = yield* Effect.cached(
          client.execute(request(`${baseUrl}${RESOLVE_PATH(uid)}`, USER_TOKEN, "{}", "application/json")).pipe(
            Effect.flatMap((response) => response.json),
            Effect.flatMap(decodeResolve),
            Effect.map((answer) => ({ rpcUrl: answer.rpc_url, token: answer.token }))
          )
        )
        resolutions.set(uid, access)
      }
      return yield* access
    })
  return {
    sendWith: (access, uid) => runtime.runPromise(call(uid, send(access, uid))),
    sendTo: (uid) => runtime.runPromise(call(uid, Effect.flatMap(resolved(uid), (access) => send(access, uid)))),
    close: () => runtime.dispose()
  }
}

const effect4Side = async (target, budget = true) => {
  const client = await makeEffect4(target.baseUrl, budget)
  const access = { rpcUrl: target.rpcUrl, token: target.runtimeToken }
  return {
    name: `Effect 4: the least idiomatic Effect client${budget ? "" : ", no budget"}`,
    block: async (n, out) => {
      for (let i = 0; i < n; i++) {
        const started = performance.now()
        const answer = await client.sendWith(access, target.sessionUid)
        out.push(performance.now() - started)
        if (answer.message.role !== "ROLE_AGENT") throw new Error("effect4: unexpected answer")
      }
    },
    close: client.close
  }
}

const platform = fork(fileURLToPath(new URL("servers/minimalPlatformChild.js", bench)), [], { stdio: "inherit" })
const baseUrl = await new Promise((resolve) => platform.on("message", (m) => m.type === "ready" && resolve(m.baseUrl)))
const readyTarget = async () => {
  await admin.configure(baseUrl, { mode: "ready", holdSends: false })
  const sessionUid = randomUUID()
  const access = await admin.runtime(baseUrl, sessionUid)
  return { baseUrl, sessionUid, userToken: "", rpcUrl: access.rpcUrl, runtimeToken: access.token }
}
const sideOf = (name, target) =>
  name === "effect4"
    ? effect4Side(target)
    : name === "effect4-nobudget"
    ? effect4Side(target, false)
    : makeSide(name, target, { maxConnectionsPerOrigin: 1000 })

const [command, ...args] = process.argv.slice(2)
if (command === "per-send") {
  const target = await readyTarget()
  const names = ["official", "effect-idiomatic", "effect-idiomatic-nobudget", "effect4", "effect4-nobudget"]
  const sides = await Promise.all(names.map((name) => sideOf(name, target)))
  const runs = sides.map(() => ({ latencies: [], cpu: 0, sends: 0 }))
  for (const side of sides) await side.block(2000, [])
  for (let round = 0; round < 40; round++) {
    for (const i of sides.map((_, i) => i).sort(() => Math.random() - 0.5)) {
      const before = process.cpuUsage()
      await sides[i].block(100, runs[i].latencies)
      const used = process.cpuUsage(before)
      runs[i].cpu += used.user + used.system
      runs[i].sends += 100
    }
  }
  for (const [i, side] of sides.entries()) {
    const sorted = runs[i].latencies.sort((a, b) => a - b)
    const median = sorted[Math.floor(sorted.length / 2)] * 1000
    console.log(`${side.name}: median ${median.toFixed(0)} µs, CPU ${(runs[i].cpu / runs[i].sends).toFixed(0)} µs`)
  }
  for (const side of sides) await side.close()
} else if (command === "in-flight") {
  const inFlight = 1000
  const side = await sideOf(args[0], await readyTarget())
  await side.block(50, [])
  await admin.configure(baseUrl, { holdSends: true })
  await admin.reset(baseUrl)
  await admin.stats(baseUrl)
  await fullGc()
  const before = process.memoryUsage().heapUsed
  const calls = Array.from({ length: inFlight }, () => side.block(1, []))
  while ((await admin.stats(baseUrl)).held < inFlight) await sleep(10)
  await fullGc()
  const held = process.memoryUsage().heapUsed
  await admin.configure(baseUrl, { holdSends: false })
  await Promise.all(calls)
  console.log(`${side.name}: heap per call in flight ${((held - before) / inFlight / 1024).toFixed(1)} KiB`)
  await side.close()
} else if (command === "peak") {
  const [client, scenario] = args
  const burst = scenario === "burst"
  await admin.configure(baseUrl, { mode: burst ? "ready" : "slow", coldDelayMs: 200, retryAfterMs: 250 })
  const uids = Array.from({ length: burst ? 100 : 1 }, () => randomUUID())
  const sends = burst ? 5000 : 1000
  const calls = client === "effect4"
    ? await makeEffect4(baseUrl)
    : await (async () => {
      const { idiomaticRuntime, makeIdiomatic } = await load("sides/idiomatic.js")
      const { HttpClient: Effect3HttpClient } = await import(
        new URL("../../node_modules/@effect/platform/dist/esm/HttpClient.js", import.meta.url).href
      )
      const runtime = idiomaticRuntime()
      const idiomatic = makeIdiomatic(await runtime.runPromise(Effect3HttpClient))
      return { sendTo: (uid) => runtime.runPromise(idiomatic.sendTo(baseUrl, uid)), close: () => runtime.dispose() }
    })()
  await admin.reset(baseUrl)
  await admin.stats(baseUrl)
  await fullGc()
  const sampler = startMemorySampler(5)
  const settled = await Promise.allSettled(Array.from({ length: sends }, (_, i) => calls.sendTo(uids[i % uids.length])))
  const memory = sampler.stop()
  const failed = settled.filter((s) => s.status === "rejected").length
  const growth = (memory.peakHeapUsed - memory.baselineHeapUsed) / 2 ** 20
  console.log(`${client} ${scenario}: peak heap growth +${growth.toFixed(1)} MiB, ${failed} failed`)
  await calls.close()
} else {
  console.error("usage: measure.mjs per-send | in-flight SIDE | peak effect3|effect4 cold|burst")
  process.exitCode = 2
}
platform.kill()
