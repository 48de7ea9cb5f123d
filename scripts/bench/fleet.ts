/**
 * Benchmark 9: a fleet of 4 processes sharing runtime access through one Redis (`@mainsequence/a2a-redis`),
 * against the same fleet with in-memory caches: backend resolves per session over 1,000 sessions each process
 * sends to (every process, every session, several passes), the duration of a cached send (Redis store against
 * in-memory), and one cold session hit by the 4 processes at once (how many resolve sequences the fleet runs).
 */
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runTask } from "./lib/child.js"
import type { BenchContext, Section, Target } from "./lib/context.js"
import { startRedis } from "./lib/redisServer.js"
import { fmtMs, summarize } from "./lib/stats.js"
import { table } from "./lib/table.js"
import { admin } from "./servers/minimalPlatform.js"
import type { FleetArgs, FleetResult } from "./tasks/fleet.js"

const processes = 4

interface FleetRun {
  readonly store: "redis" | "memory"
  readonly results: ReadonlyArray<FleetResult>
  /** Backend resolves of each session, over the whole fleet. */
  readonly resolvesPerSession: ReadonlyArray<number>
}

/**
 * The 4 processes, each over every session, started together once all are ready; with `warmFirst` the first
 * process has sent once to every session before (the others wait for it).
 */
const runFleet = async (
  ctx: BenchContext,
  args: Omit<FleetArgs, "rotate" | "barrierDir" | "processes" | "warm">,
  warmFirst: boolean,
  timeoutMs: number
): Promise<{ readonly results: ReadonlyArray<FleetResult>; readonly resolves: Record<string, number> }> => {
  await admin.reset(ctx.server.baseUrl)
  const barrierDir = mkdtempSync(path.join(os.tmpdir(), "a2a-bench-fleet-"))
  if (!warmFirst) writeFileSync(path.join(barrierDir, "warm"), "")
  const results = await Promise.all(
    Array.from({ length: processes }, (_, i) =>
      runTask<FleetResult>(
        "fleet",
        {
          ...args,
          rotate: Math.floor((i * args.sessions.length) / processes),
          barrierDir,
          processes,
          warm: warmFirst && i === 0
        } satisfies FleetArgs,
        { timeoutMs }
      ))
  ).finally(() => rmSync(barrierDir, { recursive: true, force: true }))
  const stats = await admin.stats(ctx.server.baseUrl)
  return { results, resolves: stats.resolvesBySession }
}

export const fleet = async (ctx: BenchContext): Promise<Section> => {
  const title = `9. A fleet of ${processes} processes sharing access through Redis`
  if (!ctx.sdkAvailable) return { id: "fleet", title, body: "SDK not built.", data: undefined, targets: [] }
  const sessionCount = ctx.short ? 50 : 1_000
  const passes = ctx.short ? 2 : 3
  const timeoutMs = ctx.short ? 60_000 : 600_000
  const redis = await startRedis()
  try {
    await admin.configure(ctx.server.baseUrl, { mode: "ready", holdSends: false, expiresInMs: 3_600_000 })
    const sessions = Array.from({ length: sessionCount }, () => randomUUID())
    const runs: Array<FleetRun> = []
    for (const store of ["memory", "redis"] as const) {
      ctx.log(`fleet: ${processes} processes × ${sessionCount} sessions × ${passes} passes, ${store} store`)
      const { resolves, results } = await runFleet(
        ctx,
        {
          baseUrl: ctx.server.baseUrl,
          redisUrl: store === "redis" ? redis.url : undefined,
          keyPrefix: `bench:${randomUUID()}:`,
          sessions,
          passes
        },
        true,
        timeoutMs
      )
      runs.push({ store, results, resolvesPerSession: sessions.map((uid) => resolves[uid] ?? 0) })
    }

    // The added latency alone: one process, warm sessions, the two stores in turn.
    const alone: Record<"memory" | "redis", ReturnType<typeof summarize>> = {
      memory: summarize([]),
      redis: summarize([])
    }
    for (const store of ["memory", "redis"] as const) {
      ctx.log(`fleet: one process alone × ${sessionCount} sessions × ${passes} passes, ${store} store`)
      const barrierDir = mkdtempSync(path.join(os.tmpdir(), "a2a-bench-fleet-"))
      const result = await runTask<FleetResult>(
        "fleet",
        {
          baseUrl: ctx.server.baseUrl,
          redisUrl: store === "redis" ? redis.url : undefined,
          keyPrefix: `bench:${randomUUID()}:`,
          sessions,
          passes,
          rotate: 0,
          barrierDir,
          processes: 1,
          warm: true
        } satisfies FleetArgs,
        { timeoutMs }
      ).finally(() => rmSync(barrierDir, { recursive: true, force: true }))
      alone[store] = summarize(result.cachedSendMs)
    }

    // One cold session, the 4 processes at once: it wakes for 1 s from its first resolve, answering `waking` with
    // a retry after 1 s until then, so each resolve sequence is exactly 2 resolves (one transient, one ready).
    await admin.configure(ctx.server.baseUrl, { mode: "waking", coldDelayMs: 1_000, retryAfterMs: 1_000 })
    const cold = randomUUID()
    ctx.log(`fleet: one cold session, ${processes} processes at once, redis store`)
    const coldRun = await runFleet(
      ctx,
      {
        baseUrl: ctx.server.baseUrl,
        redisUrl: redis.url,
        keyPrefix: `bench:${randomUUID()}:`,
        sessions: [cold],
        passes: 1
      },
      false,
      timeoutMs
    )
    const coldResolves = coldRun.resolves[cold] ?? 0
    const coldSequences = coldResolves / 2
    await admin.configure(ctx.server.baseUrl, { mode: "ready" })

    const rows = runs.map((run) => {
      const perSession = summarize(run.resolvesPerSession)
      const cached = summarize(run.results.flatMap((r) => r.cachedSendMs))
      const failed = run.results.reduce((n, r) => n + r.failed, 0)
      const sends = run.results.reduce((n, r) => n + r.sends, 0)
      return { run, perSession, cached, failed, sends }
    })
    const memory = rows.find((r) => r.run.store === "memory")
    const shared = rows.find((r) => r.run.store === "redis")
    const addedMedian = alone.redis.median - alone.memory.median
    const addedMedianFleet = (shared?.cached.median ?? Number.NaN) - (memory?.cached.median ?? Number.NaN)
    const firstError = rows.flatMap((r) => r.run.results.flatMap((x) => x.firstError ?? []))[0]
    const body = [
      table(
        [
          "store",
          "processes",
          "sessions",
          "sends ok",
          "resolves per session (mean, max)",
          "cached send: median",
          "p90",
          "p99"
        ],
        rows.map((r) => [
          r.run.store === "redis" ? "Redis (`@mainsequence/a2a-redis`, encrypted)" : "in-memory (each process its own)",
          String(processes),
          sessionCount.toLocaleString("en-US"),
          `${r.sends - r.failed}/${r.sends}`,
          `${r.perSession.mean.toFixed(2)}, ${r.perSession.max}`,
          fmtMs(r.cached.median),
          fmtMs(r.cached.p90),
          fmtMs(r.cached.p99)
        ])
      ),
      "",
      table(
        ["one process alone, warm sessions", "cached send: median", "p90", "p99"],
        (["memory", "redis"] as const).map((store) => [
          store === "redis" ? "Redis store" : "in-memory store",
          fmtMs(alone[store].median),
          fmtMs(alone[store].p90),
          fmtMs(alone[store].p99)
        ])
      ),
      "",
      table(["cold session, 4 processes at once (Redis store)", "backend resolves", "resolve sequences"], [[
        "one session waking for 1 s (a sequence: `waking`, retry after 1 s, ready)",
        String(coldResolves),
        String(coldSequences)
      ]]),
      "",
      `${processes} processes (one client each, Node layer; they start together once all are built, within a ` +
      `10 ms poll) send to the same ` +
      `${sessionCount.toLocaleString("en-US")} sessions of the minimal platform: the first process sends once to ` +
      `every session (warming them), then all ${processes} start together, one send at a time, each process ` +
      `starting a quarter further into the list, ${passes} passes; resolves counted by the backend over the whole ` +
      "run (warm-up included). A cached send is one of the passes after the first (the access cached in every " +
      "process's store): with the Redis store each one reads its entry from Redis " +
      `(GET + AES-GCM decryption). Added to the median cached send: ${fmtMs(addedMedian)} for one process alone ` +
      `(the same sessions, after its own warm-up), ${fmtMs(addedMedianFleet)} in the fleet, whose ${processes} ` +
      "processes share the machine's cores with the platform and Redis (both stores' sends slower than alone, " +
      "and noisier). The cold session: no process finds an entry in Redis before the runtime is ready, so each runs its " +
      "own resolve sequence (no lease across processes).",
      ...(firstError !== undefined ? ["", `First failure: ${firstError}`] : [])
    ].join("\n")
    const targets: Array<Target> = [
      {
        target: `fleet of ${processes}: backend resolves per warm session through Redis`,
        met: shared !== undefined && shared.failed === 0 && shared.perSession.max === 1,
        detail: `mean ${shared?.perSession.mean.toFixed(2)}, max ${shared?.perSession.max}`,
        figure: `${shared?.perSession.mean.toFixed(2)} (in-memory: ${memory?.perSession.mean.toFixed(2)})`,
        goal: "1",
        ratio: (shared?.perSession.mean ?? Number.NaN) / 1
      },
      {
        target: "a cached send through Redis: added median latency (one process alone)",
        met: undefined,
        detail: `${fmtMs(alone.redis.median)} vs ${fmtMs(alone.memory.median)} in memory`,
        figure: `+${fmtMs(addedMedian)} (${fmtMs(alone.redis.median)} vs ${fmtMs(alone.memory.median)})`
      },
      {
        target: `a cold session hit by ${processes} processes at once: resolve sequences`,
        met: undefined,
        detail: `${coldResolves} resolves`,
        figure: String(coldSequences),
        goal: `${processes} (one per process: no lease across processes)`
      }
    ]
    return {
      id: "fleet",
      title,
      body,
      data: {
        rows: rows.map((r) => ({ ...r, run: { ...r.run, results: undefined } })),
        coldResolves,
        coldSequences,
        addedMedian
      },
      targets
    }
  } finally {
    await redis.stop()
  }
}
