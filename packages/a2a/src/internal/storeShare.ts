/**
 * What a runtime-access store may cost a call (SPEC §6): each operation at most a tenth of the time left before
 * the deadline of the call it serves. A store that stalls past it is a miss, or a write skipped; the call goes
 * on. The calls publish their deadline in {@link storeDeadline}; the cache over a store reads it.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { identity, type LazyArg } from "effect/Function"

/**
 * The clock millis the current store operation must leave time before; none outside a call (an endless share).
 *
 * @internal
 */
export const storeDeadline: FiberRef.FiberRef<number> = FiberRef.unsafeMake(Number.POSITIVE_INFINITY)

/** @internal */
export const storeShareDivisor = 10

/**
 * `operation` within its share of the time left before {@link storeDeadline}, else `onStall()`. A stalled
 * operation is interrupted in the background, so a store that cannot be interrupted does not hold the call.
 *
 * @internal
 */
export const withinStoreShare = <A>(operation: Effect.Effect<A>, onStall: LazyArg<A>): Effect.Effect<A> =>
  Effect.flatMap(FiberRef.get(storeDeadline), (deadlineMillis) =>
    Effect.clockWith((clock) => {
      const left = Math.max(0, deadlineMillis - clock.unsafeCurrentTimeMillis())
      return Effect.timeoutTo(Effect.disconnect(operation), {
        duration: Duration.millis(left / storeShareDivisor),
        onTimeout: onStall,
        onSuccess: identity
      })
    }))
