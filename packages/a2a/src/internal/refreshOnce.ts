/**
 * Step 5 (SPEC §1.5, §6) around steps 2–4, which the caller hands in: obtain access and send; on a runtime
 * 401/403 drop the rejected access, obtain fresh access (same budget, skipping the cache) and send once more.
 * A second 401/403 drops that access too and is a `RuntimeAuthError`. Nothing else is retried, and no call
 * sends with a token the runtime already rejected for the session. A runtime that cannot be reached drops the
 * access too (its address may be stale), so that the next call resolves again.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { RuntimeAuthError } from "../A2AError.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import { beginAttempt, forgetAdmitted, rememberRejected, sameToken, spanAttributes } from "./callContext.js"
import type { CallContext } from "./clientEnv.js"
import { serverUnreachable } from "./exchange.js"
import type { RuntimeRejected } from "./sendToRuntime.js"
import { usableCachedAccess, wasRejected } from "./sessionResolution.js"
import * as Telemetry from "./telemetry.js"

type Access = RuntimeAccessCache.CachedRuntimeAccess

/**
 * Steps 2–3 and 4 as `refreshOnce` runs them.
 *
 * @internal
 */
export interface Attempts<A, E> {
  /** Steps 2–3: a usable access; `fresh` skips the cache (the cached one was rejected). */
  readonly obtainAccess: (fresh: boolean) => Effect.Effect<Access, RuntimeAccessCache.ResolveError>
  /** Step 4: one attempt with the given access; every attempt sends identical bytes. */
  readonly send: (access: Access) => Effect.Effect<A, E | RuntimeRejected>
}

/** Drops the cached access if it still holds `access`'s token (another call may have replaced it). */
const forget = (ctx: CallContext, access: Access) =>
  Effect.flatMap(
    ctx.cache.get(ctx.key, ctx.deadlineMillis),
    (current) =>
      Option.isNone(current) || sameToken(current.value.token, access.token)
        ? ctx.cache.invalidate(ctx.key, ctx.deadlineMillis)
        : Effect.void
  )

/** A runtime that cannot be reached: no call takes the session's last admitted access without resolving again. */
const forgetUnreachable = (ctx: CallContext, access: Access) =>
  Effect.suspend(() => {
    forgetAdmitted(ctx.session)
    return forget(ctx, access)
  })

/** Remembers the rejected token and drops the cached access if it still holds it. */
const drop = (ctx: CallContext, rejected: Access) =>
  Effect.suspend(() => {
    rememberRejected(ctx.session, rejected.token)
    return forget(ctx, rejected)
  })

/** Fresh access after `rejected`: another call's replacement when there is one, else a fresh resolution. */
const replace = (ctx: CallContext, obtainAccess: Attempts<unknown, unknown>["obtainAccess"], rejected: Access) =>
  Effect.gen(function*() {
    yield* drop(ctx, rejected)
    // Another call already replaced the rejected access: use its fresh one instead of resolving again.
    const replaced = yield* usableCachedAccess(ctx, ctx.deadlineMillis)
    return Option.isSome(replaced) ? replaced.value : yield* obtainAccess(true)
  }).pipe(
    Effect.tap(() => Telemetry.count(Telemetry.credentialRefreshes, { "a2a.client.peer": "runtime" })),
    Effect.withSpan("a2a.client.refresh_credentials", { attributes: spanAttributes(ctx) })
  )

/** @internal */
export const refreshOnce = <A, E>(
  ctx: CallContext,
  { obtainAccess, send }: Attempts<A, E>
): Effect.Effect<A, E | RuntimeAccessCache.ResolveError | RuntimeAuthError> =>
  Effect.gen(function*() {
    const sendWith = (access: Access) =>
      send(access).pipe(
        Effect.tapError((error) => serverUnreachable(error) ? forgetUnreachable(ctx, access) : Effect.void)
      )
    yield* beginAttempt(ctx)
    const cached = yield* obtainAccess(false)
    // A token another call saw rejected since this call obtained it is not sent again.
    const first = wasRejected(ctx.session, cached) ? yield* replace(ctx, obtainAccess, cached) : cached
    return yield* sendWith(first).pipe(
      Effect.catchIf(isRejected, () =>
        Effect.flatMap(replace(ctx, obtainAccess, first), (fresh) =>
          sendWith(fresh).pipe(
            Effect.catchIf(isRejected, ({ answer }) =>
              Effect.zipRight(
                drop(ctx, fresh),
                Effect.fail(new RuntimeAuthError({ method: answer.method, url: answer.url, status: answer.status }))
              ))
          )))
    )
  })

const isRejected = <E>(error: E | RuntimeRejected): error is RuntimeRejected =>
  Predicate.isTagged(error, "RuntimeRejected")
