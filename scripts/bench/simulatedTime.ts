/**
 * Benchmark 5: the full default budget (905 s) on the simulated clock — wall time, driven by
 * `TestClock.adjust` and by `SimulatedTime.play`, and the floor of each driver per wake-up.
 */
import { runTask } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { fmtMs, median } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { Driver, SimulatedTimeArgs, SimulatedTimeResult } from "./tasks/simulatedTime.js"

export const simulatedTime = async (ctx: BenchContext): Promise<Section> => {
  const title = "5. Simulated time (905 s budget under TestClock)"
  if (!ctx.sdkAvailable || !ctx.testingAvailable) {
    return {
      id: "simulated-time",
      title,
      body: "Not measured: SDK or a2a-testing not built.",
      data: undefined,
      targets: [{ target: "905 s scenario ≤ 300 ms wall", met: undefined, detail: "not built" }]
    }
  }
  // Short mode plays a 30 s budget once (it only checks that the scenario runs).
  const args: SimulatedTimeArgs = ctx.short
    ? { runs: 1, retryAfterMs: 1500, timeoutSeconds: 30 }
    : { runs: 5, retryAfterMs: 1500, timeoutSeconds: undefined }
  ctx.log(`simulated-time: ${args.runs} run(s), budget ${args.timeoutSeconds ?? "default (905 s)"}`)
  const result = await runTask<SimulatedTimeResult>("simulatedTime", args, { timeoutMs: ctx.short ? 60_000 : 600_000 })
  // Run 1 includes JIT warm-up: medians over the later runs.
  const later = <A>(runs: ReadonlyArray<A>) => runs.length > 1 ? runs.slice(1) : runs
  const drivers: ReadonlyArray<[Driver, string]> = [
    ["adjust", "`TestClock.adjust(budget)`"],
    ["play", "`SimulatedTime.play`"]
  ]
  const rows = drivers.flatMap(([driver, label]) =>
    result.runs[driver].map((r, i) => [
      label,
      String(i + 1),
      r.error,
      String(r.resolves),
      `${(r.simulatedMs / 1000).toFixed(1)} s`,
      fmtMs(r.wallMs),
      fmtMs(r.cpuMs),
      fmtMs(Math.max(0, r.wallMs - r.cpuMs)),
      `${((1000 * r.wallMs) / Math.max(1, r.resolves)).toFixed(0)} µs`,
      `${((1000 * r.cpuMs) / Math.max(1, r.resolves)).toFixed(0)} µs`
    ])
  )
  const bareRows = drivers.map(([driver, label]) => {
    const runs = later(result.bare[driver])
    const wakeUps = runs[0]?.wakeUps ?? 1
    const wall = median(runs.map((r) => r.wallMs))
    const cpu = median(runs.map((r) => r.cpuMs))
    return [
      label,
      String(wakeUps),
      fmtMs(wall),
      fmtMs(cpu),
      `${((1000 * wall) / wakeUps).toFixed(0)} µs`,
      `${((1000 * cpu) / wakeUps).toFixed(0)} µs`
    ]
  })
  const medianWall = (driver: Driver) => median(later(result.runs[driver]).map((r) => r.wallMs))
  const medianCpuPerResolve = (driver: Driver) =>
    median(later(result.runs[driver]).map((r) => (1000 * r.cpuMs) / Math.max(1, r.resolves)))
  const ok = drivers.every(([driver]) => result.runs[driver].every((r) => r.error === "AgentRuntimeNotReadyError"))
  const sameResolves = new Set(drivers.flatMap(([driver]) => result.runs[driver].map((r) => r.resolves))).size === 1
  const body = [
    table(
      [
        "driver",
        "run",
        "outcome",
        "resolve calls",
        "simulated",
        "wall",
        "CPU",
        "wall − CPU",
        "wall per resolve",
        "CPU per resolve"
      ],
      rows
    ),
    "",
    "The floor of each driver: as many bare `Effect.sleep` wake-ups in a row and nothing else (median of the later runs):",
    "",
    table(["driver", "wake-ups", "wall", "CPU", "wall per wake-up", "CPU per wake-up"], bareRows),
    "",
    `A session that stays \`waking\` with \`retry_after_ms: ${args.retryAfterMs}\`; one \`sendA2AMessage\` with ` +
    `${args.timeoutSeconds === undefined ? "the default budget [5, 900]" : `timeout ${args.timeoutSeconds} s`}` +
    " on the in-memory simulated platform (`layerTest`), driven by one `TestClock.adjust` (wall from fork to " +
    "join, layers already built) or by `SimulatedTime.play` (wall of the send inside it). Run 1 includes JIT " +
    "warm-up. CPU = process.cpuUsage over the same span."
  ].join("\n")
  return {
    id: "simulated-time",
    title,
    body,
    data: result,
    targets: [{
      target: "905 s scenario ≤ 300 ms wall",
      met: ctx.short ? undefined : ok && sameResolves && medianWall("play") <= 300,
      detail: ctx.short
        ? "short mode plays 30 s"
        : `${fmtMs(medianWall("play"))} median with \`SimulatedTime.play\`, ${
          fmtMs(medianWall("adjust"))
        } with \`TestClock.adjust\`${ok && sameResolves ? "" : " (unexpected outcome)"}`
    }, {
      target: "CPU of one re-resolve well under 1 ms",
      met: ctx.short ? undefined : medianCpuPerResolve("play") < 1000,
      detail: ctx.short ? "short mode" : `${medianCpuPerResolve("play").toFixed(0)} µs median (play)`
    }]
  }
}
