/**
 * Task (own process): a whole budget played on the simulated clock. A session of `@mainsequence/a2a-testing`'s
 * simulated platform stays transient (`waking`, `retry_after_ms`) for ever; `sendA2AMessage` re-resolves
 * every `retry_after_ms` until the next wait no longer fits the budget and fails with
 * `AgentRuntimeNotReadyError`. One `TestClock.adjust(budget)` drives it all. Reports wall time and the
 * process CPU time over the same span (wall − CPU ≈ time spent idle, e.g. in TestClock's `setTimeout(0)`
 * suspension probes).
 */
import { A2AClient, RuntimeAccessCache } from "@mainsequence/a2a"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"

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
  readonly runs: ReadonlyArray<SimulatedTimeRun>
}

const sessionUid = "0b2701a1-e777-4cfe-8437-b94025f00069"

const once = (args: SimulatedTimeArgs) => {
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
  const budgetSeconds = args.timeoutSeconds ?? 905
  return Effect.gen(function*() {
    const a2a = yield* A2AClient.A2AClient
    const platform = yield* SimulatedPlatform.SimulatedPlatform
    const started = yield* Deferred.make<boolean>()
    const t0 = performance.now()
    const cpu0 = process.cpuUsage()
    const fiber = yield* Effect.fork(
      Effect.zipRight(
        Deferred.succeed(started, true),
        Effect.flip(a2a.sendA2AMessage(sessionUid, {
          message: "hi",
          ...(args.timeoutSeconds === undefined ? {} : { timeout: args.timeoutSeconds })
        }))
      )
    )
    yield* Deferred.await(started)
    yield* TestClock.adjust(`${budgetSeconds} seconds`)
    const error = yield* Fiber.join(fiber)
    const wallMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    const counters = yield* platform.counters
    const simulatedMs = yield* TestClock.currentTimeMillis
    return {
      wallMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      error: error._tag,
      resolves: counters.resolveCalls[sessionUid] ?? 0,
      simulatedMs
    }
  }).pipe(Effect.provide(layer), Effect.provide(TestContext.TestContext))
}

export const run = async (args: SimulatedTimeArgs): Promise<SimulatedTimeResult> => {
  const runs: Array<SimulatedTimeRun> = []
  for (let i = 0; i < args.runs; i++) runs.push(await Effect.runPromise(once(args)))
  return { runs }
}
