/**
 * Benchmark 5: the full default budget (905 s) on the simulated clock — wall time.
 */
import { runTask } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { fmtMs, median } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SimulatedTimeArgs, SimulatedTimeResult } from "./tasks/simulatedTime.js"

export const simulatedTime = async (ctx: BenchContext): Promise<Section> => {
  const title = "5. Simulated time (905 s budget under TestClock)"
  if (!ctx.sdkAvailable || !ctx.testingAvailable) {
    return {
      id: "simulated-time",
      title,
      body: "Not measured: SDK or a2a-testing not built.",
      data: undefined,
      targets: [{ target: "905 s scenario < 50 ms wall", met: undefined, detail: "not built" }]
    }
  }
  // Short mode plays a 30 s budget once (it only checks that the scenario runs).
  const args: SimulatedTimeArgs = ctx.short
    ? { runs: 1, retryAfterMs: 1500, timeoutSeconds: 30 }
    : { runs: 5, retryAfterMs: 1500, timeoutSeconds: undefined }
  ctx.log(`simulated-time: ${args.runs} run(s), budget ${args.timeoutSeconds ?? "default (905 s)"}`)
  const result = await runTask<SimulatedTimeResult>("simulatedTime", args, { timeoutMs: ctx.short ? 20_000 : 300_000 })
  const rows = result.runs.map((r, i) => [
    String(i + 1),
    r.error,
    String(r.resolves),
    `${(r.simulatedMs / 1000).toFixed(1)} s`,
    fmtMs(r.wallMs),
    fmtMs(r.cpuMs),
    fmtMs(Math.max(0, r.wallMs - r.cpuMs)),
    fmtMs(r.wallMs / Math.max(1, r.resolves))
  ])
  const later = result.runs.length > 1 ? result.runs.slice(1) : result.runs
  const wall = median(later.map((r) => r.wallMs))
  const ok = result.runs.every((r) => r.error === "AgentRuntimeNotReadyError")
  const body = [
    table(["run", "outcome", "resolve calls", "simulated", "wall", "CPU", "wall − CPU", "wall per resolve"], rows),
    "",
    `A session that stays \`waking\` with \`retry_after_ms: ${args.retryAfterMs}\`; one \`sendA2AMessage\` with ` +
    `${args.timeoutSeconds === undefined ? "the default budget [5, 900]" : `timeout ${args.timeoutSeconds} s`}` +
    ` on the in-memory simulated platform (\`layerTest\`), driven by one \`TestClock.adjust\`. Wall time from fork to ` +
    "join (layers already built); run 1 includes JIT warm-up. CPU = process.cpuUsage over the same span."
  ].join("\n")
  return {
    id: "simulated-time",
    title,
    body,
    data: result,
    targets: [{
      target: "905 s scenario < 50 ms wall",
      met: ctx.short ? undefined : ok && wall < 50,
      detail: ctx.short ? "short mode plays 30 s" : `${fmtMs(wall)} median${ok ? "" : " (unexpected outcome)"}`
    }]
  }
}
