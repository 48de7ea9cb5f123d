/**
 * Task (own process, so peaks are this scenario's alone): N concurrent sends spread over S sessions.
 * `client: "ours"` sends through the SDK with a fresh in-memory access cache; the sessions are cold
 * (see `servers/minimalPlatform.ts` modes). `client: "floor"` is raw undici to ready sessions whose
 * access is known up front (no resolve at all): the transport's own cost at that concurrency. `client:
 * "floor-in-effect"` (a diagnostic row) is the same floor with each send run as one Effect fiber (`runPromise` of
 * `Effect.promise`): what any client pays at that concurrency when each call is an Effect fiber, before it does
 * anything of its own. `client: "effect-minimal"` (a diagnostic row) is the least a client whose every call is an
 * Effect fiber can do against cold sessions: one fiber a call, the calls of a session awaiting one `Deferred` that
 * the session's one resolve (raw undici, no validation) completes, then the floor's raw undici send; no budget,
 * no retry, no validation, no span. `client: "effect-idiomatic"` (a diagnostic row) is the least idiomatic Effect
 * client (`sides/idiomatic.ts`): a span, a total budget and a validated answer a call, one resolve a session.
 * `warm: true` (ours) primes the cache with one send per session before the timed part.
 */
import type { Deferred as Resolution } from "effect/Deferred"
import { randomUUID } from "node:crypto"
import { Agent } from "undici"
import { type MemoryPeaks, startMemorySampler } from "../lib/memSampler.js"
import { admin, RESOLVE_PATH, type SessionMode, USER_TOKEN } from "../servers/minimalPlatform.js"
import { MESSAGE_TEXT, RESPONSE_KIND_EXTENSION, runtimeUrl, sendBody } from "../sides/side.js"

export interface ConcurrencyArgs {
  readonly baseUrl: string
  readonly client: "ours" | "floor" | "floor-in-effect" | "effect-minimal" | "effect-idiomatic"
  readonly mode: SessionMode
  readonly sessions: number
  readonly sends: number
  readonly coldDelayMs: number
  readonly retryAfterMs: number
  readonly warm: boolean
  /** Per-origin connection limit: undici's `connections` for the floor, `maxConnectionsPerOrigin` for ours
   * (undefined: the floor has none, ours the SDK's default). */
  readonly connections?: number | undefined
}

export interface ConcurrencyResult {
  readonly wallMs: number
  readonly ok: number
  readonly failed: number
  readonly firstError: string | undefined
  readonly resolves: number
  readonly maxResolvesPerSession: number
  readonly minResolvesPerSession: number
  readonly runtimeSends: number
  readonly memory: MemoryPeaks
  /** The most client connections the server saw open at once during the timed part. */
  readonly peakSockets: number
}

interface KnownAccess {
  readonly origin: string
  readonly path: string
  readonly token: string
}

/** The floor's one request: the A2A send of raw undici, its answer parsed and checked by hand. */
const rawSend = async (agent: Agent, a: KnownAccess, uid: string) => {
  const res = await agent.request({
    origin: a.origin,
    path: a.path,
    method: "POST",
    headers: {
      authorization: `Bearer ${a.token}`,
      "content-type": "application/a2a+json",
      accept: "application/a2a+json",
      "a2a-extensions": RESPONSE_KIND_EXTENSION,
      "a2a-version": "1.0"
    },
    body: sendBody(uid)
  })
  const answer = (await res.body.json()) as { message?: { role?: unknown } }
  if (res.statusCode !== 200 || answer.message?.role !== "ROLE_AGENT") throw new Error(`status ${res.statusCode}`)
}

const knownAccess = (rpcUrl: string, token: string): KnownAccess => {
  const url = new URL(runtimeUrl(rpcUrl, "/api/a2a/v1/message:send"))
  return { origin: url.origin, path: url.pathname, token }
}

const agentFor = (args: ConcurrencyArgs) =>
  new Agent(args.connections === undefined ? {} : { connections: args.connections })

const floorSends = async (args: ConcurrencyArgs, uids: ReadonlyArray<string>) => {
  const inEffect = args.client === "floor-in-effect" ? await import("effect/Effect") : undefined
  const agent = agentFor(args)
  const access = new Map<string, KnownAccess>()
  for (const uid of uids) {
    const a = await admin.runtime(args.baseUrl, uid)
    access.set(uid, knownAccess(a.rpcUrl, a.token))
  }
  const sendOne = (uid: string) => rawSend(agent, access.get(uid) ?? knownAccess("http://0.0.0.0", ""), uid)
  const start = inEffect === undefined
    ? sendOne
    : (uid: string) => inEffect.runPromise(inEffect.promise(() => sendOne(uid)))
  // The Effect runtime's own code is loaded and run once before the timed part, as ours is by its warm-up.
  if (inEffect !== undefined) await inEffect.runPromise(inEffect.promise(() => Promise.resolve()))
  return {
    run: () => Promise.allSettled(Array.from({ length: args.sends }, (_, i) => start(uids[i % uids.length] ?? ""))),
    close: () => agent.close()
  }
}

const effectMinimalSends = async (args: ConcurrencyArgs, uids: ReadonlyArray<string>) => {
  const [Effect, Deferred] = await Promise.all([import("effect/Effect"), import("effect/Deferred")])
  const agent = agentFor(args)
  const backend = new URL(args.baseUrl).origin
  const resolve = async (uid: string): Promise<KnownAccess> => {
    const res = await agent.request({
      origin: backend,
      path: RESOLVE_PATH(uid),
      method: "POST",
      headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
      body: "{}"
    })
    const answer = (await res.body.json()) as { rpc_url?: unknown; token?: unknown }
    if (typeof answer.rpc_url !== "string" || typeof answer.token !== "string") throw new Error("not admitted")
    return knownAccess(answer.rpc_url, answer.token)
  }
  const resolutions = new Map<string, Resolution<KnownAccess>>()
  const call = (uid: string) =>
    Effect.gen(function*() {
      let resolution = resolutions.get(uid)
      if (resolution === undefined) {
        resolution = yield* Deferred.make<KnownAccess>()
        resolutions.set(uid, resolution)
        yield* Effect.forkDaemon(Deferred.complete(resolution, Effect.promise(() => resolve(uid))))
      }
      const access = yield* Deferred.await(resolution)
      yield* Effect.promise(() => rawSend(agent, access, uid))
    })
  await Effect.runPromise(Effect.promise(() => Promise.resolve()))
  return {
    run: () =>
      Promise.allSettled(
        Array.from({ length: args.sends }, (_, i) => Effect.runPromise(call(uids[i % uids.length] ?? "")))
      ),
    close: () => agent.close()
  }
}

const effectIdiomaticSends = async (args: ConcurrencyArgs, uids: ReadonlyArray<string>) => {
  const [{ idiomaticRuntime, makeIdiomatic }, HttpClient] = await Promise.all([
    import("../sides/idiomatic.js"),
    import("@effect/platform/HttpClient")
  ])
  const runtime = idiomaticRuntime()
  const client = makeIdiomatic(await runtime.runPromise(HttpClient.HttpClient))
  return {
    run: () =>
      Promise.allSettled(
        Array.from({ length: args.sends }, (_, i) =>
          runtime.runPromise(client.sendTo(args.baseUrl, uids[i % uids.length] ?? "")))
      ),
    close: () => runtime.dispose()
  }
}

const oursSends = async (args: ConcurrencyArgs, uids: ReadonlyArray<string>) => {
  const [{ A2AClient }, ManagedRuntime, { oursLayer }] = await Promise.all([
    import("@mainsequence/a2a"),
    import("effect/ManagedRuntime"),
    import("../sides/ours.js")
  ])
  const runtime = ManagedRuntime.make(oursLayer(args.baseUrl, { maxConnectionsPerOrigin: args.connections }))
  const client = await runtime.runPromise(A2AClient.A2AClient)
  const sendOne = (uid: string) => runtime.runPromise(client.sendA2AMessage(uid, { message: MESSAGE_TEXT }))
  if (args.warm) { for (const uid of uids) await sendOne(uid) }
  return {
    run: () => Promise.allSettled(Array.from({ length: args.sends }, (_, i) => sendOne(uids[i % uids.length] ?? ""))),
    close: () => runtime.dispose()
  }
}

export const run = async (args: ConcurrencyArgs): Promise<ConcurrencyResult> => {
  await admin.configure(args.baseUrl, {
    mode: args.mode,
    coldDelayMs: args.coldDelayMs,
    retryAfterMs: args.retryAfterMs
  })
  const uids = Array.from({ length: args.sessions }, () => randomUUID())
  const sides = args.client === "ours"
    ? await oursSends(args, uids)
    : args.client === "effect-minimal"
    ? await effectMinimalSends(args, uids)
    : args.client === "effect-idiomatic"
    ? await effectIdiomaticSends(args, uids)
    : await floorSends(args, uids)
  await admin.reset(args.baseUrl)
  await admin.stats(args.baseUrl)
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc !== undefined) {
    for (let i = 0; i < 3; i++) {
      gc()
      await new Promise((r) => setImmediate(r))
    }
  }
  const sampler = startMemorySampler(5)
  const t0 = performance.now()
  const settled = await sides.run()
  const wallMs = performance.now() - t0
  const memory = sampler.stop()
  await sides.close()
  const stats = await admin.stats(args.baseUrl)
  const perSession = uids.map((u) => stats.resolvesBySession[u] ?? 0)
  const failedOnes = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected")
  const firstFailure = failedOnes[0]
  return {
    wallMs,
    ok: settled.length - failedOnes.length,
    failed: failedOnes.length,
    firstError: firstFailure === undefined ? undefined : String(firstFailure.reason),
    resolves: stats.resolves,
    maxResolvesPerSession: Math.max(...perSession),
    minResolvesPerSession: Math.min(...perSession),
    runtimeSends: stats.sends,
    memory,
    peakSockets: stats.peakClientSockets
  }
}
