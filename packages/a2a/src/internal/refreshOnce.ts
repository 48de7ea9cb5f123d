/**
 * Step 5 (SPEC §1.5): on a runtime 401/403, drop the cached access, resolve fresh access (steps 2–3, same
 * budget) and send once more. A second 401/403 is a `RuntimeAuthError`. Nothing else is retried.
 */
import * as Effect from "effect/Effect"
import { RuntimeAuthError } from "../A2AError.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import type { Call } from "./budget.js"
import { RuntimeCredentialsRejected } from "./httpErrors.js"

const isRejected = (u: unknown): u is RuntimeCredentialsRejected => u instanceof RuntimeCredentialsRejected

/** @internal */
export const refreshOnce = <A, E, R, E2, R2>(options: {
  readonly call: Call
  readonly access: RuntimeAccessCache.CachedRuntimeAccess
  /** Drops the rejected cached access and resolves fresh access. */
  readonly refresh: (
    rejected: RuntimeAccessCache.CachedRuntimeAccess
  ) => Effect.Effect<RuntimeAccessCache.CachedRuntimeAccess, E2, R2>
  /** One attempt with the given access; every attempt must send identical bytes. */
  readonly attempt: (
    access: RuntimeAccessCache.CachedRuntimeAccess,
    attempt: number
  ) => Effect.Effect<A, E | RuntimeCredentialsRejected, R>
}): Effect.Effect<A, E | E2 | RuntimeAuthError, R | R2> =>
  options.attempt(options.access, 1).pipe(
    Effect.catchIf(isRejected, () =>
      Effect.flatMap(options.refresh(options.access), (fresh) =>
        options.attempt(fresh, 2).pipe(
          Effect.catchIf(isRejected, ({ answer }) =>
            Effect.fail(
              new RuntimeAuthError({
                agentSessionUid: options.call.agentSessionUid,
                messageId: options.call.messageId,
                method: answer.method,
                url: answer.url,
                status: answer.status
              })
            ))
        )))
  )
