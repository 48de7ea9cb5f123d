/**
 * Benchmark 5: the full default budget (905 s) on the simulated clock — wall time.
 */
import { runTask } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { fmtMs, median } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SimulatedTimeResult } from "./tasks/simulatedTime.js"

export const simulatedTime = async (ctx: BenchContext): Promise<Section> => {
  if (!ctx.sdkAvailable || !ctx.testingAvailable) {
    return {
      id: "simulated-time",
      title: "5. Simulated time (905 s budget under TestClock)",
      body: "Not measured: SDK or a2a-testing not built.",
      data: undefined,
      targets: [{ target: "905 s scenario < 50 ms wall", met: undefined, detail: "not built" }]
    }
  }
  const runs = ctx.short ? 2 : 7
  const retryAfterMs = 1500
  const variants = [
    { label: "TestClock (stock)", fastYield: false },
    { label: "TestClock, suspension probe on setImmediate (bench patch)", fastYield: true }
  ]
  const results: Array<{ label: string; result: SimulatedTimeResult }> = []
  for (const v of variants) {
    ctx.log(`simulated-time: ${v.label}, ${runs} runs`)
    results.push({
      label: v.label,
      result: await runTask<SimulatedTimeResult>("simulatedTime", { runs, retryAfterMs, fastYield: v.fastYield }, {
        timeoutMs: ctx.short ? 20_000 : 180_000
      })
    })
  }
  const rows = results.map(({ label, result }) => {
    const walls = result.runs.map((r) => r.wallMs)
    const warm = walls.length > 1 ? walls.slice(1) : walls
    const first = result.runs[0]
    return [
      label,
      first?.error ?? "?",
      String(first?.resolves ?? "?"),
      `${((first?.simulatedMs ?? 0) / 1000).toFixed(1)} s`,
      fmtMs(walls[0] ?? NaN),
      fmtMs(median(warm)),
      fmtMs(Math.min(...warm))
    ]
  })
  const stock = results[0]?.result.runs
  const stockWarm = stock === undefined ? NaN : median((stock.length > 1 ? stock.slice(1) : stock).map((r) => r.wallMs))
  const body = [
    table([
      "clock",
      "outcome",
      "resolve calls",
      "simulated",
      "wall (1st run)",
      "wall (median, later runs)",
      "wall (best)"
    ], rows),
    "",
    `A session that stays \`waking\` with \`retry_after_ms: ${retryAfterMs}\`; one \`sendA2AMessage\` with the default ` +
    "budget [5, 900], driven by one `TestClock.adjust(\"905 seconds\")`. Wall time from fork to join (layers already " +
    "built); the first run includes JIT warm-up."
  ].join("\n")
  const ok = results.every((r) => r.result.runs.every((x) => x.error === "AgentRuntimeNotReadyError"))
  return {
    id: "simulated-time",
    title: "5. Simulated time (905 s budget under TestClock)",
    body,
    data: results,
    targets: [{
      target: "905 s scenario < 50 ms wall (stock TestClock)",
      met: ok && stockWarm < 50,
      detail: `${fmtMs(stockWarm)}${ok ? "" : " (unexpected outcome)"}`
    }]
  }
}
