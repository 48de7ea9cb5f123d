/**
 * Task (own process): a whole budget played on the simulated clock. A session of `@mainsequence/a2a-testing`'s
 * simulated platform stays transient (`waking`, `retry_after_ms`) for ever; `sendA2AMessage` re-resolves
 * every `retry_after_ms` until the next wait no longer fits the budget and fails with
 * `AgentRuntimeNotReadyError`. Driven either by one `TestClock.adjust(budget)` or by
 * `SimulatedTime.play`. Reports wall time and the process CPU time over the same span (wall − CPU ≈ time
 * spent idle, e.g. in TestClock's `setTimeout(0)` suspension probes), and the same for a bare loop of as many
 * sleeps with nothing else: the floor of each driver per wake-up.
 */
import { A2AClient, RuntimeAccessCache } from "@mainsequence/a2a"
import { layerTest, SimulatedPlatform, SimulatedTime } from "@mainsequence/a2a-testing"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"

/** How the clock is moved: one `TestClock.adjust(budget)`, or `SimulatedTime.play`. */
export type Driver = "adjust" | "play"

export interface SimulatedTimeArgs {
  readonly runs: number
  readonly retryAfterMs: number
  /** The call's timeout; undefined = the default [5, 900] (905 s). */
  readonly timeoutSeconds: number | undefined
}

export interface SimulatedTimeRun {
  readonly wallMs: number
  readonly cpuMs: number
  readonly error: string
  readonly resolves: number
  readonly simulatedMs: number
}

export interface SimulatedTimeResult {
  /** The SDK's re-resolve loop, per driver. */
  readonly runs: Record<Driver, ReadonlyArray<SimulatedTimeRun>>
  /** The floor: as many bare `Effect.sleep(retryAfterMs)` wake-ups in a row and nothing else, per driver. */
  readonly bare: Record<Driver, ReadonlyArray<BareRun>>
}

export interface BareRun {
  readonly wallMs: number
  readonly cpuMs: number
  readonly wakeUps: number
}

const sessionUid = "0b2701a1-e777-4cfe-8437-b94025f00069"

const clientLayer = (args: SimulatedTimeArgs) => {
  const layer = A2AClient.layer({
    backendUrl: SimulatedPlatform.defaultBaseUrl,
    accessToken: SimulatedPlatform.defaultUserAccessToken
  }).pipe(
    Layer.provideMerge(Layer.merge(
      layerTest({
        sessions: [{
          sessionUid,
          agentUid: "5c1d7e2a-3b4f-4a6c-9d8e-1f2a3b4c5d6e",
          serviceUid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
          access: { _tag: "StuckTransient", state: "waking", retryAfterMs: args.retryAfterMs }
        }]
      }),
      RuntimeAccessCache.layerMemory
    )),
    Layer.orDie
  )
  return layer
}

const budgetSeconds = (args: SimulatedTimeArgs) => args.timeoutSeconds ?? 905

const send = (a2a: A2AClient.A2AClient["Type"], args: SimulatedTimeArgs) =>
  Effect.flip(a2a.sendA2AMessage(sessionUid, {
    message: "hi",
    ...(args.timeoutSeconds === undefined ? {} : { timeout: args.timeoutSeconds })
  }))

const measured = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const t0 = performance.now()
    const cpu0 = process.cpuUsage()
    const value = yield* effect
    const wallMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    return { value, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 }
  })

const report = (wallMs: number, cpuMs: number, error: string) =>
  Effect.gen(function*() {
    const platform = yield* SimulatedPlatform.SimulatedPlatform
    const counters = yield* platform.counters
    return {
      wallMs,
      cpuMs,
      error,
      resolves: counters.resolveCalls[sessionUid] ?? 0,
      simulatedMs: yield* TestClock.currentTimeMillis
    }
  })

/** One `TestClock.adjust` of the whole budget drives the send (layers already built). */
const adjusted = (args: SimulatedTimeArgs) =>
  Effect.gen(function*() {
    const a2a = yield* A2AClient.A2AClient
    const started = yield* Deferred.make<boolean>()
    const t0 = performance.now()
    const cpu0 = process.cpuUsage()
    const fiber = yield* Effect.fork(Effect.zipRight(Deferred.succeed(started, true), send(a2a, args)))
    yield* Deferred.await(started)
    yield* TestClock.adjust(`${budgetSeconds(args)} seconds`)
    const error = yield* Fiber.join(fiber)
    const wallMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    return yield* report(wallMs, (cpu.user + cpu.system) / 1000, error._tag)
  }).pipe(Effect.provide(clientLayer(args)), Effect.provide(TestContext.TestContext))

/** `SimulatedTime.play` drives the send; the layers are built inside it (outside the measured span). */
const played = (args: SimulatedTimeArgs) =>
  SimulatedTime.play(
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const { cpuMs, value: error, wallMs } = yield* measured(send(a2a, args))
      return yield* report(wallMs, cpuMs, error._tag)
    }).pipe(Effect.provide(clientLayer(args)))
  ).pipe(Effect.provide(TestContext.TestContext))

const bareSleeps = (args: SimulatedTimeArgs, wakeUps: number) =>
  Effect.repeatN(Effect.sleep(args.retryAfterMs), wakeUps - 1)

/** TestClock's own cost: bare sleeps woken by one `TestClock.adjust`, or by `SimulatedTime.play`. */
const bare = (args: SimulatedTimeArgs, driver: Driver, wakeUps: number): Effect.Effect<BareRun> =>
  (driver === "adjust"
    ? measured(Effect.gen(function*() {
      const fiber = yield* Effect.fork(bareSleeps(args, wakeUps))
      yield* TestClock.adjust(wakeUps * args.retryAfterMs)
      yield* Fiber.join(fiber)
    }))
    : measured(SimulatedTime.play(bareSleeps(args, wakeUps)))).pipe(
      Effect.map(({ cpuMs, wallMs }) => ({ wallMs, cpuMs, wakeUps })),
      Effect.provide(TestContext.TestContext)
    )

export const run = async (args: SimulatedTimeArgs): Promise<SimulatedTimeResult> => {
  const runs: Record<Driver, Array<SimulatedTimeRun>> = { adjust: [], play: [] }
  const bareRuns: Record<Driver, Array<BareRun>> = { adjust: [], play: [] }
  for (let i = 0; i < args.runs; i++) {
    runs.adjust.push(await Effect.runPromise(adjusted(args)))
    runs.play.push(await Effect.runPromise(played(args)))
    // As many wake-ups as the SDK's loop had.
    const wakeUps = Math.max(1, runs.adjust[i]?.resolves ?? 1)
    bareRuns.adjust.push(await Effect.runPromise(bare(args, "adjust", wakeUps)))
    bareRuns.play.push(await Effect.runPromise(bare(args, "play", wakeUps)))
  }
  return { runs, bare: bareRuns }
}
