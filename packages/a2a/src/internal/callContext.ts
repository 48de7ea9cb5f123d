/**
 * The state of one call (ids, budget, step under way, whether the message may have been sent, the transient
 * answer it waits for, the last Task seen) and the state the calls to one session share while in flight.
 * Steps read a call's fields; only the operations of this module change them (a session's resolution changes in
 * `sessionResolution.ts`, an exchange's progress in `deadlines.ts`). The errors that depend on that state
 * (timeouts, "not ready") are made here too, and `stamp` gives any error the call's own ids.
 */
import type * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Equivalence from "effect/Equivalence"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import type * as Tracer from "effect/Tracer"
import { type A2AError, type A2AStep, A2ATimeoutError, AgentRuntimeNotReadyError } from "../A2AError.js"
import type * as A2AProgress from "../A2AProgress.js"
import type * as A2AProtocol from "../A2AProtocol.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import type * as Timeout from "../Timeout.js"
import { scrubTexts } from "./scrubSecrets.js"

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
 * A call waiting for its session's resolution, and the outcome it gets.
 *
 * @internal
 */
export interface Waiter {
  readonly call: Call
  /** The progress of the waits, for the call's own progress service, which its own fiber runs. */
  readonly progress: Option.Option<Queue.Enqueue<A2AProgress.RuntimeAccessProgress>>
  readonly outcome: Deferred.Deferred<RuntimeAccessCache.CachedRuntimeAccess, RuntimeAccessCache.ResolveError>
}

/**
 * The session's one resolution under way: its own call state, the span it runs under (the starting call's), the
 * calls waiting for it and the last transient answer.
 *
 * @internal
 */
export interface Resolution {
  readonly call: Call
  readonly parentSpan: Option.Option<Tracer.AnySpan>
  readonly waiters: Set<Waiter>
  wait: SessionWait | undefined
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
  /** The backend's notice when it admitted the calls, for each of them to report. */
  admittedNotice: AdmittedNotice | undefined
}

/** @internal */
export interface AdmittedNotice {
  readonly state: string
  readonly notice: RuntimeAccess.RuntimeNotice
}

/**
 * What the calls to one session share while at least one of them is in flight (the client's session
 * registry holds it from the first call to the last).
 *
 * @internal
 */
export interface SessionState {
  resolution: Resolution | undefined
  /** Newest first, at most a few: tokens the runtime answered 401/403 for. */
  rejectedTokens: ReadonlyArray<Redacted.Redacted<string>>
  /** The access the session's resolution admitted last; none once a call found the runtime unreachable. */
  admitted: RuntimeAccessCache.CachedRuntimeAccess | undefined
}

/** @internal */
export const makeSessionState = (): SessionState => ({ resolution: undefined, rejectedTokens: [], admitted: undefined })

/** @internal */
export interface Call {
  readonly agentSessionUid: string
  readonly messageId: string | undefined
  readonly taskId: string | undefined
  readonly budget: Timeout.Budget
  readonly deadlineMillis: number
  readonly session: SessionState
  /** The session's `admitted` when the call's attempt began: anything admitted since is newer than its access. */
  readonly admittedBefore: RuntimeAccessCache.CachedRuntimeAccess | undefined
  readonly step: A2AStep
  /** Whether the message may have been sent. */
  readonly sent: boolean
  /** The last transient answer while waiting for the runtime. */
  readonly waitingFor: Option.Option<RuntimeAccess.Transient>
  /** The last Task seen, its texts scrubbed of secrets when a timeout error first shows it. */
  readonly lastTask: Option.Option<() => unknown>
  /** The call's own exchange under way, if any (`deadlines.ts`). */
  readonly exchange: ExchangeProgress | undefined
  /** The session's resolution the call waits for: each of its exchanges is held to this call's phase limits too. */
  readonly awaiting: Call | undefined
}

/**
 * An exchange under way: the clock millis it started at and, once its connection was up or bytes of its answer
 * arrived, the last time they did. Each call waiting for it works out its own phase limits from them.
 *
 * @internal
 */
export interface ExchangeProgress {
  readonly startedMillis: number
  progressedMillis: number | undefined
}

type MutableCall = { -readonly [K in keyof Call]: Call[K] }

/** @internal */
export interface CallOptions {
  readonly agentSessionUid: string
  readonly messageId?: string | undefined
  readonly taskId?: string | undefined
  readonly budget: Timeout.Budget
  readonly step: A2AStep
}

/**
 * A new call at clock millis `now`, sharing `session` with the other calls to its session.
 *
 * @internal
 */
export const callAt = (options: CallOptions, session: SessionState, now: number): Call => ({
  agentSessionUid: options.agentSessionUid,
  messageId: options.messageId,
  taskId: options.taskId,
  budget: options.budget,
  deadlineMillis: now + Duration.toMillis(options.budget.total),
  session,
  admittedBefore: session.admitted,
  step: options.step,
  sent: false,
  waitingFor: Option.none(),
  lastTask: Option.none(),
  exchange: undefined,
  awaiting: undefined
})

/**
 * A new call now, with a session of its own.
 *
 * @internal
 */
export const makeCall = (options: CallOptions): Effect.Effect<Call> =>
  Effect.clockWith((clock) => Effect.sync(() => callAt(options, makeSessionState(), clock.unsafeCurrentTimeMillis())))

/** @internal */
export const enterStep = (call: Call, step: A2AStep): Effect.Effect<void> =>
  Effect.sync(() => {
    ;(call as MutableCall).step = step
  })

/**
 * Whether the message may have been sent; set synchronously (the HTTP layer reports from its callbacks).
 *
 * @internal
 */
export const setSent = (call: Call, sent: boolean): void => {
  ;(call as MutableCall).sent = sent
}

/** @internal */
export const setExchange = (call: Call, exchange: ExchangeProgress | undefined): void => {
  ;(call as MutableCall).exchange = exchange
}

/**
 * The call's deadline is now (a session's resolution whose last waiting call left by its deadline).
 *
 * @internal
 */
export const endAt = (call: Call, now: number): void => {
  ;(call as MutableCall).deadlineMillis = now
}

/**
 * The connect limit of the call's next exchanges (a session's resolution: the loosest of the calls waiting).
 *
 * @internal
 */
export const setConnectLimit = (call: Call, connect: Duration.Duration | undefined): void => {
  ;(call as MutableCall).budget = { ...call.budget, connect }
}

/** @internal */
export const setAwaiting = (call: Call, resolution: Call | undefined): void => {
  ;(call as MutableCall).awaiting = resolution
}

/** @internal */
export const noteWaiting = (call: Call, transient: RuntimeAccess.Transient): Effect.Effect<void> =>
  Effect.sync(() => {
    ;(call as MutableCall).waitingFor = Option.some(transient)
  })

/** @internal */
export const noteTask = (call: Call, task: A2AProtocol.Task, scrub: (text: string) => string): Effect.Effect<void> =>
  Effect.sync(() => {
    // Scrubbed once, if ever shown: a wait polls many Tasks, and a large one costs its every string.
    let shown: unknown
    ;(call as MutableCall).lastTask = Option.some(() => shown ??= scrubTexts(task, scrub))
  })

const lastTaskShown = (call: Call): unknown => Option.getOrUndefined(call.lastTask)?.()

/**
 * Whether two tokens are the same secret.
 *
 * @internal
 */
export const sameToken = Redacted.getEquivalence(Equivalence.string)

/** How many rejected tokens a session remembers. */
const rememberedRejections = 16

/**
 * The runtime rejected `token` for the session: remembered, the newest first, a bounded few.
 *
 * @internal
 */
export const rememberRejected = (session: SessionState, token: Redacted.Redacted<string>): void => {
  // Stryker disable next-line MethodExpression: only bounds the memory kept; no rule reads past 16 tokens
  session.rejectedTokens = [token, ...session.rejectedTokens].slice(0, rememberedRejections)
}

/**
 * The backend handed `token` out again after the runtime rejected it: its word is newer.
 *
 * @internal
 */
export const forgetRejected = (session: SessionState, token: Redacted.Redacted<string>): void => {
  session.rejectedTokens = session.rejectedTokens.filter((rejected) => !sameToken(rejected, token))
}

/**
 * The call's next attempt to obtain access and send begins (`refreshOnce.ts`).
 *
 * @internal
 */
export const beginAttempt = (call: Call): Effect.Effect<void> =>
  Effect.sync(() => {
    ;(call as MutableCall).admittedBefore = call.session.admitted
  })

/**
 * The session's resolution admitted `access`: a call refused since its attempt began may take it.
 *
 * @internal
 */
export const noteAdmitted = (session: SessionState, access: RuntimeAccessCache.CachedRuntimeAccess): void => {
  session.admitted = access
}

/**
 * The session's last admitted access is not to be taken again (its runtime could not be reached).
 *
 * @internal
 */
export const forgetAdmitted = (session: SessionState): void => {
  session.admitted = undefined
}

/**
 * `AgentRuntimeNotReadyError` for a call still waiting for a transient runtime (nothing sent), with the phase
 * limit that ended the wait, if one did.
 *
 * @internal
 */
export const notReadyError = (
  call: Call,
  transient: RuntimeAccess.Transient,
  now: number,
  phase?: Pick<AgentRuntimeNotReadyError, "limit" | "seconds">
) =>
  new AgentRuntimeNotReadyError({
    agentSessionUid: call.agentSessionUid,
    messageId: call.messageId,
    state: transient.state,
    retryAfterMs: transient.retryAfterMs,
    remainingMs: Math.max(0, call.deadlineMillis - now),
    detail: transient.presence?.detail ?? undefined,
    ...phase
  })

/** @internal */
export type CallTimeout = A2ATimeoutError | AgentRuntimeNotReadyError

/** The seconds a limit of `budget` gives; the response head's limit is connect + read. */
const limitSeconds = (budget: Timeout.Budget, limit: A2ATimeoutError["limit"]): number => {
  const { connect = Duration.zero, read = Duration.zero } = budget
  switch (limit) {
    case "total":
      return budget.totalSeconds
    case "connect":
      return Duration.toSeconds(connect)
    case "read":
      return Duration.toSeconds(read)
    case "response-head":
      return Duration.toSeconds(Duration.sum(connect, read))
  }
}

/**
 * The timeout error for the call's state at clock millis `now`: still waiting for a transient runtime
 * (nothing sent) → `AgentRuntimeNotReadyError`, otherwise `A2ATimeoutError` naming the step. A phase limit
 * that runs out with the total is reported as the total.
 *
 * @internal
 */
export const timeoutErrorAt = (call: Call, limit: A2ATimeoutError["limit"], now: number): CallTimeout => {
  if (limit !== "total" && now >= call.deadlineMillis) return timeoutErrorAt(call, "total", now)
  const { sent, step, waitingFor } = call
  const waiting = step === "resolve-runtime-access" || step === "await-runtime"
  if (!sent && Option.isSome(waitingFor) && waiting) {
    const phase = limit === "total" ? undefined : { limit, seconds: limitSeconds(call.budget, limit) }
    return notReadyError(call, waitingFor.value, now, phase)
  }
  return new A2ATimeoutError({
    agentSessionUid: call.agentSessionUid,
    messageId: call.messageId,
    step,
    limit,
    seconds: limitSeconds(call.budget, limit),
    messageMayHaveBeenSent: sent,
    taskId: call.taskId,
    lastTask: lastTaskShown(call)
  })
}

/**
 * The call's own ids (and its own `messageMayHaveBeenSent`, Task id and last Task) on an error: an error
 * of the session's shared resolution reaches every call waiting for it. The copy is built by the error's
 * own Schema class, which validates it again.
 *
 * @internal
 */
export const stamp = <E extends A2AError>(call: Call, error: E): E => {
  if (error._tag === "A2AInputError") return error
  const own: Record<string, unknown> = { agentSessionUid: call.agentSessionUid, messageId: call.messageId }
  if ("messageMayHaveBeenSent" in error) own.messageMayHaveBeenSent = call.sent
  // Stryker disable next-line all: reached only by a call that joins as a shared resolve's connect limit ends it
  if (error._tag === "A2ATimeoutError") {
    own.taskId = call.taskId
    own.lastTask = lastTaskShown(call)
  }
  if (Object.entries(own).every(([field, value]) => Reflect.get(error, field) === value)) return error
  return Reflect.construct(error.constructor, [{ ...error, ...own }]) as E
}

/**
 * The attributes every span of a call carries (OpenTelemetry's A2A vocabulary; the session uid is the
 * A2A context id).
 *
 * @internal
 */
export const spanAttributes = (call: Call): Record<string, string> => ({
  "gen_ai.conversation.id": call.agentSessionUid,
  ...(call.messageId === undefined ? {} : { "a2a.message.id": call.messageId }),
  ...(call.taskId === undefined ? {} : { "a2a.task.id": call.taskId })
})
