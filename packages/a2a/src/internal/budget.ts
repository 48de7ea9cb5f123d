/**
 * One total deadline per call (SPEC §5), read from `Clock`, enforced by one timeout around the whole
 * composed call. This module alone decides what a timeout becomes, and its boundary is where every error of
 * a call is stamped with the call's own ids.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { type A2AError, A2ATimeoutError, AgentRuntimeNotReadyError } from "../A2AError.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import { type Call, remainingMillis } from "./callContext.js"

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
 * The timeout error for the current state of the call: still waiting for a transient runtime (nothing
 * sent), its own wait or the one it joined → `AgentRuntimeNotReadyError`, otherwise `A2ATimeoutError`
 * naming the step.
 *
 * @internal
 */
export const timeoutError = (
  call: Call,
  limit: A2ATimeoutError["limit"],
  seconds: number
): Effect.Effect<never, A2ATimeoutError | AgentRuntimeNotReadyError> =>
  Effect.gen(function*() {
    const joined = Option.map(yield* Ref.get(call.session.wait), (wait) => wait.transient)
    const step = yield* Ref.get(call.step)
    const sent = yield* Ref.get(call.sent)
    const waitingFor = Option.orElse(yield* Ref.get(call.waitingFor), () => joined)
    const lastTask = yield* Ref.get(call.lastTask)
    if (!sent && Option.isSome(waitingFor) && (step === "await-runtime" || step === "resolve-runtime-access")) {
      return yield* notReadyError(call, waitingFor.value, yield* remainingMillis(call))
    }
    return yield* new A2ATimeoutError({
      agentSessionUid: call.agentSessionUid,
      messageId: call.messageId,
      step,
      limit,
      seconds,
      messageMayHaveBeenSent: sent,
      taskId: call.taskId,
      lastTask: Option.getOrUndefined(lastTask)
    })
  })

/**
 * The timeout error of a phase limit (`read`, `response-head`): one that runs out together with the whole
 * budget is reported as the budget.
 *
 * @internal
 */
export const phaseTimeoutError = (call: Call, limit: "read" | "response-head", seconds: number) =>
  Effect.flatMap(remainingMillis(call), (remaining) =>
    remaining <= 0
      ? timeoutError(call, "total", call.budget.totalSeconds)
      : timeoutError(call, limit, seconds))

/**
 * The phase limit of an exchange under way (SPEC §5 `[connect, read]`): the Clock millis by which it must
 * make progress (its head, its next body chunk), moved by the exchange as it goes, and its error once passed.
 *
 * @internal
 */
export interface PhaseLimit {
  deadline: number
  readonly expired: () => Effect.Effect<never, A2ATimeoutError | AgentRuntimeNotReadyError>
}

/** What a call's one watchdog enforces besides its total: the phase limit of the exchange under way. */
interface Watch {
  phase: PhaseLimit | undefined
}

const watches = new WeakMap<Call, Watch>()

/**
 * Sleeps until the earliest deadline, then fails with its error: the total (when given), or the phase
 * limit under way. A phase limit is always set (and moved) to at least `read` after the moment it is set,
 * so sleeping never longer than `read` at a time (`capMillis`) wakes it in time for any limit set meanwhile.
 */
const watchdog = (
  watch: Watch,
  capMillis: number,
  total: {
    readonly deadline: number
    readonly expired: Effect.Effect<never, A2ATimeoutError | AgentRuntimeNotReadyError>
  } | undefined
): Effect.Effect<never, A2ATimeoutError | AgentRuntimeNotReadyError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (total !== undefined && now >= total.deadline) return total.expired
    const phase = watch.phase
    if (phase !== undefined && now >= phase.deadline) return phase.expired()
    const next = Math.min(total?.deadline ?? Infinity, phase?.deadline ?? Infinity)
    return Effect.zipRight(
      Effect.sleep(Math.min(next - now, capMillis)),
      Effect.suspend(() => watchdog(watch, capMillis, total))
    )
  })

/**
 * Runs `exchange` under `phase`: by the call's own watchdog when the call runs {@link withinBudget} (no
 * fiber of its own), else by a watchdog raced against it here. `phase.deadline` may move while it runs.
 *
 * @internal
 */
export const withinPhaseLimit = <A, E, R>(
  call: Call,
  read: Duration.Duration,
  phase: PhaseLimit,
  exchange: Effect.Effect<A, E, R>
): Effect.Effect<A, E | A2ATimeoutError | AgentRuntimeNotReadyError, R> => {
  const watch = watches.get(call)
  if (watch === undefined) {
    return Effect.raceFirst(exchange, watchdog({ phase }, Duration.toMillis(read), undefined))
  }
  watch.phase = phase
  return Effect.ensuring(
    exchange,
    Effect.sync(() => {
      if (watch.phase === phase) watch.phase = undefined
    })
  )
}

/**
 * The call's own ids (and its own `messageMayHaveBeenSent`, Task id and last Task) on an error. An error
 * of a resolution shared with other calls (single flight) was raised by the call that led it; each call
 * reports its own. The copy is built by the error's own Schema class, which validates it again.
 *
 * @internal
 */
export const stamp = <E extends A2AError>(call: Call, error: E): Effect.Effect<E> => {
  if (error._tag === "A2AInputError") return Effect.succeed(error)
  return Effect.gen(function*() {
    const own: Record<string, unknown> = { agentSessionUid: call.agentSessionUid, messageId: call.messageId }
    if ("messageMayHaveBeenSent" in error) own.messageMayHaveBeenSent = yield* Ref.get(call.sent)
    if (error._tag === "A2ATimeoutError") {
      own.taskId = call.taskId
      own.lastTask = Option.getOrUndefined(yield* Ref.get(call.lastTask))
    }
    if (Object.entries(own).every(([field, value]) => Reflect.get(error, field) === value)) return error
    return Reflect.construct(error.constructor, [{ ...error, ...own }]) as E
  })
}

/**
 * The one total timeout around a whole call (discovery, resolution, the transient wait, the request and the
 * whole response body), and the one place its errors get the call's ids. One watchdog fiber per call
 * enforces the total and the phase limits of the call's exchanges (see {@link withinPhaseLimit}): a fiber
 * and a race per limit were most of what a call in flight kept alive.
 *
 * @internal
 */
export const withinBudget = <A, E extends A2AError, R>(
  call: Call,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | A2ATimeoutError | AgentRuntimeNotReadyError, R> =>
  Effect.suspend(() => {
    const watch: Watch = { phase: undefined }
    watches.set(call, watch)
    const read = call.budget.read
    const total = {
      deadline: call.deadlineMillis,
      expired: timeoutError(call, "total", call.budget.totalSeconds)
    }
    return Effect.raceFirst(
      effect,
      watchdog(watch, read === undefined ? Infinity : Duration.toMillis(read), total)
    )
  }).pipe(
    Effect.catchAll((error) => Effect.flip(stamp(call, error)))
  )
