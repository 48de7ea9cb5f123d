/**
 * The session's transient wait as its leader records it, and the calls it sends away: a joined call leaves as
 * soon as the wait's next resolve no longer fits in its budget (as it would have, leading the wait itself).
 * The leader fails them where it records the wait, so a waiting call needs no fiber of its own to watch it.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { notReadyError } from "./budget.js"
import type { Call, JoinedCall, SessionWait, SharedSession } from "./callContext.js"

/**
 * Whether the wait sends this call away: its next resolve is at or after the call's deadline. Never an
 * abandoned wait: it is no one's until a call takes it over, and a call still about to lead must not leave by it.
 *
 * @internal
 */
export const outlives = (wait: SessionWait, call: Call): boolean =>
  wait.abandoned !== true && wait.retryAtMillis >= call.deadlineMillis

/**
 * The call's own `AgentRuntimeNotReadyError` for a wait that outlives it.
 *
 * @internal
 */
export const leaveBy = (wait: SessionWait, call: Call) =>
  Effect.map(Clock.currentTimeMillis, (now) => notReadyError(call, wait.transient, call.deadlineMillis - now))

/**
 * Records the session's wait; one that is not abandoned fails at once every joined call it outlives.
 *
 * @internal
 */
export const recordWait = (session: SharedSession, wait: Option.Option<SessionWait>): Effect.Effect<void> =>
  Effect.zipRight(
    Ref.set(session.wait, wait),
    Option.match(wait, {
      onNone: () => Effect.void,
      onSome: (recorded) =>
        Effect.flatMap(
          Effect.sync(() => {
            const outlived: Array<JoinedCall> = []
            for (const joined of session.joined) {
              if (outlives(recorded, joined.call)) {
                session.joined.delete(joined)
                outlived.push(joined)
              }
            }
            return outlived
          }),
          (outlived) =>
            Effect.forEach(
              outlived,
              (joined) => Effect.flatMap(leaveBy(recorded, joined.call), (error) => Deferred.fail(joined.left, error)),
              { discard: true }
            )
        )
    })
  )
