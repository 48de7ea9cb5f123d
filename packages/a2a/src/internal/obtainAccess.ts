/**
 * Steps 2–3 (SPEC §1.2–3, §6): a valid cached access, else the session's one shared resolution (and
 * transient wait), each call's own budget deciding when it leaves that wait or takes it over. The cache's
 * single flight (`getOrResolve`) runs the resolution once per session; the budget policy is this module's.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Equivalence from "effect/Equivalence"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import type { AgentRuntimeNotReadyError } from "../A2AError.js"
import * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import { awaitAdmission } from "./awaitAdmission.js"
import type { CallContext, JoinedCall } from "./callContext.js"
import { leaveBy, outlives, recordWait } from "./sessionWait.js"

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
 * The session's resolution as this call leads it (`takingOver`: resuming the wait another call left). Its
 * end, whatever it is, marks the wait abandoned and is counted, so that a joined call takes it over.
 */
const lead = (ctx: CallContext, takingOver: boolean): Effect.Effect<Access, RuntimeAccessCache.ResolveError> =>
  Effect.gen(function*() {
    // The wait resumed is this call's now: calls that join it leave by it again.
    if (takingOver) {
      const left = yield* Ref.get(ctx.session.wait)
      yield* recordWait(ctx.session, Option.map(left, (wait) => ({ ...wait, abandoned: false })))
    }
    const access = yield* Effect.flatMap(awaitAdmission(ctx, takingOver), RuntimeAccessCache.fromAdmitted)
    // The backend handed this token out again after the runtime rejected it: its word is newer.
    yield* Ref.update(ctx.session.rejectedTokens, (tokens) => tokens.filter((t) => !sameToken(t, access.token)))
    return access
  }).pipe(Effect.onExit(() =>
    Effect.zipRight(
      Ref.update(ctx.session.wait, Option.map((wait) => ({ ...wait, abandoned: true }))),
      Ref.update(ctx.session.leadsEnded, (n) => n + 1)
    )
  ))

/**
 * For a call in another call's resolution: registered with the session, it fails with this call's
 * `AgentRuntimeNotReadyError` when the leader records a wait whose next resolve no longer fits in its budget
 * (`recordWait`), or at once if the wait under way already does not. Not once `leading`: a leader's own wait
 * ends it inside `awaitAdmission`, never from the side. Runs after the flight's side first suspended, so a
 * call the cache made the leader is known as one by then.
 */
const leftByWait = (joined: JoinedCall): Effect.Effect<never, AgentRuntimeNotReadyError> =>
  Effect.suspend(() => {
    if (joined.leading) return Effect.never
    const { call } = joined
    call.session.joined.add(joined)
    return Effect.flatMap(
      Ref.get(call.session.wait),
      (wait) =>
        Option.isSome(wait) && outlives(wait.value, call)
          ? Effect.flatMap(leaveBy(wait.value, call), Effect.fail)
          : Deferred.await(joined.left)
    )
  })

/**
 * The session's one shared resolution through the cache's single flight: this call leads it (`takingOver`:
 * resumes the wait another call left), or is in the one under way, which it leaves when the wait's next
 * resolve no longer fits its budget, and takes over when the leader's budget ended it.
 */
const resolveShared = (
  ctx: CallContext,
  fresh: boolean,
  takingOver: boolean
): Effect.Effect<Access, RuntimeAccessCache.ResolveError> =>
  Effect.gen(function*() {
    const joined: JoinedCall = {
      call: ctx,
      left: yield* Deferred.make<never, AgentRuntimeNotReadyError>(),
      leading: false
    }
    const endedBefore = yield* Ref.get(ctx.session.leadsEnded)
    // Run only when this call leads: by the cache's choice, or as its hand-over after the leader was interrupted.
    const asLeader = Effect.zipRight(
      Effect.sync(() => {
        joined.leading = true
        ctx.session.joined.delete(joined)
      }),
      Effect.flatMap(Ref.get(ctx.session.leadsEnded), (ended) => lead(ctx, takingOver || ended !== endedBefore))
    )
    const exit = yield* Effect.raceFirst(
      Effect.exit(ctx.cache.getOrResolve(ctx.key, asLeader, { fresh })),
      leftByWait(joined)
    ).pipe(Effect.ensuring(Effect.sync(() => ctx.session.joined.delete(joined))))
    return yield* !joined.leading && leaderOutOfBudget(exit) ? resolveShared(ctx, false, true) : exit
  })

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
