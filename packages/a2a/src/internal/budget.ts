/**
 * One total deadline per call (SPEC §5), read from `Clock`, enforced by one alarm around the whole
 * composed call. This module alone decides what a timeout becomes, and its boundary is where every error of
 * a call is stamped with the call's own ids.
 */
import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { type A2AError, A2ATimeoutError, AgentRuntimeNotReadyError } from "../A2AError.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import type { Alarm, Alarms } from "./alarms.js"
import {
  type Call,
  type CallContext,
  type CallOptions,
  type ClientEnv,
  closeCall,
  openCall,
  type PhaseDeadline
} from "./callContext.js"

/**
 * `AgentRuntimeNotReadyError` for a call still waiting for a transient runtime (nothing sent).
 *
 * @internal
 */
export const notReadyError = (call: Call, transient: RuntimeAccess.Transient, remainingMs: number) =>
  new AgentRuntimeNotReadyError({
    agentSessionUid: call.agentSessionUid,
    messageId: call.messageId,
    state: transient.state,
    retryAfterMs: transient.retryAfterMs,
    remainingMs: Math.max(0, remainingMs),
    detail: transient.presence?.detail ?? undefined
  })

/**
 * The timeout error for the current state of the call at clock millis `now`: still waiting for a transient
 * runtime (nothing sent), in its session's resolution → `AgentRuntimeNotReadyError`, otherwise
 * `A2ATimeoutError` naming the step.
 */
const timeoutErrorAt = (
  call: Call,
  limit: A2ATimeoutError["limit"],
  seconds: number,
  now: number
): A2ATimeoutError | AgentRuntimeNotReadyError => {
  const { step, sent, waitingFor } = call
  const waiting = step === "resolve-runtime-access" ||
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent: a call never sleeps into its deadline (each retry is checked to fit first), so no timeout lands in the await-runtime sleep
    step === "await-runtime"
  if (!sent && Option.isSome(waitingFor) && waiting) {
    return notReadyError(call, waitingFor.value, call.deadlineMillis - now)
  }
  return new A2ATimeoutError({
    agentSessionUid: call.agentSessionUid,
    messageId: call.messageId,
    step,
    limit,
    seconds,
    messageMayHaveBeenSent: sent,
    taskId: call.taskId,
    lastTask: Option.getOrUndefined(call.lastTask)
  })
}

/**
 * {@link timeoutErrorAt} now, as a failure.
 *
 * @internal
 */
export const timeoutError = (
  call: Call,
  limit: A2ATimeoutError["limit"],
  seconds: number
): Effect.Effect<never, A2ATimeoutError | AgentRuntimeNotReadyError> =>
  Effect.clockWith((clock) => Effect.fail(timeoutErrorAt(call, limit, seconds, clock.unsafeCurrentTimeMillis())))

/**
 * The call's own ids (and its own `messageMayHaveBeenSent`, Task id and last Task) on an error. An error
 * of the session's resolution reaches every call waiting for it, raised with the ids of the call that started it; each call
 * reports its own. The copy is built by the error's own Schema class, which validates it again.
 *
 * @internal
 */
export const stamp = <E extends A2AError>(call: Call, error: E): E => {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent: input errors are raised before the budget starts, so none reaches the stamp
  if (error._tag === "A2AInputError") return error
  const own: Record<string, unknown> = { agentSessionUid: call.agentSessionUid, messageId: call.messageId }
  if ("messageMayHaveBeenSent" in error) own.messageMayHaveBeenSent = call.sent
  // Stryker disable next-line ConditionalExpression: equivalent: only A2ATimeoutError declares lastTask, the Task errors' taskId is the call's own, and a Schema constructor drops undeclared fields
  if (error._tag === "A2ATimeoutError") {
    own.taskId = call.taskId
    own.lastTask = Option.getOrUndefined(call.lastTask)
  }
  if (Object.entries(own).every(([field, value]) => Reflect.get(error, field) === value)) return error
  return Reflect.construct(error.constructor, [{ ...error, ...own }]) as E
}

type Timeout = A2ATimeoutError | AgentRuntimeNotReadyError

/**
 * How `fiber` ended. Unlike `Fiber.await` it has no canceler, so it keeps no region on the waiting fiber's
 * stack: the caller interrupted while waiting interrupts `fiber` itself (`boundedIn`) and awaits that.
 */
const exitOf = <A, E>(fiber: Fiber.RuntimeFiber<A, E>): Effect.Effect<Exit.Exit<A, E>> =>
  Effect.async((resume) => fiber.addObserver((exit) => resume(Effect.succeed(exit))))

/**
 * Runs `effect` in a fiber of its own under an alarm (the client's {@link Alarms}, no sleeping fiber per
 * call) that ends it with the timeout error of the phase limit of the exchange under way ({@link
 * PhaseDeadline}; one that runs out together with the total is reported as the total) and, `withTotal`, of
 * the total budget. The alarm never rings later than `read` after it was set: an exchange sets a phase
 * deadline at least `read` ahead of the moment it sets it, so the alarm always rings in time to see it.
 * Interrupting the caller interrupts the effect and waits for it. `end` sees how it ended (and may
 * rewrite the result). Made inside the caller's uninterruptible region (`restore` is its way out), so a
 * call that opens state there needs no region of its own (each one a few frames per call in flight).
 */
const boundedIn = <A, E, R>(
  restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
  clock: Clock.Clock,
  call: Call,
  phase: PhaseDeadline,
  withTotal: boolean,
  effect: Effect.Effect<A, E, R>,
  end: (exit: Exit.Exit<A, E | Timeout>) => Exit.Exit<A, E | Timeout>
): Effect.Effect<A, E | Timeout, R> =>
  Effect.flatMap(Effect.fork(restore(effect)), (body) => {
    const alarm = new BodyAlarm(body, true, call, phase, withTotal, call.alarms.of(clock))
    return Effect.zipRight(
      alarm.start(clock.unsafeCurrentTimeMillis()),
      Effect.matchCauseEffect(restore(exitOf(body)), {
        onFailure: (cause) => {
          alarm.stop()
          // The call ends once its body has: what `end` releases (the call's session state) is the body's too.
          return Effect.zipRight(
            Fiber.interrupt(body),
            Effect.suspend(() => {
              phase.abort()
              return end(Exit.failCause(cause))
            })
          )
        },
        onSuccess: (exit): Effect.Effect<A, E | Timeout> => end(alarm.outcome(exit))
      })
    )
  })

/**
 * {@link boundedIn} on the caller's own fiber, for a body every wait of which hands its abort to the budget
 * (`PhaseDeadline.takeAbort`: the Node layer's request head and chunks, the session's resolution). The alarm
 * ends such a body by ending the wait under way, and each one the body starts after, with an interruption of
 * the body alone; the caller interrupted interrupts the body itself. So the call needs no fiber of its own (a
 * fiber, its refs and the wait for it are about 3.4 KiB of every call in flight).
 */
const boundedHere = <A, E, R>(
  restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
  clock: Clock.Clock,
  call: Call,
  phase: PhaseDeadline,
  effect: Effect.Effect<A, E, R>,
  end: (exit: Exit.Exit<A, E | Timeout>) => Exit.Exit<A, E | Timeout>
): Effect.Effect<A, E | Timeout, R> =>
  Effect.withFiberRuntime((caller) => {
    const alarm = new BodyAlarm(caller, false, call, phase, true, call.alarms.of(clock))
    return Effect.zipRight(
      alarm.start(clock.unsafeCurrentTimeMillis()),
      Effect.matchCauseEffect(restore(effect), {
        onFailure: (cause) => {
          phase.abort()
          return end(alarm.outcome(Exit.failCause(cause)))
        },
        onSuccess: (value) => {
          alarm.stop()
          // The alarm rang while the body was about to go on: it ends there, as on a fiber of its own.
          return end(alarm.expired === undefined ? Exit.succeed(value) : Exit.fail(alarm.expired))
        }
      })
    )
  })

/** The alarm of a bounded body: it rings at the next deadline to check, and ends the body at an expired one. */
class BodyAlarm implements Alarm {
  at = 0
  slot = -1
  /** The timeout the alarm ended the body with. */
  expired: Timeout | undefined = undefined
  private readonly readMillis: number
  private readonly totalAt: number

  constructor(
    /** The fiber the body runs on: its own (then interrupted to end it), or the caller's. */
    private readonly owner: Fiber.RuntimeFiber<unknown, unknown>,
    private readonly interruptsOwner: boolean,
    private readonly call: Call,
    private readonly phase: PhaseDeadline,
    withTotal: boolean,
    private readonly alarms: Alarms
  ) {
    // Only this budget ends its body, and it ends the wait under way on it each time (the waits then need
    // no canceler of their own: `PhaseDeadline.takeAbort`).
    phase.owner = owner
    const read = call.budget.read
    this.readMillis = read === undefined ? Number.POSITIVE_INFINITY : Duration.toMillis(read)
    this.totalAt = withTotal ? call.deadlineMillis : Number.POSITIVE_INFINITY
  }

  /** Sets the alarm for the first check after clock millis `now`. */
  start(now: number): Effect.Effect<void> {
    return this.alarms.set(this, this.nextCheck(now))
  }

  /** Takes the alarm out: the body has ended. */
  stop(): void {
    this.alarms.clear(this)
  }

  /** Takes the alarm out; the body ended with `exit`, and an interruption the alarm caused is its timeout. */
  outcome<A, E>(exit: Exit.Exit<A, E>): Exit.Exit<A, E | Timeout> {
    this.stop()
    return this.expired !== undefined && Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)
      ? Exit.fail(this.expired)
      : exit
  }

  private nextCheck(now: number): number {
    return Math.min(this.totalAt, this.phase.at, now + this.readMillis)
  }

  private expiry(now: number): Timeout | undefined {
    const { call, phase } = this
    const { connect, read, totalSeconds } = call.budget
    if (now >= this.totalAt) return timeoutErrorAt(call, "total", totalSeconds, now)
    // Stryker disable next-line ConditionalExpression: equivalent: a phase deadline is only set with a [connect, read] budget (else phase.at stays Infinity)
    if (now >= phase.at && read !== undefined) {
      if (now >= call.deadlineMillis) return timeoutErrorAt(call, "total", totalSeconds, now)
      if (phase.limit === "read") return timeoutErrorAt(call, "read", Duration.toSeconds(read), now)
      // Stryker disable next-line ConditionalExpression: equivalent: a phase deadline exists only with both connect and read
      const head = connect === undefined ? read : Duration.sum(connect, read)
      return timeoutErrorAt(call, phase.limit, Duration.toSeconds(head), now)
    }
    return undefined
  }

  ring(now: number): void {
    this.expired = this.expiry(now)
    if (this.expired === undefined) return this.alarms.place(this, this.nextCheck(now))
    if (this.interruptsOwner) this.owner.unsafeInterruptAsFork(this.owner.id())
    this.phase.end()
  }
}

const asItEnded = <A, E>(exit: Exit.Exit<A, E>): Exit.Exit<A, E> => exit

/**
 * An exchange that runs for several calls (a shared resolution) under its own phase limits, so that a
 * phase limit fails the exchange itself and every call sharing it gets that error.
 *
 * @internal
 */
export const withinPhaseLimits = <A, E, R>(
  call: Call,
  phase: PhaseDeadline,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | Timeout, R> =>
  Effect.clockWith((clock) =>
    Effect.uninterruptibleMask((restore) => boundedIn(restore, clock, call, phase, false, effect, asItEnded))
  )

/** The call's own ids on every error of the call (see {@link stamp}). */
const stamped = <A, E extends A2AError>(call: Call, exit: Exit.Exit<A, E | Timeout>): Exit.Exit<A, E | Timeout> =>
  Exit.mapError(exit, (error) => stamp(call, error))

/**
 * The one deadline around a whole call (discovery, resolution, the transient wait, the request and the
 * whole response body: the total budget and each exchange's phase limits), and the one place its errors
 * get the call's ids.
 *
 * @internal
 */
export const withinBudget = <A, E extends A2AError, R>(
  call: Call,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | Timeout, R> =>
  Effect.clockWith((clock) =>
    Effect.uninterruptibleMask((restore) =>
      boundedIn(restore, clock, call, call.phase, true, effect, (exit) => stamped(call, exit))
    )
  )

/**
 * A new call of the client, {@link withinBudget}: the call holds its session's shared state from its start
 * to its end, opened and released in the budget's own region.
 *
 * @internal
 */
export const withinCallBudget = <A, E extends A2AError, R>(
  env: ClientEnv,
  options: CallOptions,
  use: (call: CallContext) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | Timeout, R> =>
  Effect.clockWith((clock) =>
    Effect.uninterruptibleMask((restore) => {
      const call = openCall(env, options, clock.unsafeCurrentTimeMillis())
      // Built when the body runs: the body's interruptible region keeps the effect it was made with (here
      // the suspension, not the whole call's effects) for as long as the call is in flight.
      const body = Effect.suspend(() => use(call))
      const end = (exit: Exit.Exit<A, E | Timeout>) => {
        closeCall(env, call)
        return stamped(call, exit)
      }
      return options.onCallerFiber === true && env.waitsHandTheirAbort
        ? boundedHere(restore, clock, call, call.phase, body, end)
        : boundedIn(restore, clock, call, call.phase, true, body, end)
    })
  )
