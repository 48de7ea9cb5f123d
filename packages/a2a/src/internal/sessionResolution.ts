/**
 * The session's one resolution (SPEC §1.2–3, §6), owned by the client: the first call that finds no usable
 * access starts it in the client's scope, every other call that needs access for the session joins it, and
 * each waits for its outcome with its own deadline and phase limits, reporting progress on its own fiber. It
 * runs while at least one call waits: a call leaves when a recorded wait's next resolve misses its deadline,
 * when its budget ends or when it is interrupted, and the last call to leave stops it. No call leads it, so
 * none hands it over.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Tracer from "effect/Tracer"
import type { A2ATimeoutError } from "../A2AError.js"
import * as A2AProgress from "../A2AProgress.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import { awaitAdmission } from "./awaitAdmission.js"
import {
  type AdmittedNotice,
  type Call,
  endAt,
  enterStep,
  forgetRejected,
  noteAdmitted,
  noteWaiting,
  notReadyError,
  type Resolution,
  sameToken,
  type SessionState,
  type SessionWait,
  setAwaiting,
  setConnectLimit,
  spanAttributes,
  timeoutErrorAt,
  type Waiter
} from "./callContext.js"
import type { CallContext } from "./clientEnv.js"
import { deadlinePassed } from "./deadlines.js"

type Access = RuntimeAccessCache.CachedRuntimeAccess

// Stryker disable next-line ObjectLiteral,BooleanLiteral: only drops the results, which nothing reads
const discard = { discard: true } as const
type Outcome = Exit.Exit<Option.Option<Access>, RuntimeAccessCache.ResolveError>

/**
 * Whether the runtime already rejected this access's token for the session (as seen by the calls in flight).
 *
 * @internal
 */
export const wasRejected = (session: SessionState, access: Access): boolean =>
  session.rejectedTokens.some((token) => sameToken(token, access.token))

/**
 * The session's cached access, unless the runtime already rejected its token; the store held to its share of
 * the time left before `deadlineMillis`.
 *
 * @internal
 */
export const usableCachedAccess = (ctx: CallContext, deadlineMillis: number): Effect.Effect<Option.Option<Access>> =>
  Effect.map(ctx.cache.get(ctx.key, deadlineMillis), Option.filter((access) => !wasRejected(ctx.session, access)))

/**
 * The resolution's own call state: the starter's ids, no deadline or phase limits (each waiting call holds it to
 * its own, `deadlines.ts`). Its only timeout is each resolve's connect limit, the loosest of the waiting calls'.
 */
const resolutionCall = (starter: CallContext): CallContext => ({
  ...starter,
  // Stryker disable next-line ObjectLiteral: equivalent: each resolve sets its connect limit; nothing reads the rest
  budget: { ...starter.budget, read: undefined },
  deadlineMillis: Number.POSITIVE_INFINITY,
  waitingFor: Option.none(),
  lastTask: Option.none(),
  exchange: undefined,
  awaiting: undefined
})

/** The longest connect limit of the waiting calls; none if one of them has none. */
const loosestConnect = (waiters: ReadonlySet<Waiter>): Duration.Duration | undefined => {
  let loosest: Duration.Duration | undefined = undefined
  for (const { call } of waiters) {
    const connect = call.budget.connect
    if (connect === undefined) return undefined
    loosest = loosest === undefined ? connect : Duration.max(loosest, connect)
  }
  return loosest
}

/** Whether the wait sends the call away: its next resolve is at or after the call's deadline. */
const outlives = (wait: SessionWait, call: Call): boolean => wait.retryAtMillis >= call.deadlineMillis

/**
 * Records a transient answer: each waiting call whose deadline the next resolve misses leaves with its own
 * `AgentRuntimeNotReadyError`, the others get a progress event. With no call left the resolution detaches
 * from the session and `false` is returned: nothing polls for nobody.
 */
const recordWait = (
  session: SessionState,
  resolution: Resolution,
  wait: SessionWait
): Effect.Effect<boolean> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    resolution.wait = wait
    const outlived: Array<Waiter> = []
    for (const waiter of resolution.waiters) {
      if (outlives(wait, waiter.call)) {
        resolution.waiters.delete(waiter)
        outlived.push(waiter)
      }
    }
    const waiting = Array.from(resolution.waiters)
    if (
      // Stryker disable next-line ConditionalExpression: settle detaches it too, unless the fiber yields in between
      waiting.length === 0 &&
      // Stryker disable next-line ConditionalExpression,EqualityOperator: only the session's resolution records waits
      session.resolution === resolution
    ) session.resolution = undefined
    const { attempt, transient } = wait
    return Effect.zipRight(
      Effect.forEach(
        outlived,
        (waiter) =>
          Effect.zipRight(
            noteWaiting(waiter.call, transient),
            complete(waiter, Exit.fail(notReadyError(waiter.call, transient, now)))
          ),
        discard
      ),
      Effect.as(
        Effect.forEach(
          waiting,
          ({ call, progress }) =>
            Effect.all(
              [
                noteWaiting(call, transient),
                enterStep(call, "await-runtime"),
                Option.isNone(progress) ? Effect.void : Queue.offer(progress.value, {
                  _tag: "RuntimeAccessProgress",
                  agentSessionUid: call.agentSessionUid,
                  messageId: call.messageId,
                  state: transient.state,
                  notice: transient.notice,
                  presencePhase: transient.presence?.phase ?? undefined,
                  presenceDetail: transient.presence?.detail ?? undefined,
                  retryAfterMs: transient.retryAfterMs,
                  attempt
                })
              ],
              discard
            ),
          discard
        ),
        waiting.length > 0
      )
    )
  })

/** Every call still waiting gets the outcome (a failure is stamped with each call's ids by its own budget). */
const settle = (session: SessionState, resolution: Resolution, outcome: Outcome): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (session.resolution === resolution) session.resolution = undefined
    const waiting = Array.from(resolution.waiters)
    resolution.waiters.clear()
    const given: Exit.Exit<Access, RuntimeAccessCache.ResolveError> = Exit.isFailure(outcome)
      ? Exit.failCause(outcome.cause)
      : Option.match(outcome.value, { onNone: () => Exit.interrupt(FiberId.none), onSome: Exit.succeed })
    return Effect.forEach(
      waiting,
      (waiter) => complete(waiter, given),
      discard
    )
  })

/** The resolution's store operations are held to the share of each waiting call: of the one due first. */
const firstDeadline = (resolution: Resolution): number =>
  Math.min(...Array.from(resolution.waiters, ({ call }) => call.deadlineMillis))

/**
 * What the session admitted since `call`'s attempt began, unless rejected or expired: newer than the access the
 * call was refused with, even when a slow shared store does not show it yet.
 */
const admittedSince = (session: SessionState, call: CallContext): Effect.Effect<Option.Option<Access>> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const admitted = session.admitted
    return admitted === undefined || admitted === call.admittedBefore || now >= admitted.validUntilMillis ||
        wasRejected(session, admitted)
      ? Option.none()
      : Option.some(admitted)
  })

/**
 * The resolution itself: the cache once more (when `fresh`, what the session admitted since the call's attempt
 * began instead), then resolve and wait until admitted.
 */
const run = (session: SessionState, resolution: Resolution, call: CallContext, fresh: boolean) =>
  Effect.gen(function*() {
    const known = yield* (fresh ? admittedSince(session, call) : usableCachedAccess(call, firstDeadline(resolution)))
    if (Option.isSome(known)) return known
    const admitted = yield* admit(session, resolution, call)
    // Stryker disable next-line ConditionalExpression: with no waiting call left, whatever follows reaches nobody
    if (Option.isNone(admitted)) return Option.none<Access>()
    const access = yield* RuntimeAccessCache.fromAdmitted(admitted.value)
    noteAdmitted(session, access)
    const { notice, state } = admitted.value
    if (notice !== undefined) resolution.admittedNotice = { state, notice }
    forgetRejected(session, access.token)
    yield* call.cache.set(call.key, access, firstDeadline(resolution))
    return Option.some(access)
  })

// The resolution's only timeout (see resolutionCall).
const isConnectTimeout = (error: RuntimeAccessCache.ResolveError): error is A2ATimeoutError =>
  error._tag === "A2ATimeoutError"

/**
 * Resolves until admitted. A resolve that got no connection within the connect limit in force ends each waiting
 * call whose own limit is no longer with its own timeout; the calls with a longer one, or none, resolve again.
 */
const admit = (
  session: SessionState,
  resolution: Resolution,
  call: CallContext
): Effect.Effect<Option.Option<RuntimeAccess.Admitted>, RuntimeAccessCache.ResolveError> =>
  Effect.catchIf(
    awaitAdmission(call, {
      beforeResolve: Effect.sync(() => setConnectLimit(call, loosestConnect(resolution.waiters))),
      recordWait: (wait) => recordWait(session, resolution, wait)
    }),
    isConnectTimeout,
    (error) =>
      Effect.flatMap(leaveAtConnectLimit(resolution, error), (waiting) =>
        waiting ? admit(session, resolution, call) : Effect.fail(error))
  )

/** The waiting calls whose connect limit `timedOut` ran out leave with their own; whether any call still waits. */
const leaveAtConnectLimit = (
  resolution: Resolution,
  timedOut: A2ATimeoutError
): Effect.Effect<boolean> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const past = Array.from(resolution.waiters).filter(({ call }) =>
      call.budget.connect !== undefined && Duration.toSeconds(call.budget.connect) <= timedOut.seconds
    )
    for (const waiter of past) resolution.waiters.delete(waiter)
    return Effect.as(
      Effect.forEach(
        past,
        (waiter) => complete(waiter, Exit.fail(timeoutErrorAt(waiter.call, "connect", now))),
        discard
      ),
      resolution.waiters.size > 0
    )
  })

/** The resolution; every call still waiting gets its outcome. */
const resolve = (call: CallContext, resolution: Resolution, fresh: boolean) =>
  run(call.session, resolution, call, fresh).pipe(
    Effect.onExit((outcome) => settle(call.session, resolution, outcome))
  )

/** Gives `waiter` its outcome (the first one only). */
const complete = (waiter: Waiter, outcome: Exit.Exit<Access, RuntimeAccessCache.ResolveError>): Effect.Effect<void> =>
  Effect.asVoid(Deferred.done(waiter.outcome, outcome))

/**
 * The call leaves the resolution; the last one to leave stops it, as timed out if that call left by one of its
 * deadlines (its exchange under way is measured so).
 */
const leave = (session: SessionState, resolution: Resolution, waiter: Waiter): Effect.Effect<void> =>
  Effect.clockWith((clock) => {
    const now = clock.unsafeCurrentTimeMillis()
    const timedOut = deadlinePassed(waiter.call, now)
    setAwaiting(waiter.call, undefined)
    if (!resolution.waiters.delete(waiter) || resolution.waiters.size > 0) return Effect.void
    // Stryker disable next-line ConditionalExpression: a resolution is off the session before its last call left
    if (session.resolution === resolution) session.resolution = undefined
    if (timedOut) endAt(resolution.call, now)
    // Stryker disable next-line ConditionalExpression: the fiber is set before any waiting call can leave
    return resolution.fiber === undefined ? Effect.void : Fiber.interrupt(resolution.fiber)
  })

/**
 * Joins the session's resolution under way, or starts one (`starting`, its call state) under `parentSpan`; or
 * fails at once when a wait already recorded sends the call away. Synchronous, so no other call of the session
 * runs in between.
 */
const join = (ctx: CallContext, waiter: Waiter, now: number, parentSpan: Option.Option<Tracer.AnySpan>) =>
  Effect.suspend(() => {
    const session = ctx.session
    const running = session.resolution
    const known = running?.wait
    if (known !== undefined && outlives(known, ctx)) {
      return Effect.zipRight(
        noteWaiting(ctx, known.transient),
        Effect.fail(notReadyError(ctx, known.transient, now))
      )
    }
    const { resolution, starting } = running === undefined
      ? start(ctx, parentSpan)
      : { resolution: running, starting: undefined }
    resolution.waiters.add(waiter)
    setAwaiting(ctx, resolution.call)
    session.resolution = resolution
    const joined = known === undefined
      ? enterStep(ctx, "resolve-runtime-access")
      : Effect.zipRight(noteWaiting(ctx, known.transient), enterStep(ctx, "await-runtime"))
    return Effect.as(joined, { resolution, starting })
  })

/** A new resolution started by `starter` under `parentSpan`, and its call state. */
const start = (
  starter: CallContext,
  parentSpan: Option.Option<Tracer.AnySpan>
): { readonly resolution: Resolution; readonly starting: CallContext } => {
  const call = resolutionCall(starter)
  return {
    resolution: { call, parentSpan, waiters: new Set(), wait: undefined, fiber: undefined, admittedNotice: undefined },
    starting: call
  }
}

/** A call that joined a resolution another call started waits in a span linked to the one it runs under. */
const joinedSpan = (ctx: CallContext, resolution: Resolution) =>
  Effect.withSpan("a2a.client.join_resolution", {
    attributes: spanAttributes(ctx),
    links: Option.toArray(
      Option.map(resolution.parentSpan, (span): Tracer.SpanLink => ({ _tag: "SpanLink", span, attributes: {} }))
    )
  })

/**
 * Access from the session's one resolution: joins the one under way or starts one in the client's
 * `FiberSet`, and waits for its outcome within this call's budget. `fresh` (after a 401/403) skips the cache.
 *
 * @internal
 */
export const awaitResolution = (
  ctx: CallContext,
  fresh: boolean
): Effect.Effect<Access, RuntimeAccessCache.ResolveError> =>
  Effect.gen(function*() {
    const reporting = yield* Effect.transposeMapOption(
      yield* Effect.serviceOption(A2AProgress.A2AProgress),
      (service) => Effect.map(Queue.sliding<A2AProgress.RuntimeAccessProgress>(1), (queue) => ({ service, queue }))
    )
    const outcome = yield* Deferred.make<Access, RuntimeAccessCache.ResolveError>()
    const waiter: Waiter = { call: ctx, progress: Option.map(reporting, ({ queue }) => queue), outcome }
    const now = yield* Clock.currentTimeMillis
    const parentSpan = yield* Effect.option(Effect.currentParentSpan)
    return yield* Effect.acquireUseRelease(
      Effect.tap(join(ctx, waiter, now, parentSpan), ({ resolution, starting }) =>
        starting === undefined ? Effect.void : Effect.flatMap(
          // Started inside the acquisition's uninterruptible region: the resolution itself stays interruptible.
          FiberSet.run(ctx.resolutions, Effect.interruptible(resolve(starting, resolution, fresh))),
          (fiber) => {
            resolution.fiber = fiber
            // A fiber over already: the client's scope is closed and the resolution never ran.
            return Effect.flatMap(
              Fiber.poll(fiber),
              Option.match({
                onNone: () =>
                  Effect.void,
                onSome: (exit) => settle(ctx.session, resolution, exit)
              })
            )
          }
        )),
      ({ resolution, starting }) => {
        const awaited = Option.match(reporting, {
          onNone: () =>
            Deferred.await(outcome),
          onSome: ({ queue, service }) => Effect.raceFirst(Deferred.await(outcome), reportAll(service, queue))
        })
        const reported = Effect.tap(awaited, () => reportNotice(ctx, resolution.admittedNotice))
        return starting === undefined ? joinedSpan(ctx, resolution)(reported) : reported
      },
      ({ resolution }) => leave(ctx.session, resolution, waiter)
    )
  })

/** SPEC §3: a call admitted with a notice (state `warning`, for example) goes on, and its caller is shown it. */
const reportNotice = (ctx: CallContext, admitted: AdmittedNotice | undefined): Effect.Effect<void> =>
  admitted === undefined ? Effect.void : A2AProgress.report({
    _tag: "RuntimeAccessNotice",
    agentSessionUid: ctx.agentSessionUid,
    messageId: ctx.messageId,
    state: admitted.state,
    notice: admitted.notice
  })

/** Reports the waits' progress on the waiting call's own fiber: a slow or failing service holds up only its call. */
const reportAll = (
  service: A2AProgress.Service,
  progress: Queue.Dequeue<A2AProgress.RuntimeAccessProgress>
): Effect.Effect<never> => Effect.forever(Effect.flatMap(Queue.take(progress), service.report))
