/**
 * Progress is published, not printed: the client reports {@link A2AProgressEvent}s to an optional
 * `A2AProgress` service — {@link MessagePrepared} once the request body of a send is built (before any
 * network call), {@link RuntimeAccessProgress} before each wait for a transient runtime,
 * {@link RuntimeAccessNotice} when the backend admits a call with a notice, {@link MessageSending}
 * as the message goes to the runtime, {@link TaskProgress} before each wait of `waitForA2ATask`. Without the
 * service, nothing happens.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as A2AProtocol from "./A2AProtocol.js"
import type * as RuntimeAccess from "./RuntimeAccess.js"

/**
 * Reported once the request body of a send is built, before any network call: from here on, `messageId`
 * is the id that goes on the wire (for a caller that wants to name it even if the call is interrupted).
 *
 * @since 0.1.0
 * @category models
 */
export interface MessagePrepared {
  readonly _tag: "MessagePrepared"
  readonly agentSessionUid: string
  readonly messageId: string
}

/**
 * Reported as the message's bytes are handed to the runtime's HTTP request, at each attempt (the resend after
 * a 401/403 too): before it, an interrupted send has provably not delivered the message; from it on, it may
 * have.
 *
 * @since 0.2.0
 * @category models
 */
export interface MessageSending {
  readonly _tag: "MessageSending"
  readonly agentSessionUid: string
  readonly messageId: string
}

/**
 * Reported before a wait for a transient runtime. Calls that share their session's resolution see its events;
 * a call is given the latest, so one reported while the call was busy may be replaced by the next.
 *
 * @since 0.1.0
 * @category models
 */
export interface RuntimeAccessProgress {
  readonly _tag: "RuntimeAccessProgress"
  readonly agentSessionUid: string
  readonly messageId: string | undefined
  /** `runtime_interaction.state`, e.g. `waking`. */
  readonly state: string
  readonly notice: RuntimeAccess.RuntimeNotice | undefined
  /** `runtime_presence.phase` / `.detail`, diagnostic only. */
  readonly presencePhase: string | undefined
  readonly presenceDetail: string | undefined
  /** The wait before the next resolution. */
  readonly retryAfterMs: number
  /**
   * The session's resolution's resolve count: 1 for its first resolve, then 2, 3, … (a call that joined it late
   * starts higher).
   */
  readonly attempt: number
}

/**
 * Reported when the backend admits the call with a notice (`runtime_interaction.state` `warning`, for example):
 * the call goes on, and the notice is for its caller to show (SPEC §3). Access from the cache has none.
 *
 * @since 0.2.0
 * @category models
 */
export interface RuntimeAccessNotice {
  readonly _tag: "RuntimeAccessNotice"
  readonly agentSessionUid: string
  readonly messageId: string | undefined
  /** `runtime_interaction.state`, e.g. `warning`. */
  readonly state: string
  readonly notice: RuntimeAccess.RuntimeNotice
}

/**
 * Reported by `waitForA2ATask` before each wait for a Task still under way (`TASK_STATE_SUBMITTED`,
 * `TASK_STATE_WORKING`).
 *
 * @since 0.2.0
 * @category models
 */
export interface TaskProgress {
  readonly _tag: "TaskProgress"
  readonly agentSessionUid: string
  readonly taskId: string
  /** The state the last get saw. */
  readonly state: A2AProtocol.TaskState
  /** The wait before the next get (the call's budget may end it sooner). */
  readonly retryAfterMs: number
}

/**
 * Every progress event, tagged by `_tag`.
 *
 * @since 0.1.0
 * @category models
 */
export type A2AProgressEvent =
  | MessagePrepared
  | RuntimeAccessProgress
  | RuntimeAccessNotice
  | MessageSending
  | TaskProgress

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly report: (event: A2AProgressEvent) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class A2AProgress extends Context.Tag("@mainsequence/a2a/A2AProgress")<A2AProgress, Service>() {}

/**
 * Reports to the `A2AProgress` service in context, if there is one.
 *
 * @since 0.1.0
 * @category utils
 */
export const report = (event: A2AProgressEvent): Effect.Effect<void> =>
  Effect.flatMap(
    Effect.serviceOption(A2AProgress),
    Option.match({ onNone: () => Effect.void, onSome: (progress) => progress.report(event) })
  )
