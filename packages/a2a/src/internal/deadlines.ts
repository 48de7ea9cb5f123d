/**
 * A call's deadlines on its `Clock` (SPEC §5), watched by one sleeping fiber raced against the call: the
 * total, and while an exchange runs, its phase limit, which moves as the exchange progresses: the head within
 * connect + read of the request, or within read once the connection is up; then each body chunk within read
 * of the last. A call waiting for its session's resolution holds that resolution's exchanges to its own
 * limits. One watcher per call rather than a timeout per call and a race per exchange: each race forks two
 * fibers (docs/BENCHMARKS.md, "Deadlines").
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type Call, type CallTimeout, type ExchangeProgress, setExchange, timeoutErrorAt } from "./callContext.js"

/**
 * What an exchange reports to its phase limits.
 *
 * @internal
 */
export interface PhaseProgress {
  /** The connection is up, or bytes of the answer arrived: the next are due within read. Synchronous. */
  readonly progressed: () => void
}

/**
 * Runs one exchange of `call` in its phases: `use` reports its progress, and the watcher of each call held to
 * its limits (`call` itself, or every call waiting for a session's resolution) ends that call when the phase
 * it is in passes.
 *
 * @internal
 */
export const withinPhaseLimits = <A, E, R>(
  call: Call,
  use: (progress: PhaseProgress) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.clockWith((clock) => {
    const exchange: ExchangeProgress = { startedMillis: clock.unsafeCurrentTimeMillis(), progressedMillis: undefined }
    setExchange(call, exchange)
    const progressed = () => {
      exchange.progressedMillis = clock.unsafeCurrentTimeMillis()
    }
    return Effect.ensuring(use({ progressed }), Effect.sync(() => setExchange(call, undefined)))
  })

/**
 * The phase limit `call` is in and the clock millis it ends at: of its own exchange, or of the one its
 * session's resolution runs while the call waits for it; the head within connect + read of the request, then
 * each progress within read of the last. None without an exchange or without a `[connect, read]` budget.
 */
const phaseOf = (
  call: Call
): { readonly limit: "response-head" | "read"; readonly deadlineMillis: number } | undefined => {
  const exchange = call.exchange ?? call.awaiting?.exchange
  const { connect, read } = call.budget
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent: a budget has both limits or neither
  if (exchange === undefined || connect === undefined || read === undefined) return undefined
  return exchange.progressedMillis === undefined
    ? {
      limit: "response-head",
      deadlineMillis: exchange.startedMillis + Duration.toMillis(Duration.sum(connect, read))
    }
    : { limit: "read", deadlineMillis: exchange.progressedMillis + Duration.toMillis(read) }
}

/**
 * Whether one of `call`'s deadlines has passed at clock millis `now`: its total, or its exchange's phase limit.
 *
 * @internal
 */
export const deadlinePassed = (call: Call, now: number): boolean => {
  const phase = phaseOf(call)
  return now >= call.deadlineMillis || (phase !== undefined && now >= phase.deadlineMillis)
}

/**
 * Fails with the call's timeout error once its total or its exchange's phase limit has passed. Never asleep
 * longer than read: a phase that starts or moves meanwhile ends at least read from then.
 */
const watch = (call: Call): Effect.Effect<never, CallTimeout> =>
  Effect.clockWith((clock) => {
    const read = call.budget.read === undefined ? Number.POSITIVE_INFINITY : Duration.toMillis(call.budget.read)
    const look: Effect.Effect<never, CallTimeout> = Effect.suspend(() => {
      const now = clock.unsafeCurrentTimeMillis()
      const phase = phaseOf(call)
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
 * passes.
 *
 * @internal
 */
export const withinDeadlines = <A, E, R>(
  call: Call,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | CallTimeout, R> => Effect.raceFirst(effect, watch(call))
