/**
 * One total deadline per call (SPEC §5), read from `Clock`, enforced by one timeout around the whole
 * composed call. The step under way and whether the message was sent are tracked so the timeout can say
 * what it cut.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { type A2AStep, A2ATimeoutError, AgentRuntimeNotReadyError } from "../A2AError.js"
import type * as A2AProtocol from "../A2AProtocol.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import type * as Timeout from "../Timeout.js"

/**
 * A transient answer of a session's resolution, and when the platform asked to be asked again.
 *
 * @internal
 */
export interface SessionWait {
  readonly transient: RuntimeAccess.Transient
  /** Clock millis of the next resolve: the resolve time plus `retry_after_ms`. */
  readonly retryAtMillis: number
  readonly attempt: number
}

/**
 * The state of one call.
 *
 * @internal
 */
export interface Call {
  readonly agentSessionUid: string
  readonly messageId: string | undefined
  readonly taskId: string | undefined
  readonly budget: Timeout.Budget
  readonly deadlineMillis: number
  readonly step: Ref.Ref<A2AStep>
  readonly sent: Ref.Ref<boolean>
  /** The last transient answer while waiting for the runtime, cleared once admitted. */
  readonly waitingFor: Ref.Ref<Option.Option<RuntimeAccess.Transient>>
  /**
   * The last transient answer of the session's resolution under way, whichever call leads it: a call that
   * joined another call's wait (single flight through the cache) sees the wait it is in.
   */
  readonly sessionWaitingFor: SubscriptionRef.SubscriptionRef<Option.Option<SessionWait>>
  readonly lastTask: Ref.Ref<Option.Option<A2AProtocol.Task>>
}

/** @internal */
export const makeCall = (options: {
  readonly agentSessionUid: string
  readonly messageId?: string | undefined
  readonly taskId?: string | undefined
  readonly budget: Timeout.Budget
  readonly step: A2AStep
  readonly sessionWaitingFor?: SubscriptionRef.SubscriptionRef<Option.Option<SessionWait>> | undefined
}): Effect.Effect<Call> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    return {
      agentSessionUid: options.agentSessionUid,
      messageId: options.messageId,
      taskId: options.taskId,
      budget: options.budget,
      deadlineMillis: now + Duration.toMillis(options.budget.total),
      step: yield* Ref.make(options.step),
      sent: yield* Ref.make(false),
      waitingFor: yield* Ref.make(Option.none<RuntimeAccess.Transient>()),
      sessionWaitingFor: options.sessionWaitingFor ?? (yield* SubscriptionRef.make(Option.none<SessionWait>())),
      lastTask: yield* Ref.make(Option.none<A2AProtocol.Task>())
    }
  })

/** @internal */
export const remainingMillis = (call: Call): Effect.Effect<number> =>
  Effect.map(Clock.currentTimeMillis, (now) => call.deadlineMillis - now)

/** @internal */
export const enterStep = (call: Call, step: A2AStep): Effect.Effect<void> => Ref.set(call.step, step)

/** @internal */
export const spanAttributes = (call: Call, attempt?: number): Record<string, string | number> => ({
  "a2a.session_uid": call.agentSessionUid,
  ...(call.messageId === undefined ? {} : { "a2a.message_id": call.messageId }),
  ...(call.taskId === undefined ? {} : { "a2a.task_id": call.taskId }),
  ...(attempt === undefined ? {} : { "a2a.attempt": attempt })
})

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
    const joined = Option.map(yield* Ref.get(call.sessionWaitingFor), (wait) => wait.transient)
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
 * The one total timeout around a whole call: discovery, resolution, the transient wait, the request and
 * the whole response body.
 *
 * @internal
 */
export const withinBudget = <A, E, R>(
  call: Call,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | A2ATimeoutError | AgentRuntimeNotReadyError, R> =>
  timeoutWith(effect, call.budget.total, timeoutError(call, "total", call.budget.totalSeconds))
