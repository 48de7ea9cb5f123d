/**
 * The one value every step of a call receives: the client's environment (HTTP client, backend client,
 * cache, the session's shared state) and the state of this call (ids, budget, step under way, whether the
 * message may have been sent).
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { A2AInputError, A2AStep } from "../A2AError.js"
import type * as A2AProgress from "../A2AProgress.js"
import type * as A2AProtocol from "../A2AProtocol.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import type * as Timeout from "../Timeout.js"
import { type AlarmsByClock, makeAlarmsByClock } from "./alarms.js"
import type { BackendClient } from "./backendClient.js"

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
 * A call waiting for its session's resolution: it gets the resolution's outcome, or its own
 * `AgentRuntimeNotReadyError` when a recorded wait's next resolve is at or after its deadline
 * (`sessionResolution.ts` `complete`).
 *
 * @internal
 */
export interface Waiter {
  readonly call: Call
  /** The call's own progress service (read from its context when it joined). */
  readonly progress: Option.Option<A2AProgress.Service>
  /** The outcome, once there is one. */
  outcome: Exit.Exit<RuntimeAccessCache.CachedRuntimeAccess, RuntimeAccessCache.ResolveError> | undefined
  /** Resumes the call awaiting the outcome, while it does. */
  resume:
    | ((outcome: Exit.Exit<RuntimeAccessCache.CachedRuntimeAccess, RuntimeAccessCache.ResolveError>) => void)
    | undefined
}

/**
 * The session's one resolution under way, owned by the client (it runs in the client's scope): the calls
 * waiting for it and the last transient answer. It lives while at least one call waits for it.
 *
 * @internal
 */
export interface Resolution {
  readonly waiters: Set<Waiter>
  /** Set when the resolution records a transient answer (`sessionResolution.ts`). */
  wait: SessionWait | undefined
  /** The resolution's fiber, set as soon as it is forked. */
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
}

/**
 * What the calls to one session share while at least one of them is in flight: the resolution under way
 * and the tokens the runtime rejected. The client's registry drops it when its last call ends.
 * Mutated only in synchronous blocks.
 *
 * @internal
 */
export interface SessionState {
  /** How many calls to the session are in flight. */
  refs: number
  resolution: Resolution | undefined
  /** Newest first, at most a few: tokens the runtime answered 401/403 for. */
  rejectedTokens: ReadonlyArray<Redacted.Redacted<string>>
}

/** @internal */
export const makeSessionState = (): SessionState => ({ refs: 0, resolution: undefined, rejectedTokens: [] })

/**
 * The client's per-session registry: an entry from the first call in flight to a session to the last.
 *
 * @internal
 */
export interface SessionRegistry {
  readonly acquire: (agentSessionUid: string) => SessionState
  readonly release: (agentSessionUid: string, state: SessionState) => void
  /** How many sessions have a call in flight. */
  readonly size: () => number
}

/** @internal */
export const makeSessionRegistry = (): SessionRegistry => {
  const sessions = new Map<string, SessionState>()
  return {
    acquire: (agentSessionUid) => {
      let state = sessions.get(agentSessionUid)
      if (state === undefined) {
        state = makeSessionState()
        sessions.set(agentSessionUid, state)
      }
      state.refs++
      return state
    },
    release: (agentSessionUid, state) => {
      state.refs--
      if (state.refs > 0) return
      // Stryker disable next-line ConditionalExpression: equivalent: each call releases its state once, so a state at zero is still the one in the map
      if (sessions.get(agentSessionUid) === state) sessions.delete(agentSessionUid)
    },
    size: () => sessions.size
  }
}

/**
 * The client's environment, the same for all its calls.
 *
 * @internal
 */
export interface ClientEnv {
  readonly client: HttpClient.HttpClient
  readonly backend: BackendClient
  readonly cache: RuntimeAccessCache.Service
  /** Fails when the client's options are unusable (blank backend URL or access token). */
  readonly ready: Effect.Effect<void, A2AInputError>
  /** The cache key of a session: a hash of backend URL, user and session uid. */
  readonly cacheKey: (agentSessionUid: string) => string
  /** The largest answer read, in bytes. */
  readonly maxResponseBytes: number
  /** The client's per-session registry. */
  readonly sessions: SessionRegistry
  /** The sessions' resolutions running: the client's scope interrupts them when it closes. */
  readonly resolutions: Set<Fiber.RuntimeFiber<unknown, unknown>>
  /** The deadlines of the client's calls in flight. */
  readonly alarms: AlarmsByClock
  /**
   * Whether every wait of a Message call hands its abort to the call's budget (`PhaseDeadline.takeAbort`):
   * the HTTP client takes the exchange's phase (the Node layer's) and the cache never suspends (the in-memory
   * one). Such a call runs on its caller's fiber, with no fiber of its own.
   */
  readonly waitsHandTheirAbort: boolean
}

/**
 * The deadline of the phase under way of the call's current exchange (SPEC §5 `[connect, read]`): the head
 * within connect + read of the request (`response-head`), within read once connected, then at most read
 * between chunks (`read`). The exchange moves it as it connects and as bytes arrive; the call's one
 * alarm (`withinCallBudget`) enforces it together with the total.
 *
 * @internal
 */
export class PhaseDeadline {
  /** Clock millis; `Infinity` while no exchange with phase limits is under way. */
  at = Number.POSITIVE_INFINITY
  // Stryker disable next-line StringLiteral: every `set` names the limit before the alarm reads it
  limit: "read" | "response-head" = "read"
  set(at: number, limit: "read" | "response-head"): void {
    this.at = at
    this.limit = limit
  }
  clear(): void {
    this.at = Number.POSITIVE_INFINITY
  }
  /**
   * The fiber the deadline's budget runs its body on while it runs: the only one that ends that body (by
   * interrupting the fiber, or, on the caller's own fiber, through the waits' aborts alone: `withinCallBudget`).
   */
  owner: Fiber.RuntimeFiber<unknown, unknown> | undefined = undefined
  private abortRequest: (() => void) | undefined = undefined
  private ended = false
  /**
   * Takes the way to end the wait under way on `fiber` (a request's head or chunk, the session's resolution),
   * if `fiber` is the owner (see `ConnectPhase`). The abort must end the wait with an interruption. A wait
   * that starts once the owner has ended the body is ended at once.
   */
  takeAbort(fiber: Fiber.RuntimeFiber<unknown, unknown>, abort: () => void): boolean {
    if (fiber !== this.owner) return false
    if (this.ended) abort()
    else this.abortRequest = abort
    return true
  }
  /** The request's head (or failure) arrived: nothing left to abort. */
  releaseAbort(): void {
    this.abortRequest = undefined
  }
  /** Ends the wait under way (the request's, once its owner has interrupted the fiber it ran on). */
  abort(): void {
    const abort = this.abortRequest
    this.abortRequest = undefined
    abort?.()
  }
  /** The owner ends its body: the wait under way, and each one that starts after, is ended ({@link abort}). */
  end(): void {
    this.ended = true
    this.abort()
  }
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
  /** The step under way (mutable, like the three fields below: set only in synchronous blocks). */
  step: A2AStep
  /** Whether the message may have been sent. */
  sent: boolean
  /** The last transient answer while waiting for the runtime. */
  waitingFor: Option.Option<RuntimeAccess.Transient>
  /** What the calls to this session in flight share. */
  readonly session: SessionState
  lastTask: Option.Option<A2AProtocol.Task>
  readonly phase: PhaseDeadline
  /** Where the call's deadline is kept: its client's alarms. */
  readonly alarms: AlarmsByClock
}

/**
 * One call and the client's environment, passed to each step.
 *
 * @internal
 */
export interface CallContext extends Call, ClientEnv {
  /** This session's cache key. */
  readonly key: string
}

/** @internal */
export interface CallOptions {
  readonly agentSessionUid: string
  readonly messageId?: string | undefined
  readonly taskId?: string | undefined
  readonly budget: Timeout.Budget
  readonly step: A2AStep
  /** Runs the call on its caller's fiber: every wait of it hands its abort (see `ClientEnv.waitsHandTheirAbort`). */
  readonly onCallerFiber?: boolean | undefined
}

/** @internal */
export const makeCall = (
  options: CallOptions & { readonly session?: SessionState | undefined }
): Effect.Effect<Call> =>
  Effect.clockWith((clock) =>
    Effect.sync(() => callAt(clock.unsafeCurrentTimeMillis(), options, options.session, unscopedAlarms))
  )

/** The alarms of a call made without a client (its sleepers are daemons). */
const unscopedAlarms = makeAlarmsByClock()

const callAt = (
  now: number,
  options: CallOptions,
  session: SessionState | undefined,
  alarms: AlarmsByClock
): Call => ({
  agentSessionUid: options.agentSessionUid,
  messageId: options.messageId,
  taskId: options.taskId,
  budget: options.budget,
  deadlineMillis: now + Duration.toMillis(options.budget.total),
  step: options.step,
  sent: false,
  waitingFor: Option.none(),
  // Stryker disable next-line LogicalOperator: only internal tests make a call without a session, and none reads it
  session: session ?? makeSessionState(),
  lastTask: Option.none(),
  phase: new PhaseDeadline(),
  alarms
})

/**
 * A new call of the client at clock millis `now`: it holds its session's shared state until {@link closeCall}
 * (both within one uninterruptible region: `withinCallBudget`).
 *
 * @internal
 */
export const openCall = (env: ClientEnv, options: CallOptions, now: number): CallContext =>
  Object.assign(callAt(now, options, env.sessions.acquire(options.agentSessionUid), env.alarms), {
    client: env.client,
    backend: env.backend,
    cache: env.cache,
    ready: env.ready,
    cacheKey: env.cacheKey,
    maxResponseBytes: env.maxResponseBytes,
    sessions: env.sessions,
    resolutions: env.resolutions,
    waitsHandTheirAbort: env.waitsHandTheirAbort,
    key: env.cacheKey(options.agentSessionUid)
  })

/** @internal */
export const closeCall = (env: ClientEnv, call: CallContext): void =>
  env.sessions.release(call.agentSessionUid, call.session)

/** @internal */
export const enterStep = (call: Call, step: A2AStep): Effect.Effect<void> =>
  Effect.sync(() => {
    call.step = step
  })

/**
 * Records the transient answer the call waits for.
 *
 * @internal
 */
export const noteWaiting = (call: Call, transient: RuntimeAccess.Transient): Effect.Effect<void> =>
  Effect.sync(() => {
    call.waitingFor = Option.some(transient)
  })

/** @internal */
export const spanAttributes = (call: Call, attempt?: number): Record<string, string | number> => ({
  "a2a.session_uid": call.agentSessionUid,
  ...(call.messageId === undefined ? {} : { "a2a.message_id": call.messageId }),
  ...(call.taskId === undefined ? {} : { "a2a.task_id": call.taskId }),
  ...(attempt === undefined ? {} : { "a2a.attempt": attempt })
})
