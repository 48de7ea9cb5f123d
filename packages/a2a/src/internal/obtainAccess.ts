/**
 * Steps 2–3 (SPEC §1.2–3, §6): a valid cached access, else the session's one shared resolution (and
 * transient wait), each call's own budget deciding when it leaves that wait or takes it over.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Equivalence from "effect/Equivalence"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import { awaitAdmission, outlivedByWait } from "./awaitAdmission.js"
import type { CallContext } from "./callContext.js"

type Access = RuntimeAccessCache.CachedRuntimeAccess
type Outcome = Exit.Exit<Access, RuntimeAccessCache.ResolveError>

const sameToken = Redacted.getEquivalence(Equivalence.string)

/**
 * Whether the runtime already rejected this access's token for the session.
 *
 * @internal
 */
export const wasRejected = (ctx: CallContext, access: Access): Effect.Effect<boolean> =>
  Effect.map(Ref.get(ctx.session.rejectedTokens), (tokens) => tokens.some((token) => sameToken(token, access.token)))

// The leader's own budget ended its run, not the session's resolution: a joined call takes over.
const leaderOutOfBudget = (exit: Outcome) =>
  Exit.isInterrupted(exit) ||
  (Exit.isFailure(exit) &&
    Option.exists(Cause.failureOption(exit.cause), (error) => error._tag === "AgentRuntimeNotReadyError"))

/**
 * Leads a new resolution (`takingOver`: resumes the wait another call left), or joins the one under way:
 * a joined call leaves when the wait's next resolve no longer fits its budget, and takes over when the
 * leader's budget ended it.
 */
const resolveShared = (
  ctx: CallContext,
  fresh: boolean,
  takingOver: boolean
): Effect.Effect<Access, RuntimeAccessCache.ResolveError> =>
  Effect.uninterruptibleMask((restore) =>
    SynchronizedRef.modifyEffect(ctx.session.flight, (running) => {
      if (Option.isSome(running)) {
        const join = restore(
          Effect.flatMap(
            Effect.raceFirst(Effect.exit(Deferred.await(running.value)), outlivedByWait(ctx)),
            (exit) => leaderOutOfBudget(exit) ? resolveShared(ctx, false, true) : exit
          )
        )
        return Effect.succeed([join, running] as const)
      }
      const cached = fresh ? Effect.succeedNone : ctx.cache.get(ctx.key)
      return Effect.flatMap(
        cached,
        Option.match({
          onSome: (access) => Effect.succeed([Effect.succeed(access), running] as const),
          onNone: () =>
            Effect.map(Deferred.make<Access, RuntimeAccessCache.ResolveError>(), (flight) => {
              const end = (exit: Outcome) =>
                SynchronizedRef.update(
                  ctx.session.flight,
                  (current) => Option.isSome(current) && current.value === flight ? Option.none() : current
                ).pipe(Effect.zipRight(Deferred.done(flight, exit)))
              const lead = restore(
                awaitAdmission(ctx, takingOver).pipe(
                  Effect.flatMap(RuntimeAccessCache.fromAdmitted),
                  Effect.tap((access) =>
                    // The backend handed this token out again after the runtime rejected it: its word is newer.
                    Effect.zipRight(
                      Ref.update(ctx.session.rejectedTokens, (tokens) =>
                        tokens.filter((t) => !sameToken(t, access.token))),
                      ctx.cache.set(ctx.key, access)
                    )
                  )
                )
              ).pipe(Effect.onExit(end))
              return [lead, Option.some(flight)] as const
            })
        })
      )
    }).pipe(Effect.flatten)
  )

/**
 * A valid cached access whose token the runtime has not rejected, else fresh access from the session's one
 * shared resolution. `fresh` skips the cache.
 *
 * @internal
 */
export const obtainAccess = (
  ctx: CallContext,
  fresh: boolean
): Effect.Effect<Access, RuntimeAccessCache.ResolveError> =>
  fresh
    ? resolveShared(ctx, true, false)
    : Effect.flatMap(ctx.cache.get(ctx.key), (cached) =>
      Option.isSome(cached)
        ? Effect.flatMap(
          wasRejected(ctx, cached.value),
          (rejected) => rejected ? resolveShared(ctx, true, false) : Effect.succeed(cached.value)
        )
        : resolveShared(ctx, false, false))
