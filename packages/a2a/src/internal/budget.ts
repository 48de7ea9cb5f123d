/**
 * One total deadline per call (SPEC §5), read from `Clock`, enforced by one timeout around the whole
 * composed call. This module alone decides what a timeout becomes, and its boundary is where every error of
 * a call is stamped with the call's own ids.
 */
import type * as Duration from "effect/Duration"
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
 * Runs `effect` and fails with `onTimeout` if it has not ended after `duration`.
 *
 * @internal
 */
export const timeoutWith = <A, E, R, E2>(
  effect: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: Effect.Effect<never, E2>
): Effect.Effect<A, E | E2, R> =>
  Effect.timeoutOption(effect, duration).pipe(
    Effect.flatMap(Option.match({ onNone: () => onTimeout, onSome: Effect.succeed }))
  )

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
 * whole response body), and the one place its errors get the call's ids.
 *
 * @internal
 */
export const withinBudget = <A, E extends A2AError, R>(
  call: Call,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | A2ATimeoutError | AgentRuntimeNotReadyError, R> =>
  timeoutWith(effect, call.budget.total, timeoutError(call, "total", call.budget.totalSeconds)).pipe(
    Effect.catchAll((error) => Effect.flip(stamp(call, error)))
  )
