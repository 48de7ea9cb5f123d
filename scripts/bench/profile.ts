/**
 * Profiling: the V8 sampling CPU profiler (what `node --cpu-prof` runs), started through `node:inspector`
 * around the measured sends only (no start-up, no warm-up), for our per-send path and for the floor.
 * The `.cpuprofile` files are kept under `scripts/dist/bench/profiles/` (open them in Chrome DevTools).
 */
import { mkdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { runTask } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { type ProfileSummary, summarizeProfile } from "./lib/cpuProfile.js"
import { fmtMs } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SideName } from "./sides/index.js"
import type { PerSendResult } from "./tasks/perSend.js"

const pct = (x: number) => `${(100 * x).toFixed(1)} %`

export const profile = async (ctx: BenchContext): Promise<Section> => {
  const dir = fileURLToPath(new URL("./profiles/", import.meta.url))
  mkdirSync(dir, { recursive: true })
  const sides: Array<SideName> = ctx.sdkAvailable ? ["ours-effect", "floor"] : ["floor"]
  const params = ctx.short ? { warmup: 40, rounds: 2, block: 20 } : { warmup: 2000, rounds: 40, block: 250 }
  const out: Array<{ side: SideName; sends: number; perSendUs: number; summary: ProfileSummary; file: string }> = []
  for (const side of sides) {
    const file = `${dir}${side}.cpuprofile`
    ctx.log(`profile: ${side}, ${params.rounds * params.block} sends → ${file}`)
    const r = await runTask<PerSendResult>("perSend", {
      baseUrl: ctx.server.baseUrl,
      sides: [side],
      ...params,
      cpuProfilePath: file,
      samplingIntervalUs: 100
    }, { timeoutMs: ctx.short ? 20_000 : 300_000 })
    const sends = r.sides[0]?.latencyMs.n ?? 0
    const summary = summarizeProfile(file, 30)
    out.push({ side, sends, perSendUs: (summary.busyMs * 1000) / sends, summary, file })
  }
  const parts: Array<string> = []
  for (const o of out) {
    parts.push(
      `### ${o.side}: ${o.sends} sends, busy ${fmtMs(o.summary.busyMs)} of ${fmtMs(o.summary.totalMs)} sampled ` +
        `(${o.perSendUs.toFixed(0)} µs CPU on the main thread per send)`,
      "",
      "Self time by package:",
      "",
      table(
        ["package", "self", "share of busy"],
        o.summary.selfByPackage.map((r) => [r.key, fmtMs(r.ms), pct(r.share)])
      ),
      "",
      "Inclusive time by module (a sample counts for every module on its stack):",
      "",
      table(
        ["module", "inclusive", "share of busy"],
        o.summary.inclusiveByModule.map((r) => [r.key, fmtMs(r.ms), pct(r.share)])
      ),
      "",
      "Top functions by self time:",
      "",
      table(["function", "self", "share of busy"], o.summary.topSelf.map((r) => [r.key, fmtMs(r.ms), pct(r.share)])),
      ""
    )
  }
  return { id: "profile", title: "Profile of the per-send path", body: parts.join("\n"), data: out, targets: [] }
}
