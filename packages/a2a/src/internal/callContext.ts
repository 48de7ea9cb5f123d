/**
 * The one value every step of a call receives: the client's environment (HTTP client, backend client,
 * cache, the session's shared state) and the state of this call (ids, budget, step under way, whether the
 * message may have been sent).
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Clock from "effect/Clock"
import type * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import type { A2AInputError, A2AStep, AgentRuntimeNotReadyError } from "../A2AError.js"
import type * as A2AProtocol from "../A2AProtocol.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import type * as Timeout from "../Timeout.js"
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
  /** The call that led the wait ended without access: a call that takes over resumes it, none leaves by it. */
  readonly abandoned?: boolean | undefined
}

/**
 * A call in the session's resolution that another call leads: `left` fails with its own
 * `AgentRuntimeNotReadyError` when a wait recorded for the session retries at or after its deadline.
 *
 * @internal
 */
export interface JoinedCall {
  readonly call: Call
  readonly left: Deferred.Deferred<never, AgentRuntimeNotReadyError>
  /** Set when the cache's single flight made this call the leader after all: no wait sends it away then. */
  leading: boolean
}

/**
 * What the calls to one session share (the client's one per-session registry holds it): the last transient
 * answer of the session's resolution whichever call leads it, the calls in that resolution that do not lead
 * it, how many leads of that resolution ended, and the tokens the runtime rejected. The resolution itself
 * runs once at a time per session through the cache's single flight (`RuntimeAccessCache.getOrResolve`).
 *
 * @internal
 */
export interface SharedSession {
  /** Set through `recordWait` (`sessionWait.ts`), which sends away the joined calls the wait outlives. */
  readonly wait: Ref.Ref<Option.Option<SessionWait>>
  /** Mutated only in `Effect.sync` blocks: a registry, not state any step reads for a decision. */
  readonly joined: Set<JoinedCall>
  /** Counts the ends of leads: a call whose lead starts after one it was in ended takes that one over. */
  readonly leadsEnded: Ref.Ref<number>
  readonly rejectedTokens: Ref.Ref<ReadonlyArray<Redacted.Redacted<string>>>
}

/** @internal */
export const makeSharedSession: Effect.Effect<SharedSession> = Effect.all({
  wait: Ref.make(Option.none<SessionWait>()),
  joined: Effect.sync(() => new Set<JoinedCall>()),
  leadsEnded: Ref.make(0),
  rejectedTokens: Ref.make<ReadonlyArray<Redacted.Redacted<string>>>([])
})

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
  /** The client's one per-session registry. */
  readonly sharedSession: (agentSessionUid: string) => Effect.Effect<SharedSession>
}

/**
 * The deadline of the phase under way of the call's current exchange (SPEC §5 `[connect, read]`): the head
 * within connect + read of the request (`response-head`), within read once connected, then at most read
 * between chunks (`read`). The exchange moves it as it connects and as bytes arrive; the call's one
 * watchdog (`withinBudget`) enforces it together with the total.
 *
 * @internal
 */
export class PhaseDeadline {
  /** Clock millis; `Infinity` while no exchange with phase limits is under way. */
  at = Number.POSITIVE_INFINITY
  limit: "read" | "response-head" = "read"
  set(at: number, limit: "read" | "response-head"): void {
    this.at = at
    this.limit = limit
  }
  clear(): void {
    this.at = Number.POSITIVE_INFINITY
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
  readonly step: Ref.Ref<A2AStep>
  readonly sent: Ref.Ref<boolean>
  /** The last transient answer while waiting for the runtime, cleared once admitted. */
  readonly waitingFor: Ref.Ref<Option.Option<RuntimeAccess.Transient>>
  /** What the calls to this session share; a call that joined another call's wait sees the wait it is in. */
  readonly session: SharedSession
  readonly lastTask: Ref.Ref<Option.Option<A2AProtocol.Task>>
  readonly phase: PhaseDeadline
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

interface CallOptions {
  readonly agentSessionUid: string
  readonly messageId?: string | undefined
  readonly taskId?: string | undefined
  readonly budget: Timeout.Budget
  readonly step: A2AStep
}

/** @internal */
export const makeCall = (
  options: CallOptions & { readonly session?: SharedSession | undefined }
): Effect.Effect<Call> =>
  Effect.flatMap(
    options.session === undefined ? makeSharedSession : Effect.succeed(options.session),
    (session) =>
      Effect.clockWith((clock) =>
        Effect.sync((): Call => ({
          agentSessionUid: options.agentSessionUid,
          messageId: options.messageId,
          taskId: options.taskId,
          budget: options.budget,
          deadlineMillis: clock.unsafeCurrentTimeMillis() + Duration.toMillis(options.budget.total),
          step: Ref.unsafeMake(options.step),
          sent: Ref.unsafeMake(false),
          waitingFor: Ref.unsafeMake(Option.none<RuntimeAccess.Transient>()),
          session,
          lastTask: Ref.unsafeMake(Option.none<A2AProtocol.Task>()),
          phase: new PhaseDeadline()
        }))
      )
  )

/** @internal */
export const makeCallContext = (env: ClientEnv, options: CallOptions): Effect.Effect<CallContext> =>
  Effect.flatMap(
    env.sharedSession(options.agentSessionUid),
    (session) =>
      // Field by field rather than by spreading: one object shape for every call, built without a spread's
      // property-by-property copy (measured on the per-send path).
      Effect.map(makeCall({ ...options, session }), (call): CallContext => ({
        client: env.client,
        backend: env.backend,
        cache: env.cache,
        ready: env.ready,
        cacheKey: env.cacheKey,
        maxResponseBytes: env.maxResponseBytes,
        sharedSession: env.sharedSession,
        agentSessionUid: call.agentSessionUid,
        messageId: call.messageId,
        taskId: call.taskId,
        budget: call.budget,
        deadlineMillis: call.deadlineMillis,
        step: call.step,
        sent: call.sent,
        waitingFor: call.waitingFor,
        session: call.session,
        lastTask: call.lastTask,
        phase: call.phase,
        key: env.cacheKey(options.agentSessionUid)
      }))
  )

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
