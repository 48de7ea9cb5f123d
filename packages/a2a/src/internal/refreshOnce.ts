/**
 * Step 5 (SPEC §1.5, §6) around steps 2–4, which the caller hands in: obtain access and send; on a runtime
 * 401/403 drop the rejected access, obtain fresh access (same budget, skipping the cache) and send once more.
 * A second 401/403 drops that access too and is a `RuntimeAuthError`. Nothing else is retried, and no call
 * sends with a token the runtime already rejected for the session.
 */
import * as Effect from "effect/Effect"
import * as Equivalence from "effect/Equivalence"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { RuntimeAuthError } from "../A2AError.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import type { CallContext } from "./callContext.js"
import type { HttpAnswer } from "./exchange.js"
import { wasRejected } from "./sessionResolution.js"

type Access = RuntimeAccessCache.CachedRuntimeAccess

const sameToken = Redacted.getEquivalence(Equivalence.string)

/** How many rejected tokens a session remembers. */
const rememberedRejections = 16

/** What a call can fail with once `refreshOnce` is around its attempts. */
type Failure<E> = E | RuntimeAccessCache.ResolveError | RuntimeAuthError

/**
 * Steps 2–3 and 4 as `refreshOnce` runs them.
 *
 * @internal
 */
export interface Attempts<A, E> {
  /** Steps 2–3: a usable access; `fresh` skips the cache (the cached one was rejected). */
  readonly obtainAccess: (fresh: boolean) => Effect.Effect<Access, RuntimeAccessCache.ResolveError>
  /**
   * Step 4: one attempt with the given access; every attempt must send identical bytes. A 401/403 answer
   * goes to `onRejected` (handed to the attempt, so no frame waits around it for a rejection).
   */
  readonly send: (
    access: Access,
    attempt: number,
    onRejected: (answer: HttpAnswer) => Effect.Effect<A, Failure<E>>
  ) => Effect.Effect<A, Failure<E>>
}

/** Remembers the rejected token and drops the cached access if it still holds it. */
const drop = (ctx: CallContext, rejected: Access) =>
  Effect.gen(function*() {
    ctx.session.rejectedTokens = [rejected.token, ...ctx.session.rejectedTokens].slice(0, rememberedRejections)
    const current = yield* ctx.cache.get(ctx.key)
    if (Option.isNone(current) || sameToken(current.value.token, rejected.token)) yield* ctx.cache.invalidate(ctx.key)
  })

/** Fresh access after `rejected`: another call's replacement when there is one, else a fresh resolution. */
const replace = (
  ctx: CallContext,
  obtainAccess: Attempts<unknown, unknown>["obtainAccess"],
  rejected: Access
) =>
  Effect.gen(function*() {
    yield* drop(ctx, rejected)
    const current = yield* ctx.cache.get(ctx.key)
    // Another call already replaced the rejected access: use its fresh one instead of resolving again.
    if (Option.isSome(current) && !wasRejected(ctx.session, current.value)) return current.value
    // Stryker disable next-line BooleanLiteral: a cached entry left is the rejected one, which obtainAccess refuses either way
    return yield* obtainAccess(true)
  })

/** @internal */
export const refreshOnce = <A, E>(
  ctx: CallContext,
  { obtainAccess, send }: Attempts<A, E>
): Effect.Effect<A, Failure<E>> => {
  const attempt = (first: Access) =>
    send(
      first,
      1,
      () =>
        Effect.flatMap(replace(ctx, obtainAccess, first), (fresh) =>
          send(fresh, 2, (answer) =>
            Effect.zipRight(
              drop(ctx, fresh),
              Effect.fail(new RuntimeAuthError({ method: answer.method, url: answer.url, status: answer.status }))
            )))
    )
  return Effect.flatMap(obtainAccess(false), (cached) =>
    // A token another call saw rejected since this call obtained it is not sent again.
    wasRejected(ctx.session, cached) ? Effect.flatMap(replace(ctx, obtainAccess, cached), attempt) : attempt(cached))
}
