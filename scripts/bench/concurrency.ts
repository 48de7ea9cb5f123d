/**
 * Benchmark 2: concurrency — N concurrent sends to 1 and to 100 cold sessions; resolve calls at the
 * backend (single-flight: one resolution per cold session), wall time, peak memory.
 */
import { runTask } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { fmtBytes, fmtMs } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SessionMode } from "./servers/minimalPlatform.js"
import type { ConcurrencyArgs, ConcurrencyResult } from "./tasks/concurrency.js"

interface Scenario {
  readonly label: string
  readonly client: "ours" | "floor"
  readonly mode: SessionMode
  readonly sessions: number
  readonly warm: boolean
  /** Resolve calls a single-flight client must make during the timed part. */
  readonly expectedResolves: number
}

export const concurrency = async (ctx: BenchContext): Promise<Section> => {
  const sends = ctx.short ? 100 : 1000
  const many = ctx.short ? 10 : 100
  const coldDelayMs = ctx.short ? 50 : 200
  const retryAfterMs = ctx.short ? 100 : 250
  const scenarios: Array<Scenario> = [
    {
      label: "floor: raw undici, ready, access known",
      client: "floor",
      mode: "ready",
      sessions: 1,
      warm: true,
      expectedResolves: 0
    },
    {
      label: "floor: raw undici, ready, access known",
      client: "floor",
      mode: "ready",
      sessions: many,
      warm: true,
      expectedResolves: 0
    }
  ]
  if (ctx.sdkAvailable) {
    scenarios.push(
      { label: "ours: warm cache, ready", client: "ours", mode: "ready", sessions: 1, warm: true, expectedResolves: 0 },
      {
        label: "ours: warm cache, ready",
        client: "ours",
        mode: "ready",
        sessions: many,
        warm: true,
        expectedResolves: 0
      },
      {
        label: `ours: cold, first resolve held ${coldDelayMs} ms`,
        client: "ours",
        mode: "slow",
        sessions: 1,
        warm: false,
        expectedResolves: 1
      },
      {
        label: `ours: cold, first resolve held ${coldDelayMs} ms`,
        client: "ours",
        mode: "slow",
        sessions: many,
        warm: false,
        expectedResolves: many
      },
      {
        label: `ours: cold, waking (retry_after_ms ${retryAfterMs})`,
        client: "ours",
        mode: "waking",
        sessions: 1,
        warm: false,
        expectedResolves: 2
      },
      {
        label: `ours: cold, waking (retry_after_ms ${retryAfterMs})`,
        client: "ours",
        mode: "waking",
        sessions: many,
        warm: false,
        expectedResolves: 2 * many
      }
    )
  }
  const results: Array<{ scenario: Scenario; result: ConcurrencyResult }> = []
  // Short mode: one floor row and the two cold kinds over several sessions (each row is a process).
  const chosen = ctx.short
    ? scenarios.filter((s) => s.client === "floor" ? s.sessions === 1 : !s.warm && s.sessions > 1)
    : scenarios
  for (const scenario of chosen) {
    ctx.log(`concurrency: ${scenario.label}, ${sends} sends over ${scenario.sessions} session(s)`)
    const args: ConcurrencyArgs = {
      baseUrl: ctx.server.baseUrl,
      client: scenario.client,
      mode: scenario.mode,
      sessions: scenario.sessions,
      sends,
      coldDelayMs,
      retryAfterMs,
      warm: scenario.warm
    }
    results.push({
      scenario,
      result: await runTask<ConcurrencyResult>("concurrency", args, { timeoutMs: ctx.short ? 60_000 : 240_000 })
    })
  }
  const rows = results.map(({ result: r, scenario: s }) => [
    s.label,
    String(s.sessions),
    `${r.ok}/${r.ok + r.failed}`,
    `${r.resolves} (${s.expectedResolves})`,
    s.sessions > 1 ? `${r.minResolvesPerSession}–${r.maxResolvesPerSession}` : String(r.maxResolvesPerSession),
    fmtMs(r.wallMs),
    `${fmtBytes(r.memory.peakRss)} (+${fmtBytes(r.memory.peakRss - r.memory.baselineRss)})`,
    `${fmtBytes(r.memory.peakHeapUsed)} (+${fmtBytes(r.memory.peakHeapUsed - r.memory.baselineHeapUsed)})`
  ])
  const errors = results.filter((r) => r.result.failed > 0).map((r) =>
    `${r.scenario.label}: ${r.result.firstError ?? "?"}`
  )
  const body = [
    table(
      [
        "scenario",
        "sessions",
        "ok",
        "resolve calls (single-flight)",
        "per session",
        "wall",
        "peak RSS (Δ)",
        "peak heapUsed (Δ)"
      ],
      rows
    ),
    "",
    `${sends} sends started at once (one process per row, fresh in-memory cache). Cold "held" = the backend holds a ` +
    `session's first resolve ${coldDelayMs} ms then admits; "waking" = transient \`waking\` with \`retry_after_ms\` ` +
    `until ${coldDelayMs} ms after the first resolve, so a single-flight client makes exactly 2 resolve calls per session ` +
    "(one transient, one ready). Memory sampled every 5 ms.",
    ...(errors.length > 0 ? ["", "Failures: " + errors.join("; ")] : [])
  ].join("\n")
  const oursCold = results.filter((r) => r.scenario.client === "ours" && !r.scenario.warm)
  const targets = [
    {
      target: "one resolution per cold session under any concurrency",
      met: oursCold.length === 0
        ? undefined
        : oursCold.every((r) => r.result.resolves === r.scenario.expectedResolves && r.result.failed === 0),
      detail: oursCold.length === 0
        ? "SDK not built"
        : oursCold.map((r) => `${r.result.resolves}/${r.scenario.expectedResolves}`).join(", ")
    },
    {
      target: `${sends} callers on cold sessions: peak heap growth ≤ 30 MiB`,
      met: oursCold.length === 0
        ? undefined
        : oursCold.every((r) => r.result.memory.peakHeapUsed - r.result.memory.baselineHeapUsed <= 30 * 1024 * 1024),
      detail: oursCold.length === 0
        ? "SDK not built"
        : oursCold.map((r) =>
          `${r.scenario.sessions} session(s): +${
            fmtBytes(r.result.memory.peakHeapUsed - r.result.memory.baselineHeapUsed)
          }`
        ).join(", ")
    }
  ]
  return {
    id: "concurrency",
    title: `2. Concurrency (${sends} concurrent sends)`,
    body,
    data: results,
    targets
  }
}
