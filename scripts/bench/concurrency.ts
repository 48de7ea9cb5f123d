/**
 * Benchmark 2: concurrency — N concurrent sends to 1 and to 100 cold sessions; resolve calls at the
 * backend (single-flight: one resolution per cold session), wall time, peak memory, sockets the server saw
 * open at once. Its two target rows: 1,000 concurrent callers of one cold session against raw undici's 1,000
 * requests, and a burst of 5,000 concurrent sends to 100 sessions against raw undici's 5,000 (both through a
 * pool with the same per-origin limit). Beside each, two diagnostic rows: raw undici with each send run as one
 * Effect fiber (what the fiber per call alone takes of the 2× bound), and the least a client whose calls are
 * Effect fibers can do against the same cold sessions (a fiber a call, one `Deferred` per session completed by
 * its one resolve, the raw undici send), and the least idiomatic Effect client (`sides/idiomatic.ts`).
 * `connectionLimit` measures that burst at several limits.
 */
import { runTask } from "./lib/child.js"
import { type BenchContext, referenceOf, type Section, type Target } from "./lib/context.js"
import { fmtBytes, fmtMs } from "./lib/stats.js"
import { table } from "./lib/table.js"
import type { SessionMode } from "./servers/minimalPlatform.js"
import type { ConcurrencyArgs, ConcurrencyResult } from "./tasks/concurrency.js"

interface Scenario {
  readonly label: string
  readonly client: ConcurrencyArgs["client"]
  readonly mode: SessionMode
  readonly sessions: number
  readonly warm: boolean
  /** Resolve calls a single-flight client must make during the timed part. */
  readonly expectedResolves: number
  /** Concurrent sends (default: the benchmark's). */
  readonly sends?: number
  /** See `ConcurrencyArgs.connections`. */
  readonly connections?: number | undefined
  /** The rows the targets compare. */
  readonly role?: "cold-callers" | "burst"
}

/** The SDK's default per-origin connection limit: none (the floor's pool gets the same). */
const sdkDefaultLimit: number | undefined = undefined

const runScenario = (ctx: BenchContext, scenario: Scenario, defaults: {
  readonly sends: number
  readonly coldDelayMs: number
  readonly retryAfterMs: number
}) => {
  const sends = scenario.sends ?? defaults.sends
  ctx.log(
    `concurrency: ${scenario.label}, ${sends} sends over ${scenario.sessions} session(s)${
      scenario.connections === undefined ? "" : `, limit ${scenario.connections}`
    }`
  )
  const args: ConcurrencyArgs = {
    baseUrl: ctx.server.baseUrl,
    client: scenario.client,
    mode: scenario.mode,
    sessions: scenario.sessions,
    sends,
    coldDelayMs: defaults.coldDelayMs,
    retryAfterMs: defaults.retryAfterMs,
    warm: scenario.warm,
    connections: scenario.connections
  }
  return runTask<ConcurrencyResult>("concurrency", args, {
    execArgv: ["--expose-gc"],
    timeoutMs: ctx.short ? 60_000 : 240_000
  })
}

const heapGrowth = (r: ConcurrencyResult) => r.memory.peakHeapUsed - r.memory.baselineHeapUsed

export const concurrency = async (ctx: BenchContext): Promise<Section> => {
  const sends = ctx.short ? 100 : 1000
  const burst = ctx.short ? 500 : 5000
  const many = ctx.short ? 10 : 100
  const coldDelayMs = ctx.short ? 50 : 200
  const retryAfterMs = ctx.short ? 100 : 250
  const limit = sdkDefaultLimit
  const limitLabel = limit === undefined ? "no limit" : `limit ${limit}`
  // Raw undici to ready sessions whose access is known (no resolve), through a pool with the SDK's limit.
  const accessKnown = (
    client: "floor" | "floor-in-effect",
    sessions: number,
    rest: Pick<Scenario, "sends" | "role"> = {}
  ): Scenario => ({
    label: `${
      client === "floor" ? "floor: raw undici" : "diag: raw undici, each send one Effect fiber"
    }, ready, access known, ${limitLabel}`,
    client,
    mode: "ready",
    sessions,
    warm: true,
    expectedResolves: 0,
    connections: limit,
    ...rest
  })
  // The least an Effect client can do against the same cold sessions as ours (see tasks/concurrency.ts).
  // And the least idiomatic Effect client (see sides/idiomatic.ts).
  const effectMinimal = (
    mode: SessionMode,
    sessions: number,
    rest: Pick<Scenario, "sends" | "role"> = {},
    client: "effect-minimal" | "effect-idiomatic" = "effect-minimal"
  ): Scenario => ({
    label: `diag: ${
      client === "effect-minimal"
        ? "the least Effect client (a fiber a call, one Deferred per session, raw undici)"
        : "the least idiomatic Effect client (platform HttpClient, span, timeoutFail, Schema)"
    }, cold ${mode === "slow" ? `first resolve held ${coldDelayMs} ms` : "cache, ready"}, ${limitLabel}`,
    client,
    mode,
    sessions,
    warm: false,
    expectedResolves: sessions,
    connections: limit,
    ...rest
  })
  const scenarios: Array<Scenario> = [
    accessKnown("floor", 1, { role: "cold-callers" }),
    accessKnown("floor", many),
    accessKnown("floor", many, { sends: burst, role: "burst" }),
    accessKnown("floor-in-effect", 1, { role: "cold-callers" }),
    accessKnown("floor-in-effect", many, { sends: burst, role: "burst" }),
    effectMinimal("slow", 1, { role: "cold-callers" }),
    effectMinimal("ready", many, { sends: burst, role: "burst" }),
    effectMinimal("slow", 1, { role: "cold-callers" }, "effect-idiomatic"),
    effectMinimal("ready", many, { sends: burst, role: "burst" }, "effect-idiomatic"),
    {
      ...accessKnown("floor", many, { sends: burst }),
      label: "floor: raw undici, ready, access known, no limit",
      connections: undefined
    }
  ]
  if (ctx.sdkAvailable) {
    scenarios.push(
      { label: "ours: warm cache, ready", client: "ours", mode: "ready", sessions: 1, warm: true, expectedResolves: 0 },
      {
        label: "ours: warm cache, ready",
        client: "ours",
        mode: "ready",
        sessions: many,
        warm: true,
        expectedResolves: 0
      },
      {
        label: `ours: cold, first resolve held ${coldDelayMs} ms`,
        client: "ours",
        mode: "slow",
        sessions: 1,
        warm: false,
        expectedResolves: 1,
        role: "cold-callers"
      },
      {
        label: `ours: cold, first resolve held ${coldDelayMs} ms`,
        client: "ours",
        mode: "slow",
        sessions: many,
        warm: false,
        expectedResolves: many
      },
      {
        label: `ours: cold, waking (retry_after_ms ${retryAfterMs})`,
        client: "ours",
        mode: "waking",
        sessions: 1,
        warm: false,
        expectedResolves: 2
      },
      {
        label: `ours: cold, waking (retry_after_ms ${retryAfterMs})`,
        client: "ours",
        mode: "waking",
        sessions: many,
        warm: false,
        expectedResolves: 2 * many
      },
      {
        label: `ours: cold cache, ready (one resolve per session), ${limitLabel}`,
        client: "ours",
        mode: "ready",
        sessions: many,
        warm: false,
        expectedResolves: many,
        sends: burst,
        role: "burst"
      }
    )
  }
  // Short mode: the rows the targets compare, and the cold kinds over several sessions (each row is a process).
  const chosen = ctx.short
    ? scenarios.filter((s) => s.role !== undefined || (s.client === "ours" && !s.warm && s.sessions > 1))
    : scenarios
  // The rows the targets judge run several times, in rounds: one run's peak moves by a quarter on this machine.
  const repeats = ctx.short ? 1 : Number(process.env.BENCH_PEAK_REPEATS ?? 3)
  const runs = chosen.map((scenario) => ({ scenario, all: new Array<ConcurrencyResult>() }))
  for (let round = 0; round < repeats; round++) {
    for (const { all, scenario } of runs) {
      if (round === 0 || scenario.role !== undefined) {
        all.push(await runScenario(ctx, scenario, { sends, coldDelayMs, retryAfterMs }))
      }
    }
  }
  // Each row is its run with the median peak heap growth.
  const results = runs.flatMap(({ all, scenario }) => {
    const sorted = [...all].sort((a, b) => heapGrowth(a) - heapGrowth(b))
    const median = sorted[Math.floor((sorted.length - 1) / 2)]
    return median === undefined ? [] : [{ scenario, result: median, growths: sorted.map(heapGrowth) }]
  })
  const rows = results.map(({ growths, result: r, scenario: s }) => [
    s.label,
    String(s.sessions),
    `${r.ok}/${r.ok + r.failed}`,
    `${r.resolves} (${s.expectedResolves})`,
    s.sessions > 1 ? `${r.minResolvesPerSession}–${r.maxResolvesPerSession}` : String(r.maxResolvesPerSession),
    String(r.peakSockets),
    fmtMs(r.wallMs),
    `${fmtBytes(r.memory.peakRss)} (+${fmtBytes(r.memory.peakRss - r.memory.baselineRss)})`,
    `${fmtBytes(r.memory.peakHeapUsed)} (+${fmtBytes(heapGrowth(r))})`,
    growths.length > 1 ? growths.map((growth) => `+${fmtBytes(growth)}`).join(", ") : "–"
  ])
  const errors = results.filter((r) => r.result.failed > 0).map((r) =>
    `${r.scenario.label}: ${r.result.firstError ?? "?"}`
  )
  const body = [
    table(
      [
        "scenario",
        "sessions",
        "ok",
        "resolve calls (single-flight)",
        "per session",
        "peak sockets",
        "wall",
        "peak RSS (Δ)",
        "peak heapUsed (Δ)",
        "peak heapUsed Δ, each run"
      ],
      rows
    ),
    "",
    `${sends} sends started at once (${burst} in the burst rows; one process per row, \`node --expose-gc\`, ` +
    `forced GCs before the timed part; fresh in-memory cache). Cold "held" = the backend holds a ` +
    `session's first resolve ${coldDelayMs} ms then admits; "waking" = transient \`waking\` with \`retry_after_ms\` ` +
    `until ${coldDelayMs} ms after the first resolve, so a single-flight client makes exactly 2 resolve calls per ` +
    "session (one transient, one ready). Memory sampled every 5 ms; Δ from the heap after the GCs. Peak sockets: " +
    "client connections the platform saw open at once (backend and runtimes share its one origin). \"diag\": " +
    "the floor's sends, each run as one Effect fiber (`runPromise` of `Effect.promise`): what a client whose " +
    "every call is an Effect fiber pays at that concurrency before doing anything of its own; and the least " +
    "such a client can do against ours' cold sessions: a fiber a call (`runPromise`), the calls of a session " +
    "awaiting one `Deferred` that the session's one resolve (raw undici, unvalidated) completes, then the " +
    "floor's send; no budget, retry, validation or span; and the least idiomatic Effect client " +
    "(`sides/idiomatic.ts`): the platform's HttpClient, a span, `Effect.timeoutFail` and a Schema-validated answer " +
    "a call, the calls of a session sharing one `Effect.cached` resolve. " +
    `The rows the targets judge ran ${repeats} time(s) each, in rounds (\`BENCH_PEAK_REPEATS\`): each shows its ` +
    "run with the median peak heap growth, and every run's growth in the last column.",
    ...(errors.length > 0 ? ["", "Failures: " + errors.join("; ")] : [])
  ].join("\n")
  const oursCold = results.filter((r) =>
    r.scenario.client === "ours" && !r.scenario.warm && r.scenario.mode !== "ready"
  )
  const pick = (client: Scenario["client"], role: Scenario["role"]) =>
    results.find((r) =>
      r.scenario.client === client && r.scenario.role === role && r.scenario.connections === (
          client === "ours" ? undefined : limit
        )
    )
  const diagBars = (role: Scenario["role"]) =>
    [
      { label: "the least Effect client", row: pick("effect-minimal", role) },
      { label: "the least idiomatic Effect client", row: pick("effect-idiomatic", role) },
      { label: "floor, each send an Effect fiber", row: pick("floor-in-effect", role) }
    ].flatMap(({ label, row }) => row === undefined ? [] : [{ label, value: heapGrowth(row.result) }])
  // Issue 30's bound for the peak-heap rows: 2× the least Effect client's growth in the same scenario.
  const leastGrowth = (role: Scenario["role"]) => {
    const least = pick("effect-minimal", role)
    return least === undefined ? undefined : heapGrowth(least.result)
  }
  const leastBound = (role: Scenario["role"]) => {
    const least = leastGrowth(role)
    return least === undefined ? undefined : { label: "2× least Effect", value: 2 * least }
  }
  const againstLeast = (role: Scenario["role"], what: string, ours: number, floor: number, failed: number): Target => {
    const least = leastGrowth(role)
    const bound = leastBound(role)
    const idiomatic = pick("effect-idiomatic", role)
    const figure = least === undefined
      ? `+${fmtBytes(ours)} (the least Effect client not measured; raw undici +${fmtBytes(floor)})`
      : `+${fmtBytes(ours)} vs +${fmtBytes(least)} (raw undici +${fmtBytes(floor)})`
    return {
      target: `${what}: peak heap growth ÷ the least Effect client's`,
      met: bound === undefined ? undefined : failed === 0 && ours <= bound.value,
      detail: figure,
      figure,
      goal: "≤ 2× it",
      ratio: ours / (bound?.value ?? NaN),
      ...(idiomatic === undefined || bound === undefined ? {} : {
        reference: referenceOf(`+${fmtBytes(heapGrowth(idiomatic.result))}`, heapGrowth(idiomatic.result) / bound.value)
      })
    }
  }
  const targets: Array<Target> = []
  const callersOurs = pick("ours", "cold-callers")
  const callersFloor = pick("floor", "cold-callers")
  if (callersOurs !== undefined && callersFloor !== undefined) {
    const ours = heapGrowth(callersOurs.result)
    const floor = heapGrowth(callersFloor.result)
    const n = callersOurs.scenario.sends ?? sends
    targets.push(
      againstLeast(
        "cold-callers",
        `${n} concurrent callers of one cold session`,
        ours,
        floor,
        callersOurs.result.failed
      ),
      {
        target: `${n} concurrent callers of one cold session: peak heap growth`,
        met: callersOurs.result.failed === 0 && ours <= 30 * 1024 * 1024,
        detail: `+${fmtBytes(ours)}`,
        figure: `+${fmtBytes(ours)}`,
        goal: "≤ 30 MiB",
        ratio: ours / (30 * 1024 * 1024)
      },
      {
        target: `${n} concurrent callers of one cold session: resolve sequences`,
        met: callersOurs.result.resolves === 1 && callersOurs.result.failed === 0,
        detail: `${callersOurs.result.resolves} resolve(s)`,
        figure: `${callersOurs.result.resolves} resolve(s)`,
        goal: "exactly 1",
        ratio: callersOurs.result.resolves
      }
    )
  }
  const burstOurs = pick("ours", "burst")
  const burstFloor = pick("floor", "burst")
  if (burstOurs !== undefined && burstFloor !== undefined) {
    const ours = heapGrowth(burstOurs.result)
    const floor = heapGrowth(burstFloor.result)
    targets.push(
      againstLeast("burst", `${burst} concurrent sends to ${many} sessions`, ours, floor, burstOurs.result.failed),
      {
        target: `${burst} concurrent sends to ${many} sessions: open sockets`,
        met: limit === undefined ? burstOurs.result.peakSockets >= burst : burstOurs.result.peakSockets <= limit,
        detail: `peak ${burstOurs.result.peakSockets}`,
        figure: `peak ${burstOurs.result.peakSockets}`,
        goal: limit === undefined ? `no limit: ≥ ${burst}, a connection per send in flight` : `≤ the limit (${limit})`,
        ratio: limit === undefined ? burst / burstOurs.result.peakSockets : burstOurs.result.peakSockets / limit
      }
    )
  }
  targets.push({
    target: "one resolution per cold session under any concurrency",
    met: oursCold.length === 0
      ? undefined
      : oursCold.every((r) => r.result.resolves === r.scenario.expectedResolves && r.result.failed === 0),
    detail: oursCold.length === 0
      ? "SDK not built"
      : oursCold.map((r) => `${r.result.resolves}/${r.scenario.expectedResolves}`).join(", "),
    figure: oursCold.map((r) => `${r.result.resolves}/${r.scenario.expectedResolves}`).join(", "),
    goal: "resolves = expected, every row"
  })
  const chart = [
    ...(callersOurs !== undefined && callersFloor !== undefined
      ? [{
        title: `peak heap growth, ${callersOurs.scenario.sends ?? sends} callers of one cold session`,
        unit: "bytes" as const,
        bars: [
          { label: "ours", value: heapGrowth(callersOurs.result) },
          ...diagBars("cold-callers"),
          { label: "floor", value: heapGrowth(callersFloor.result) }
        ],
        limit: leastBound("cold-callers")
      }]
      : []),
    ...(burstOurs !== undefined && burstFloor !== undefined
      ? [{
        title: `peak heap growth, burst of ${burst} sends to ${many} sessions`,
        unit: "bytes" as const,
        bars: [
          { label: "ours", value: heapGrowth(burstOurs.result) },
          ...diagBars("burst"),
          { label: "floor", value: heapGrowth(burstFloor.result) }
        ],
        limit: leastBound("burst")
      }]
      : [])
  ]
  return {
    id: "concurrency",
    title: `2. Concurrency (${sends} concurrent sends; bursts of ${burst})`,
    body,
    data: results,
    targets,
    chart
  }
}

/**
 * The burst (5,000 concurrent sends to 100 cold sessions, one process per row) through ours at several
 * per-origin limits, and raw undici without one: what chose the Node layer's default.
 */
export const connectionLimit = async (ctx: BenchContext): Promise<Section> => {
  if (!ctx.sdkAvailable) {
    return {
      id: "connection-limit",
      title: "2b. Connection limit",
      body: "SDK not built.",
      data: undefined,
      targets: []
    }
  }
  const burst = ctx.short ? 300 : 5000
  const many = ctx.short ? 10 : 100
  const limits = ctx.short ? [16] : [16, 32, 64, 128, 256, 100_000]
  const repeats = ctx.short ? 1 : Number(process.env.BENCH_LIMIT_REPEATS ?? 2)
  const defaults = { sends: burst, coldDelayMs: 200, retryAfterMs: 250 }
  const results: Array<{ client: "ours" | "floor"; limit: number; runs: Array<ConcurrencyResult> }> = []
  for (const client of ["floor", "ours"] as const) {
    for (const limit of limits) {
      const runs: Array<ConcurrencyResult> = []
      for (let i = 0; i < repeats; i++) {
        runs.push(
          await runScenario(ctx, {
            label: `${client}, limit ${limit}`,
            client,
            mode: "ready",
            sessions: many,
            warm: client === "floor",
            expectedResolves: client === "floor" ? 0 : many,
            connections: limit
          }, defaults)
        )
      }
      results.push({ client, limit, runs })
    }
  }
  const med = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN
  const rows = results.map(({ client, limit, runs }) => [
    client === "ours" ? "ours (cold cache)" : "floor: raw undici (access known)",
    limit >= 100_000 ? "none (100,000)" : String(limit),
    `${runs.reduce((n, r) => n + r.ok, 0)}/${runs.reduce((n, r) => n + r.ok + r.failed, 0)}`,
    String(Math.max(...runs.map((r) => r.peakSockets))),
    runs.map((r) => fmtMs(r.wallMs)).join(", "),
    `+${fmtBytes(med(runs.map(heapGrowth)))}`,
    runs.map((r) => `+${fmtBytes(heapGrowth(r))}`).join(", "),
    `+${fmtBytes(med(runs.map((r) => r.memory.peakRss - r.memory.baselineRss)))}`
  ])
  const body = [
    table(
      [
        "client",
        "limit per origin",
        "ok",
        "peak sockets",
        "wall (each run)",
        "peak heap Δ (median)",
        "each run",
        "peak RSS Δ"
      ],
      rows
    ),
    "",
    `${burst} concurrent sends to ${many} sessions at each per-origin limit, ${repeats} run(s) each, one process per ` +
    "run (`node --expose-gc`): ours from a cold cache (mode `ready`: one resolve per session) with " +
    "`maxConnectionsPerOrigin`, and raw undici (access known, no resolve) with `Agent({ connections })`: what the " +
    "pool limit itself does to the burst."
  ]
  return {
    id: "connection-limit",
    title: `2b. Connection limit: a burst of ${burst} sends at several per-origin limits`,
    body: body.join("\n"),
    data: results,
    targets: []
  }
}
