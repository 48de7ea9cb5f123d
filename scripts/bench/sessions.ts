/**
 * Benchmark 6: many sessions through one client — 20,000 distinct sessions, one send each, every access valid
 * about a second: retained heap per session once the entries have expired, sends/s over the last window against
 * the first, and the store's live entries against its maximum.
 */
import { runTask } from "./lib/child.js"
import type { BenchContext, Section, Target } from "./lib/context.js"
import { fmtBytes, fmtMs, fmtRatio } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SessionsArgs, SessionsResult } from "./tasks/sessions.js"

/** The maximum number of entries the benchmark gives the in-memory store (see lib/benchCache.ts). */
export const benchMaxEntries = 5_000

export const sessions = async (ctx: BenchContext): Promise<Section> => {
  if (!ctx.sdkAvailable) {
    return { id: "sessions", title: "6. Many sessions", body: "SDK not built.", data: undefined, targets: [] }
  }
  const args: SessionsArgs = ctx.short
    ? {
      baseUrl: ctx.server.baseUrl,
      sessions: 400,
      warmup: 50,
      window: 100,
      lanes: 8,
      validityMs: 300,
      maxEntries: 200,
      sweepWaitMs: 500
    }
    : {
      baseUrl: ctx.server.baseUrl,
      sessions: 20_000,
      warmup: 1_000,
      window: 2_000,
      lanes: 8,
      validityMs: 1_000,
      maxEntries: benchMaxEntries,
      sweepWaitMs: Number(process.env.BENCH_SWEEP_WAIT_MS ?? 15_000)
    }
  ctx.log(
    `sessions: ${args.sessions} distinct sessions, ${args.lanes} at a time, access valid ${args.validityMs} ms`
  )
  const r = await runTask<SessionsResult>("sessions", args, {
    execArgv: ["--expose-gc"],
    timeoutMs: ctx.short ? 60_000 : 600_000
  })
  const n = args.sessions.toLocaleString("en-US")
  const w = args.window.toLocaleString("en-US")
  const retainedOk = r.retainedPerSession <= 100
  const rateRatio = r.lastRate / r.firstRate
  const entriesOk = r.peakEntries <= r.maxEntries
  const body = [
    table(
      [
        "sessions",
        "ok",
        "resolves",
        "retained heap per session",
        `sends/s, first ${w}`,
        `sends/s, last ${w}`,
        "last ÷ first",
        "peak live entries (max)",
        "entries at end",
        "wall"
      ],
      [[
        n,
        `${r.sessions - r.failed}/${r.sessions}`,
        String(r.resolves),
        `${fmtBytes(r.retainedPerSession)} (${fmtBytes(r.heapBaseline)} → ${fmtBytes(r.heapAfter)})`,
        r.firstRate.toFixed(0),
        r.lastRate.toFixed(0),
        fmtRatio(rateRatio),
        `${r.peakEntries.toLocaleString("en-US")} (${r.maxEntries.toLocaleString("en-US")}${
          r.maxConfigured ? "" : ", not configurable yet"
        })`,
        r.entriesAtEnd.toLocaleString("en-US"),
        fmtMs(r.wallMs)
      ]]
    ),
    "",
    `One client (\`A2AClient\` on the Node layer, in-memory cache built in \`lib/benchCache.ts\`), ${n} distinct ` +
    `sessions, one send each (its resolve, then \`message:send\`), ${args.lanes} at a time; the minimal platform's ` +
    `\`expires_at\` is 30 s + ${args.validityMs} ms ahead, so each access is valid ${args.validityMs} ms (SPEC §6 ` +
    "skew). Own process (`node --expose-gc`); heap after three forced full GCs after a warm-up of " +
    `${args.warmup.toLocaleString("en-US")} sessions whose entries expired, and again once all entries had expired ` +
    `(waited ${fmtMs(r.drainMs)}: validity + 200 ms, then up to ${fmtMs(args.sweepWaitMs)} for the store to drop ` +
    `them). Live entries read after every send (${
      r.sizeSource === "store" ? "the store's own size" : "counted beside the store: keys set − removed"
    }). Sends/s over the first and last ${w} sessions; every window of ${w}, in order: ${
      r.windowRates.map((x) => x.toFixed(0)).join(", ")
    } (a load spike on a shared machine shows in one window: read the sequence).`,
    ...(r.failed > 0 ? ["", `Failures: ${r.failed}, first: ${r.firstError ?? "?"}`] : [])
  ].join("\n")
  const targets: Array<Target> = [
    {
      target: `${n} sessions: retained heap per session once expired`,
      met: r.failed === 0 && retainedOk,
      detail: `${fmtBytes(r.retainedPerSession)} per session`,
      figure: fmtBytes(r.retainedPerSession),
      goal: "≤ 100 B",
      ratio: r.retainedPerSession / 100
    },
    {
      target: `${n} sessions: sends/s, last ${w} ÷ first ${w}`,
      met: r.failed === 0 && rateRatio >= 0.9,
      detail: `${r.lastRate.toFixed(0)} vs ${r.firstRate.toFixed(0)} sends/s`,
      figure: `${r.lastRate.toFixed(0)} vs ${r.firstRate.toFixed(0)} /s (${fmtRatio(rateRatio)})`,
      goal: "last ≥ 0.90 × first (within 10 %)",
      ratio: 0.9 / rateRatio
    },
    {
      target: `${n} sessions: live in-memory entries`,
      met: entriesOk,
      detail: `peak ${r.peakEntries} of max ${r.maxEntries}${r.maxConfigured ? "" : " (no maximum in this API)"}`,
      figure: `peak ${r.peakEntries.toLocaleString("en-US")}`,
      goal: `≤ max ${r.maxEntries.toLocaleString("en-US")}${r.maxConfigured ? "" : " (not configurable yet)"}`,
      ratio: r.peakEntries / r.maxEntries
    }
  ]
  return {
    id: "sessions",
    title: `6. Many sessions through one client (${n} sessions, access valid ${args.validityMs} ms)`,
    body,
    data: r,
    targets,
    chart: [{
      title: `retained heap per session (${n} sessions)`,
      unit: "bytes",
      bars: [{ label: "ours", value: r.retainedPerSession }],
      limit: { label: "target", value: 100 }
    }]
  }
}
