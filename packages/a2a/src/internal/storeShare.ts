/**
 * What a runtime-access store may cost a call (SPEC §6): each operation at most a tenth of the time left before
 * the deadline of the call it serves. A store that stalls past it is a miss, or a write skipped; the call goes
 * on.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { identity, type LazyArg } from "effect/Function"

/** @internal */
export const storeShareDivisor = 10

/**
 * `operation` within its share of the time left before `deadlineMillis` (clock millis), else `onStall()`. A
 * stalled operation is interrupted in the background, so a store that cannot be interrupted does not hold the
 * call.
 *
 * @internal
 */
export const withinStoreShare = <A>(
  deadlineMillis: number,
  operation: Effect.Effect<A>,
  onStall: LazyArg<A>
): Effect.Effect<A> =>
  Effect.clockWith((clock) => {
    const left = Math.max(0, deadlineMillis - clock.unsafeCurrentTimeMillis())
    return Effect.timeoutTo(Effect.disconnect(operation), {
      duration: Duration.millis(left / storeShareDivisor),
      onTimeout: onStall,
      onSuccess: identity
    })
  })
