/**
 * The phase limits of one exchange (SPEC §5 `[connect, read]`) as one deadline that moves while the exchange
 * progresses, watched by one sleeping fiber raced against the exchange: the head is due within connect + read
 * of the request, or within read once the connection is up; then each body chunk within read of the last.
 * One watcher per exchange, rather than a race per phase and per chunk: each race forks fibers, and races
 * around every chunk made the limits most of a warm send's CPU (docs/BENCHMARKS.md, "phase limits").
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * A phase limit ran out; the exchange turns it into the call's timeout error.
 *
 * @internal
 */
export class PhaseExpired extends Data.TaggedError("PhaseExpired")<{
  readonly limit: "read" | "response-head"
  readonly seconds: number
}> {}

/**
 * What the exchange reports to its limits.
 *
 * @internal
 */
export interface PhaseProgress {
  /** The connection is up, or bytes of the answer arrived: the next are due within read. Synchronous. */
  readonly progressed: () => void
}

/**
 * Runs `use` under the limits; it fails with {@link PhaseExpired} (and is interrupted) when the current
 * phase's deadline passes on the fiber's `Clock`.
 *
 * @internal
 */
export const withinPhaseLimits = <A, E, R>(
  limits: { readonly connect: Duration.Duration; readonly read: Duration.Duration },
  use: (progress: PhaseProgress) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | PhaseExpired, R> =>
  Effect.clockWith((clock) => {
    const read = Duration.toMillis(limits.read)
    const head = Duration.sum(limits.connect, limits.read)
    let limit: PhaseExpired["limit"] = "response-head"
    let deadline = clock.unsafeCurrentTimeMillis() + Duration.toMillis(head)
    const progressed = () => {
      limit = "read"
      deadline = clock.unsafeCurrentTimeMillis() + read
    }
    const watch: Effect.Effect<never, PhaseExpired> = Effect.suspend(() => {
      const left = deadline - clock.unsafeCurrentTimeMillis()
      // Never asleep longer than read: when the connection comes up, the deadline moves earlier, to
      // read from then, and the next look is still at or before it.
      if (left > 0) return Effect.zipRight(clock.sleep(Duration.millis(Math.min(left, read))), watch)
      const seconds = Duration.toSeconds(limit === "read" ? limits.read : head)
      return Effect.fail(new PhaseExpired({ limit, seconds }))
    })
    return Effect.raceFirst(use({ progressed }), watch)
  })
