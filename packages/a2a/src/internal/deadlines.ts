/**
 * A call's deadlines on its `Clock` (SPEC §5), watched by one sleeping fiber raced against the call: the
 * total, and while an exchange runs, its phase limit, which moves as the exchange progresses: the head within
 * connect + read of the request, or within read once the connection is up; then each body chunk within read
 * of the last. One watcher per call rather than a timeout per call and a race per exchange: each race forks
 * two fibers (docs/BENCHMARKS.md, "Deadlines").
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type Call, type CallTimeout, type PhaseDeadline, setPhase, timeoutErrorAt } from "./callContext.js"

/**
 * What an exchange reports to its phase limits.
 *
 * @internal
 */
export interface PhaseProgress {
  /** The connection is up, or bytes of the answer arrived: the next are due within read. Synchronous. */
  readonly progressed: () => void
}

const unlimited: PhaseProgress = { progressed: () => {} }

/**
 * Runs one exchange of `call` in its phases: `use` reports its progress, and the call's watcher ends the
 * call when the current phase's deadline passes. A budget that is not a `[connect, read]` pair has none.
 *
 * @internal
 */
export const withinPhaseLimits = <A, E, R>(
  call: Call,
  use: (progress: PhaseProgress) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const { connect, read } = call.budget
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent: a budget has both limits or neither
  if (connect === undefined || read === undefined) return use(unlimited)
  return Effect.clockWith((clock) => {
    const head = Duration.toMillis(connect) + Duration.toMillis(read)
    const phase: PhaseDeadline = { limit: "response-head", deadlineMillis: clock.unsafeCurrentTimeMillis() + head }
    setPhase(call, phase)
    const progressed = () => {
      phase.limit = "read"
      phase.deadlineMillis = clock.unsafeCurrentTimeMillis() + Duration.toMillis(read)
    }
    return Effect.ensuring(use({ progressed }), Effect.sync(() => setPhase(call, undefined)))
  })
}

/**
 * Whether one of `call`'s deadlines has passed at clock millis `now`: its total, or its exchange's phase limit.
 *
 * @internal
 */
export const deadlinePassed = (call: Call, now: number): boolean =>
  now >= call.deadlineMillis || (call.phase !== undefined && now >= call.phase.deadlineMillis)

/**
 * Fails with the call's timeout error once its total or its exchange's phase limit has passed. Never asleep
 * longer than read: a phase that starts or moves meanwhile ends at least read from then.
 */
const watch = (call: Call): Effect.Effect<never, CallTimeout> =>
  Effect.clockWith((clock) => {
    const read = call.budget.read === undefined ? Number.POSITIVE_INFINITY : Duration.toMillis(call.budget.read)
    const look: Effect.Effect<never, CallTimeout> = Effect.suspend(() => {
      const now = clock.unsafeCurrentTimeMillis()
      const phase = call.phase
      if (phase !== undefined && now >= phase.deadlineMillis) {
        return Effect.fail(timeoutErrorAt(call, phase.limit, now))
      }
      // Stryker disable next-line StringLiteral: equivalent: timeoutErrorAt makes any limit at the deadline total
      if (now >= call.deadlineMillis) return Effect.fail(timeoutErrorAt(call, "total", now))
      const next = Math.min(call.deadlineMillis, phase?.deadlineMillis ?? Number.POSITIVE_INFINITY, now + read)
      return Effect.zipRight(clock.sleep(Duration.millis(next - now)), look)
    })
    return look
  })

/**
 * `effect` within `call`'s deadlines: it is interrupted, and fails with the call's timeout error, when one
 * passes (a session's resolution has no total: only its exchanges' phase limits).
 *
 * @internal
 */
export const withinDeadlines = <A, E, R>(
  call: Call,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | CallTimeout, R> => Effect.raceFirst(effect, watch(call))
