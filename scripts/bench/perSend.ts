/**
 * Benchmark 1: per-send overhead — ours vs the raw undici floor vs the official @a2a-js/sdk client; plus a
 * diagnostic run that splits our cost into transport (@effect/platform HttpClient) and pipeline, with
 * and without Effect's tracer.
 */
import { runTask } from "./lib/child.js"
import { type BenchContext, referenceOf, type Section, type Target } from "./lib/context.js"
import { fmtMs, fmtRatio, fmtUs } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SideName } from "./sides/index.js"
import type { PerSendResult } from "./tasks/perSend.js"

const params = (short: boolean) =>
  short ? { warmup: 20, rounds: 2, block: 10 } : { warmup: 2000, rounds: 60, block: 100 }

const runSides = (ctx: BenchContext, sides: ReadonlyArray<SideName>) => {
  const p = params(ctx.short)
  ctx.log(`per-send: ${sides.join(", ")}; ${p.rounds} rounds × ${p.block} sends each, warm-up ${p.warmup}`)
  return runTask<PerSendResult>("perSend", { baseUrl: ctx.server.baseUrl, sides, ...p }, {
    timeoutMs: ctx.short ? 20_000 : 300_000
  })
}

const rowsOf = (result: PerSendResult) => {
  const floor = result.sides.find((s) => s.side === "floor")
  if (floor === undefined) throw new Error("per-send: no floor side")
  const official = result.sides.find((s) => s.side === "official")
  return result.sides.map((s) => [
    s.name,
    String(s.latencyMs.n),
    fmtMs(s.latencyMs.median),
    fmtMs(s.latencyMs.p99),
    fmtUs(s.cpuUsPerSend),
    fmtRatio(s.latencyMs.median / floor.latencyMs.median),
    fmtRatio(s.cpuUsPerSend / floor.cpuUsPerSend),
    ...(official === undefined ? [] : [fmtRatio(s.latencyMs.median / official.latencyMs.median)])
  ])
}

export const perSend = async (ctx: BenchContext): Promise<Section> => {
  // BENCH_PER_SEND_SIDES=floor,official,ours,ours-notracer measures only those (and skips the diagnostic run).
  const chosen = process.env.BENCH_PER_SEND_SIDES?.split(",").filter((s) => s !== "") as Array<SideName> | undefined
  const sides: Array<SideName> = chosen ??
    (ctx.sdkAvailable ? ["floor", "official", "ours", "ours-effect", "effect-idiomatic"] : ["floor", "official"])
  const result = await runSides(ctx, sides)
  const diag = ctx.sdkAvailable && !ctx.short && chosen === undefined
    ? await runSides(ctx, ["floor", "lean-http", "effect-http", "effect-http-notracer", "ours", "ours-notracer"])
    : undefined
  const p = params(ctx.short)
  const head = ["side", "sends", "median", "p99", "CPU/send", "median ÷ floor", "CPU ÷ floor"]
  const body = [
    table([...head, "median ÷ official"], rowsOf(result)),
    "",
    `Sequential sends to one ready session of the minimal node:http platform (own process), ${p.rounds} rounds × ` +
    `${p.block} sends per side in shuffled order after ${p.warmup} warm-up sends each. CPU = process.cpuUsage ` +
    "(user+system) of the client process per send. " +
    "`ours (runPromise per send)` = `runtime.runPromise(client.sendA2AMessage(...))` per send (Promise boundary " +
    "included); `ours (in Effect)` = the same sends inside one Effect program.",
    ...(diag === undefined ? [] : [
      "",
      "Where our time goes (separate run, same method):",
      "",
      table(head, rowsOf(diag)),
      "",
      "`diag: our Node HttpClient` = the bare `HttpClient` of `@mainsequence/a2a/node` (the lean undici client the " +
      "SDK now runs on) sending the same request and parsing the JSON answer, no SDK pipeline; " +
      "`diag: @effect/platform HttpClient` = the bare platform HttpClient on undici (the SDK's transport before) " +
      "sending the " +
      "same request and parsing the JSON answer, no SDK pipeline; `tracer off` = the same with " +
      "`Layer.setTracerEnabled(false)` in the runtime (no spans, no traceparent header)."
    ])
  ].join("\n")
  const floor = result.sides.find((s) => s.side === "floor")
  const official = result.sides.find((s) => s.side === "official")
  const ours = result.sides.find((s) => s.side === "ours")
  const idiomatic = result.sides.find((s) => s.side === "effect-idiomatic")
  const officialMedian = official?.latencyMs.median ?? NaN
  const officialCpu = official?.cpuUsPerSend ?? NaN
  const ratio = (a: number | undefined, b: number | undefined) => (a ?? NaN) / (b ?? NaN)
  const oMed = ours?.latencyMs.median ?? NaN
  const fMed = floor?.latencyMs.median ?? NaN
  const offMed = official?.latencyMs.median ?? NaN
  const notBuilt = ours === undefined
  const targets: Array<Target> = [
    {
      target: "warm send: median latency ÷ @a2a-js/sdk's",
      met: notBuilt ? undefined : oMed < offMed,
      detail: notBuilt ? "SDK not built" : fmtRatio(ratio(oMed, offMed)),
      figure: notBuilt ? "SDK not built" : `${fmtMs(oMed)} vs ${fmtMs(offMed)}`,
      goal: "< official's (ratio < 1)",
      ratio: ratio(oMed, offMed),
      ...(idiomatic === undefined ? {} : {
        reference: referenceOf(fmtMs(idiomatic.latencyMs.median), idiomatic.latencyMs.median / officialMedian)
      })
    },
    {
      target: "warm send: CPU per send ÷ @a2a-js/sdk's",
      met: ours === undefined ? undefined : ours.cpuUsPerSend < (official?.cpuUsPerSend ?? NaN),
      detail: ours === undefined ? "SDK not built" : fmtRatio(ratio(ours.cpuUsPerSend, official?.cpuUsPerSend)),
      figure: ours === undefined
        ? "SDK not built"
        : `${fmtUs(ours.cpuUsPerSend)} vs ${fmtUs(official?.cpuUsPerSend ?? NaN)}`,
      goal: "< official's (ratio < 1)",
      ratio: ratio(ours?.cpuUsPerSend, official?.cpuUsPerSend),
      ...(idiomatic === undefined ? {} : {
        reference: referenceOf(fmtUs(idiomatic.cpuUsPerSend), idiomatic.cpuUsPerSend / officialCpu)
      })
    },
    {
      target: "warm send: median latency ÷ raw floor's",
      met: notBuilt ? undefined : oMed <= 2 * fMed,
      detail: notBuilt ? "SDK not built" : fmtRatio(ratio(oMed, fMed)),
      figure: notBuilt ? "SDK not built" : `${fmtMs(oMed)} vs ${fmtMs(fMed)}`,
      goal: "≤ 2× floor's",
      ratio: ratio(oMed, 2 * fMed)
    }
  ]
  const bar = (label: string, v: number | undefined) => v === undefined ? [] : [{ label, value: v }]
  const chart = [
    {
      title: "warm send: median latency",
      unit: "ms" as const,
      bars: [
        ...bar("ours", ours?.latencyMs.median),
        ...bar("official", official?.latencyMs.median),
        ...bar("floor", floor?.latencyMs.median)
      ]
    },
    {
      title: "warm send: CPU per send",
      unit: "µs" as const,
      bars: [
        ...bar("ours", ours?.cpuUsPerSend),
        ...bar("official", official?.cpuUsPerSend),
        ...bar("floor", floor?.cpuUsPerSend)
      ]
    }
  ]
  return {
    id: "per-send",
    title: "1. Per-send overhead (warm access cache)",
    body,
    data: { main: result, diagnostics: diag },
    targets,
    chart
  }
}
