/**
 * Benchmark 4c: bytes allocated per warm send (garbage included), ours against the raw floor, the floor with
 * each send one Effect fiber and the official client, each in a process of its own. A diagnostic row with no
 * target: it tells how much of a burst's peak heap is garbage (see docs/BENCHMARKS.md).
 */
import { runTask } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { fmtBytes, fmtRatio } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SideName } from "./sides/index.js"
import type { AllocationArgs, AllocationResult } from "./tasks/allocation.js"

export const allocation = async (ctx: BenchContext): Promise<Section> => {
  const sends = ctx.short ? 100 : 2000
  const warmup = ctx.short ? 20 : 1000
  const sides: Array<SideName> = ctx.sdkAvailable
    ? ["floor", "floor-in-effect", "official", "ours", "effect-idiomatic"]
    : ["floor", "floor-in-effect", "official"]
  const results: Array<AllocationResult> = []
  for (const side of sides) {
    ctx.log(`allocation: ${side}, ${sends} sends sampled`)
    const args: AllocationArgs = { baseUrl: ctx.server.baseUrl, side, warmup, sends }
    results.push(await runTask<AllocationResult>("allocation", args, { timeoutMs: ctx.short ? 30_000 : 120_000 }))
  }
  const floor = results.find((r) => r.side === "floor")
  const rows = results.map((r) => [
    r.name,
    fmtBytes(r.bytesPerSend),
    floor === undefined ? "–" : fmtRatio(r.bytesPerSend / floor.bytesPerSend)
  ])
  const body = [
    table(["side", "allocated per send", "÷ floor"], rows),
    "",
    `${sends.toLocaleString("en-US")} sequential warm sends after ${warmup.toLocaleString("en-US")} warm-up ` +
    "sends, one process per side; V8's sampling heap profiler (256-byte interval, objects collected by either " +
    "GC included) over the measured sends, its total ÷ sends: what one send allocates, live or garbage."
  ].join("\n")
  return { id: "allocation", title: "4c. Allocation per warm send", body, data: { results }, targets: [] }
}
