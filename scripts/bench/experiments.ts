/**
 * Experiments (`pnpm bench --experiment=<name>:<patch>+<patch>,...`): builds copies of packages/a2a/src with
 * patches from `scripts/bench/experiments/*.patch` applied, under `scripts/dist/exp/<name>/` (where they
 * resolve the same effect / platform packages as the real build), and runs the per-send benchmark with
 * the floor, the unpatched copy (`base`) and every variant interleaved in one process. This is how the
 * ablations and before/after numbers in docs/BENCHMARKS.md were taken. The patches are against
 * packages/a2a/src as of the runs in the doc; a patch that no longer applies is reported and its variant
 * skipped. `BENCH_EXP_SRC=<dir>` copies another source tree than packages/a2a/src (e.g. a snapshot).
 */
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { runTask } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { fmtMs, fmtRatio, fmtUs } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SideName } from "./sides/index.js"
import type { PerSendResult } from "./tasks/perSend.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const patchDir = join(root, "scripts/bench/experiments")
const expDir = join(root, "scripts/dist/exp")

const tsconfig = JSON.stringify(
  {
    extends: "../../../../tsconfig.base.json",
    include: ["src"],
    compilerOptions: {
      rootDir: "src",
      outDir: "dist",
      composite: false,
      incremental: false,
      declaration: false,
      declarationMap: false,
      sourceMap: false,
      noUnusedLocals: false,
      noUnusedParameters: false
    }
  },
  null,
  2
)

export interface Spec {
  readonly name: string
  readonly patches: ReadonlyArray<string>
}

/** `a:memo+hoist,b:watchdog` → specs. */
export const parseSpecs = (text: string): Array<Spec> =>
  text.split(",").filter((s) => s !== "").map((s) => {
    const [name = "", patches = ""] = s.split(":")
    return { name, patches: patches.split("+").filter((p) => p !== "") }
  })

/** Builds one variant; returns an error text when a patch does not apply or it does not compile. */
export const buildVariant = (spec: Spec): string | undefined => {
  const dir = join(expDir, spec.name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  cpSync(process.env.BENCH_EXP_SRC ?? join(root, "packages/a2a/src"), join(dir, "src"), { recursive: true })
  writeFileSync(join(dir, "tsconfig.json"), tsconfig)
  for (const patch of spec.patches) {
    const file = join(patchDir, `${patch}.patch`)
    if (!existsSync(file)) return `no such patch: ${patch}`
    const r = spawnSync("patch", ["-p1", "--forward", "--no-backup-if-mismatch", "-s", "-d", dir, "-i", file], {
      encoding: "utf8"
    })
    if (r.status !== 0) return `patch ${patch} does not apply: ${r.stdout}${r.stderr}`.trim()
  }
  const tsc = spawnSync(process.execPath, [
    join(root, "node_modules/typescript/bin/tsc"),
    "-p",
    join(dir, "tsconfig.json")
  ], {
    encoding: "utf8"
  })
  if (tsc.status !== 0) return `does not compile: ${tsc.stdout.slice(0, 1000)}`
  return undefined
}

export const experiments = async (ctx: BenchContext, specs: ReadonlyArray<Spec>): Promise<Section> => {
  const built: Array<Spec> = []
  const notes: Array<string> = []
  for (const spec of [{ name: "base", patches: [] }, ...specs]) {
    ctx.log(`experiments: building ${spec.name} (${spec.patches.join(" + ") || "unpatched"})`)
    const error = buildVariant(spec)
    if (error === undefined) built.push(spec)
    else notes.push(`${spec.name}: ${error}`)
  }
  const sides: Array<SideName> = ["floor", ...built.map((s): SideName => `exp:${s.name}`)]
  const p = ctx.short ? { warmup: 20, rounds: 2, block: 10 } : { warmup: 1000, rounds: 25, block: 100 }
  ctx.log(`experiments: ${sides.join(", ")}; ${p.rounds} rounds × ${p.block}`)
  const result = await runTask<PerSendResult>("perSend", { baseUrl: ctx.server.baseUrl, sides, ...p }, {
    timeoutMs: 900_000
  })
  const floor = result.sides.find((s) => s.side === "floor")
  const base = result.sides.find((s) => s.side === "exp:base")
  const rows = result.sides.map((s) => {
    const spec = built.find((b) => `exp:${b.name}` === s.side)
    return [
      s.name,
      spec === undefined ? "" : spec.patches.join(" + ") || "(none)",
      fmtMs(s.latencyMs.median),
      fmtMs(s.latencyMs.p99),
      fmtUs(s.cpuUsPerSend),
      fmtRatio(s.latencyMs.median / (floor?.latencyMs.median ?? NaN)),
      base === undefined ? "–" : `${(100 * (s.latencyMs.median / base.latencyMs.median - 1)).toFixed(0)} %`,
      base === undefined ? "–" : `${(100 * (s.cpuUsPerSend / base.cpuUsPerSend - 1)).toFixed(0)} %`
    ]
  })
  const body = [
    table(["side", "patches", "median", "p99", "CPU/send", "÷ floor", "median vs base", "CPU vs base"], rows),
    "",
    `${p.rounds} rounds × ${p.block} sends per side, shuffled, after ${p.warmup} warm-up sends each.`,
    ...(notes.length > 0 ? ["", ...notes.map((n) => `- ${n}`)] : [])
  ].join("\n")
  return { id: "experiments", title: "Experiments (patched SDK copies)", body, data: result, targets: [] }
}
