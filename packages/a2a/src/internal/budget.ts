/**
 * One budget per call (SPEC §5): the whole composed call (discovery, resolution, the transient wait, each
 * request and its whole answer) runs within the call's deadlines (`deadlines.ts`), its total and the phase
 * limits of each exchange. The budget's boundary is where every error of a call gets the call's own ids,
 * and where the call holds its session's shared state.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { A2AError } from "../A2AError.js"
import { type Call, callAt, type CallOptions, type CallTimeout, stamp } from "./callContext.js"
import { type CallContext, callContext, type ClientEnv } from "./clientEnv.js"
import { withinDeadlines } from "./deadlines.js"

/**
 * `effect` within the call's total budget, its errors stamped with the call's ids.
 *
 * @internal
 */
export const withinBudget = <A, E extends A2AError, R>(
  call: Call,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | CallTimeout, R> => Effect.mapError(withinDeadlines(call, effect), (error) => stamp(call, error))

/**
 * Runs `use` as a new call of the client within the call's total budget, holding its session's shared
 * state from start to end.
 *
 * @internal
 */
export const withinCallBudget = <A, E extends A2AError, R>(
  env: ClientEnv,
  options: CallOptions,
  use: (call: CallContext) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | CallTimeout, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => env.sessions.acquire(options.agentSessionUid)),
    (session) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const call = callContext(env, callAt(options, session, now))
        return withinBudget(call, use(call))
      }),
    (session) => Effect.sync(() => env.sessions.release(options.agentSessionUid, session))
  )
