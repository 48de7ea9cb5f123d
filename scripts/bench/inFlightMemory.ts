/**
 * Benchmark 4b: heap per call in flight — N sends held open by the runtime (`holdSends`), heap after forced
 * GCs with all N waiting minus the heap before, per call: ours (warm cache), the raw undici floor and the
 * official client, each in a process of its own. `BENCH_HEAP_SNAPSHOTS=<dir>` also writes heap snapshots at both
 * points, `<dir>/<side>-before.heapsnapshot` and `-after` (summarise them with `heapDiff.js`); `BENCH_SIDES=ours,floor`
 * measures only those sides.
 */
import { runTask } from "./lib/child.js"
import { type BenchContext, referenceOf, type Section, type Target } from "./lib/context.js"
import { fmtBytes, fmtRatio } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SideName } from "./sides/index.js"
import type { InFlightMemoryArgs, InFlightMemoryResult } from "./tasks/inFlightMemory.js"

export const inFlightMemory = async (ctx: BenchContext): Promise<Section> => {
  const inFlight = ctx.short ? 50 : 1000
  const warmup = ctx.short ? 5 : 50
  // Full mode adds diagnostic rows: the floor with each send one Effect fiber (what any Effect program pays per
  // call), the bare @effect/platform undici client, our Node layer's lean client alone (the transport under
  // ours), and ours with Effect's tracer off (what the spans keep).
  const only = process.env.BENCH_SIDES?.split(",").filter((s) => s !== "") as Array<SideName> | undefined
  const sides: Array<SideName> = only !== undefined
    ? only
    : !ctx.sdkAvailable
    ? ["floor", "official"]
    : ctx.short
    ? ["floor", "official", "ours"]
    : ["floor", "floor-in-effect", "official", "ours", "effect-http", "effect-idiomatic", "lean-http", "ours-notracer"]
  const results: Array<InFlightMemoryResult> = []
  for (const side of sides) {
    ctx.log(`memory-in-flight: ${side}, ${inFlight} sends held open`)
    const dir = process.env.BENCH_HEAP_SNAPSHOTS
    const snapshots = dir === undefined || dir === "" ? undefined : `${dir.replace(/\/+$/, "")}/${side}`
    const args: InFlightMemoryArgs = { baseUrl: ctx.server.baseUrl, side, inFlight, warmup, snapshots }
    results.push(
      await runTask<InFlightMemoryResult>("inFlightMemory", args, {
        execArgv: ["--expose-gc"],
        timeoutMs: ctx.short ? 20_000 : 120_000
      })
    )
  }
  // Ours again, the N calls waiting on one cold session whose one resolve the backend holds (what the
  // concurrency benchmark's cold rows keep alive before any send).
  const cold = ctx.sdkAvailable && !ctx.short && (only === undefined || only.includes("ours"))
    ? await (async () => {
      ctx.log(`memory-in-flight: ours, ${inFlight} sends waiting on one cold session`)
      const args: InFlightMemoryArgs = {
        baseUrl: ctx.server.baseUrl,
        side: "ours",
        inFlight,
        warmup,
        cold: { coldDelayMs: 3000 },
        snapshots: process.env.BENCH_HEAP_SNAPSHOTS === undefined || process.env.BENCH_HEAP_SNAPSHOTS === ""
          ? undefined
          : `${process.env.BENCH_HEAP_SNAPSHOTS.replace(/\/+$/, "")}/ours-cold`
      }
      return runTask<InFlightMemoryResult>("inFlightMemory", args, {
        execArgv: ["--expose-gc"],
        timeoutMs: ctx.short ? 20_000 : 120_000
      })
    })()
    : undefined
  const floor = results.find((r) => r.side === "floor")
  const official = results.find((r) => r.side === "official")
  const rows = [...results, ...(cold === undefined ? [] : [{ ...cold, name: "ours, waiting on a cold session" }])].map((
    r
  ) => [
    r.name,
    fmtBytes(r.heapPerCall),
    floor === undefined ? "–" : fmtRatio(r.heapPerCall / floor.heapPerCall),
    official === undefined ? "–" : fmtRatio(r.heapPerCall / official.heapPerCall),
    fmtBytes(r.externalPerCall),
    fmtBytes(r.rssPerCall),
    `${fmtBytes(r.heapBefore)} → ${fmtBytes(r.heapInFlight)}`
  ])
  const body = [
    table(
      ["side", "heap per call in flight", "÷ floor", "÷ official", "external per call", "RSS per call", "heap"],
      rows
    ),
    "",
    `${inFlight.toLocaleString("en-US")} sends to one ready session started at once and held open by the runtime ` +
    `until all ${inFlight.toLocaleString("en-US")} arrived; heapUsed after three forced full GCs with all of them ` +
    `waiting, minus the same before they started (after ${warmup} sequential warm-up sends: warm access cache, ` +
    "one pooled connection), divided by N. One process per side (`node --expose-gc`); every held send is then " +
    "answered and checked. `ours, waiting on a cold session`: the N sends go to one session whose one resolve the " +
    "backend holds (mode `slow`); measured while all N wait on it, before any send."
  ].join("\n")
  const ours = results.find((r) => r.side === "ours")
  const idiomatic = results.find((r) => r.side === "effect-idiomatic")
  const targets: Array<Target> = [{
    target: "warm send: heap per call in flight ÷ raw undici's",
    met: ours === undefined || floor === undefined ? undefined : ours.heapPerCall <= 3 * floor.heapPerCall,
    detail: ours === undefined || floor === undefined
      ? "SDK not built"
      : `${fmtBytes(ours.heapPerCall)} vs ${fmtBytes(floor.heapPerCall)} (${
        fmtRatio(ours.heapPerCall / floor.heapPerCall)
      })`,
    figure: ours === undefined || floor === undefined
      ? "SDK not built"
      : `${fmtBytes(ours.heapPerCall)} vs ${fmtBytes(floor.heapPerCall)}${
        official === undefined ? "" : ` (official ${fmtBytes(official.heapPerCall)})`
      }`,
    goal: "≤ 3× raw undici's",
    ratio: (ours?.heapPerCall ?? NaN) / (3 * (floor?.heapPerCall ?? NaN)),
    ...(idiomatic === undefined || floor === undefined ? {} : {
      reference: referenceOf(fmtBytes(idiomatic.heapPerCall), idiomatic.heapPerCall / (3 * floor.heapPerCall))
    })
  }]
  const chart = [{
    title: `heap per call in flight (${inFlight.toLocaleString("en-US")} held)`,
    unit: "bytes" as const,
    bars: [ours, official, floor].flatMap((r, i) =>
      r === undefined ? [] : [{ label: ["ours", "official", "floor"][i] ?? "", value: r.heapPerCall }]
    ),
    limit: floor === undefined ? undefined : { label: "3× floor", value: 3 * floor.heapPerCall }
  }]
  return { id: "memory-in-flight", title: "4b. Heap per call in flight", body, data: { results, cold }, targets, chart }
}
