/**
 * Benchmark 4: steady memory — heap after forced GC at checkpoints over many sends in one process.
 */
import { runTask } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { fmtBytes, fmtMs } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SteadyMemoryArgs, SteadyMemoryResult } from "./tasks/steadyMemory.js"

export const memory = async (ctx: BenchContext): Promise<Section> => {
  const checkpoints = ctx.short ? [100, 300] : [1_000, 10_000, 50_000, 100_000]
  const [lo, hi] = ctx.short ? [100, 300] : [10_000, 100_000]
  const parallel = 8
  const clients: Array<"floor" | "ours"> = !ctx.sdkAvailable ? ["floor"] : ctx.short ? ["ours"] : ["floor", "ours"]
  const results: Array<SteadyMemoryResult> = []
  for (const client of clients) {
    ctx.log(`memory: ${client}, ${checkpoints[checkpoints.length - 1]} sends, ${parallel} in flight`)
    const args: SteadyMemoryArgs = { baseUrl: ctx.server.baseUrl, client, checkpoints, parallel }
    results.push(
      await runTask<SteadyMemoryResult>("steadyMemory", args, {
        execArgv: ["--expose-gc"],
        timeoutMs: ctx.short ? 20_000 : 600_000
      })
    )
  }
  const at = (r: SteadyMemoryResult, n: number) => r.checkpoints.find((c) => c.sends === n)
  const rows = results.map((r) => {
    const a = at(r, lo)
    const b = at(r, hi)
    const last = r.checkpoints[r.checkpoints.length - 1]
    return [
      r.client,
      ...r.checkpoints.map((c) => fmtBytes(c.heapUsed)),
      a !== undefined && b !== undefined ? fmtBytes(b.heapUsed - a.heapUsed) : "–",
      last !== undefined ? fmtBytes(last.rss) : "–",
      last !== undefined ? fmtMs(last.elapsedMs) : "–"
    ]
  })
  const body = [
    table(
      [
        "client",
        ...checkpoints.map((c) => `heap @ ${c.toLocaleString("en-US")}`),
        `growth ${lo}→${hi}`,
        "RSS at end",
        "time"
      ],
      rows
    ),
    "",
    `One process per client (\`node --expose-gc\`), ${parallel} sends in flight to one ready session, warm cache; ` +
    "heapUsed after three forced full GCs at each checkpoint."
  ].join("\n")
  const ours = results.find((r) => r.client.startsWith("ours"))
  const growth = ours === undefined ? undefined : (at(ours, hi)?.heapUsed ?? NaN) - (at(ours, lo)?.heapUsed ?? NaN)
  const targets = [{
    target: `heap growth ${lo.toLocaleString("en-US")} → ${hi.toLocaleString("en-US")} sends < 5 MB`,
    met: growth === undefined ? undefined : growth < 5 * 1024 * 1024,
    detail: growth === undefined ? "SDK not built" : fmtBytes(growth)
  }]
  return { id: "memory", title: "4. Steady memory", body, data: results, targets }
}
