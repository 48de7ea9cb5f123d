/**
 * `pnpm bench` — benchmarks of @mainsequence/a2a and the mainsequence CLI against the raw floor and the
 * official A2A JS client. Everything runs on 127.0.0.1. Prints Markdown tables (see docs/BENCHMARKS.md).
 *
 *   pnpm bench                  full run (several minutes)
 *   pnpm bench --short          short mode: only checks that every benchmark runs (CI; < 30 s)
 *   BENCH_SHORT=1 pnpm bench    same
 *   pnpm bench --only=per-send,concurrency,connection-limit,cli,memory,memory-in-flight,allocation,sessions,simulated-time,fleet,profile
 *   pnpm bench --profile        also CPU-profile our per-send path and summarise it
 *   pnpm bench --json=out.json  also write the raw numbers
 *   pnpm bench --svg=out.svg    write the chart there (a full run without --only writes docs/benchmarks.svg)
 *   pnpm bench --markdown=out.md  also write the report (what stdout gets) to a file
 *   BENCH_CHILD_NODE_FLAGS="--max-semi-space-size=1" pnpm bench   extra Node flags for the measuring
 *                               children (diagnostics: such a run is not comparable with a plain one)
 */
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import { allocation } from "./allocation.js"
import { cliColdStart } from "./cliColdStart.js"
import { concurrency, connectionLimit } from "./concurrency.js"
import { fleet } from "./fleet.js"
import { inFlightMemory } from "./inFlightMemory.js"
import { renderChart } from "./lib/chart.js"
import { startServerChild } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { memory } from "./memory.js"
import { perSend } from "./perSend.js"
import { profile as profileBench } from "./profile.js"
import { sessions } from "./sessions.js"
import { simulatedTime } from "./simulatedTime.js"

const argv = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const hit = argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (hit === undefined) return undefined
  const eq = hit.indexOf("=")
  return eq === -1 ? "" : hit.slice(eq + 1)
}
const short = flag("short") !== undefined || (process.env.BENCH_SHORT !== undefined && process.env.BENCH_SHORT !== "0")
const only = flag("only")?.split(",").filter((s) => s !== "")
const profile = flag("profile") !== undefined || (only?.includes("profile") ?? false)
const jsonOut = flag("json")
const svgOut = flag("svg")
const markdownOut = flag("markdown")

const require = createRequire(import.meta.url)
const resolvable = (spec: string): boolean => {
  try {
    require.resolve(spec)
    return true
  } catch {
    return false
  }
}
// The packages are ESM-only with "default" conditions: createRequire resolves them fine.
const sdkAvailable = resolvable("@mainsequence/a2a/node")
const testingAvailable = resolvable("@mainsequence/a2a-testing")
const cliAvailable = resolvable("@mainsequence/cli") && resolvable("@mainsequence/a2a-testing/node")

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`)

type Bench = { readonly id: string; readonly run: (ctx: BenchContext) => Promise<Section> }
const benches: ReadonlyArray<Bench> = [
  { id: "per-send", run: perSend },
  { id: "concurrency", run: concurrency },
  { id: "connection-limit", run: connectionLimit },
  { id: "cli", run: cliColdStart },
  { id: "memory", run: memory },
  { id: "memory-in-flight", run: inFlightMemory },
  { id: "allocation", run: allocation },
  { id: "sessions", run: sessions },
  { id: "simulated-time", run: simulatedTime },
  { id: "fleet", run: fleet },
  { id: "profile", run: profileBench }
]

const main = async () => {
  const started = performance.now()
  const load = os.loadavg()
  log(
    `mode: ${short ? "short" : "full"}; node ${process.version}; ${os.cpus().length} CPUs; load ${
      load.map((l) => l.toFixed(2)).join(" ")
    }; SDK ${sdkAvailable ? "built" : "NOT built"}; a2a-testing ${testingAvailable ? "built" : "NOT built"}; CLI ${
      cliAvailable ? "built" : "NOT built"
    }`
  )
  const server = await startServerChild()
  const ctx: BenchContext = { short, server, sdkAvailable, testingAvailable, cliAvailable, log }
  const sections: Array<Section> = []
  const failures: Array<string> = []
  try {
    for (const b of benches) {
      if (only !== undefined && !only.includes(b.id)) continue
      if (b.id === "profile" && !profile && (short || !sdkAvailable)) continue
      const t0 = performance.now()
      try {
        sections.push(await b.run(ctx))
        log(`${b.id}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
      } catch (e) {
        failures.push(b.id)
        log(`${b.id}: FAILED: ${e instanceof Error ? e.message : String(e)}`)
      }
    }
  } finally {
    await server.stop()
  }

  const out: Array<string> = []
  out.push(`# Benchmarks (${short ? "short mode: checks that they run, numbers mean nothing" : "full run"})`, "")
  out.push(
    `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "?"}, ${
      (os.totalmem() / 2 ** 30).toFixed(1)
    } GiB; load average at start ${load.map((l) => l.toFixed(2)).join(", ")}, at end ${
      os.loadavg().map((l) => l.toFixed(2)).join(", ")
    }`,
    ""
  )
  const targets = sections.flatMap((s) => s.targets)
  if (targets.length > 0) {
    out.push("## Targets", "")
    out.push(
      "| target | this run | goal | ratio | met | the least idiomatic Effect client |",
      "|---|---|---|---|---|---|"
    )
    for (const t of targets) {
      const met = short ? "not judged (short mode)" : t.met === undefined ? "not measured" : t.met ? "yes" : "**no**"
      const ratio = t.ratio === undefined || !Number.isFinite(t.ratio) ? "–" : `${t.ratio.toFixed(2)}`
      out.push(
        `| ${t.target} | ${t.figure ?? t.detail} | ${t.goal ?? "–"} | ${ratio} | ${met} | ${t.reference ?? "–"} |`
      )
    }
    out.push(
      "",
      "ratio: the figure ÷ the target's bound, so ≤ 1 is within it (for \"below the official client's\" ours ÷ " +
        "theirs, where the target is < 1; for sends/s \"within 10 %\" 0.9 × first ÷ last). The last column: the " +
        "same figure of the least idiomatic Effect client (`scripts/bench/sides/idiomatic.ts`: the platform's " +
        "HttpClient, one span, `Effect.timeoutFail`, one metric, the SDK's Schema), where measured.",
      ""
    )
  }
  for (const s of sections) out.push(`## ${s.title}`, "", s.body, "")
  process.stdout.write(out.join("\n") + "\n")
  const panels = sections.flatMap((s) => s.chart ?? [])
  const svgPath = svgOut !== undefined && svgOut !== ""
    ? svgOut
    : !short && only === undefined
    ? fileURLToPath(new URL("../../../docs/benchmarks.svg", import.meta.url))
    : undefined
  if (svgPath !== undefined && panels.length > 0) {
    const caption = `${
      short ? "SHORT MODE (numbers mean nothing); " : ""
    }node ${process.version}, ${os.cpus().length} CPUs, load ${load.map((l) => l.toFixed(2)).join(" ")} at start; ${
      new Date().toISOString().slice(0, 10)
    }`
    writeFileSync(svgPath, renderChart(panels, caption))
    log(`chart: ${svgPath}`)
  }
  if (markdownOut !== undefined && markdownOut !== "") writeFileSync(markdownOut, out.join("\n") + "\n")
  if (jsonOut !== undefined && jsonOut !== "") {
    writeFileSync(jsonOut, JSON.stringify({ short, node: process.version, load, sections }, null, 2))
  }
  log(
    `total ${((performance.now() - started) / 1000).toFixed(1)} s${
      failures.length > 0 ? `; FAILED: ${failures.join(", ")}` : ""
    }`
  )
  process.exitCode = failures.length > 0 ? 1 : 0
}

await main()
