/**
 * Progress is published, not printed: the client reports {@link A2AProgressEvent}s to an optional
 * `A2AProgress` service — {@link MessagePrepared} once the request body of a send is built (before any
 * network call), {@link RuntimeAccessProgress} before each wait for a transient runtime, {@link MessageSending}
 * as the message goes to the runtime. Without the service, nothing happens.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
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
 * Reported before each wait for a transient runtime.
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
  /** 1 for the first resolution of the call, then 2, 3, … */
  readonly attempt: number
}

/**
 * Every progress event, tagged by `_tag`.
 *
 * @since 0.1.0
 * @category models
 */
export type A2AProgressEvent = MessagePrepared | RuntimeAccessProgress | MessageSending

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
