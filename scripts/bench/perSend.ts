/**
 * Benchmark 1: per-send overhead — ours vs the raw undici floor vs the official @a2a-js/sdk client.
 */
import { runTask } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { fmtMs, fmtRatio, fmtUs } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SideName } from "./sides/index.js"
import type { PerSendResult } from "./tasks/perSend.js"

export const perSend = async (ctx: BenchContext): Promise<Section> => {
  const sides: Array<SideName> = ctx.sdkAvailable ? ["floor", "official", "ours", "ours-effect"] : ["floor", "official"]
  const params = ctx.short ? { warmup: 40, rounds: 4, block: 20 } : { warmup: 2000, rounds: 60, block: 100 }
  ctx.log(
    `per-send: ${sides.join(", ")}; ${params.rounds} rounds × ${params.block} sends each, warm-up ${params.warmup}`
  )
  const result = await runTask<PerSendResult>("perSend", { baseUrl: ctx.server.baseUrl, sides, ...params }, {
    timeoutMs: ctx.short ? 20_000 : 300_000
  })
  const by = (k: SideName) => result.sides.find((s) => s.side === k)
  const floor = by("floor")
  const official = by("official")
  if (floor === undefined || official === undefined) throw new Error("per-send: floor or official side missing")
  const rows = result.sides.map((s) => [
    s.name,
    String(s.latencyMs.n),
    fmtMs(s.latencyMs.median),
    fmtMs(s.latencyMs.p99),
    fmtUs(s.cpuUsPerSend),
    fmtRatio(s.latencyMs.median / floor.latencyMs.median),
    fmtRatio(s.cpuUsPerSend / floor.cpuUsPerSend),
    fmtRatio(s.latencyMs.median / official.latencyMs.median)
  ])
  const body = [
    table(
      ["side", "sends", "median", "p99", "CPU/send", "median ÷ floor", "CPU ÷ floor", "median ÷ official"],
      rows
    ),
    "",
    `Sequential sends to one ready session of the minimal node:http platform (own process), ${result.rounds} rounds × ` +
    `${result.block} sends per side in shuffled order after ${result.warmup} warm-up sends each. ` +
    "`ours` = `runtime.runPromise(client.sendA2AMessage(...))` per send (Promise boundary included); " +
    "`ours (in Effect)` = the same sends inside one Effect program."
  ].join("\n")
  const ours = by("ours")
  const targets = [
    {
      target: "per-send median ≤ 1.25× raw floor",
      met: ours === undefined ? undefined : ours.latencyMs.median <= 1.25 * floor.latencyMs.median,
      detail: ours === undefined ? "SDK not built" : fmtRatio(ours.latencyMs.median / floor.latencyMs.median)
    },
    {
      target: "per-send faster than @a2a-js/sdk",
      met: ours === undefined ? undefined : ours.latencyMs.median < official.latencyMs.median,
      detail: ours === undefined ? "SDK not built" : fmtRatio(ours.latencyMs.median / official.latencyMs.median)
    }
  ]
  return { id: "per-send", title: "1. Per-send overhead (warm access cache)", body, data: result, targets }
}
