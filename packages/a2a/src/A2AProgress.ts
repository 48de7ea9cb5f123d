/**
 * Progress while a transient runtime is awaited is published, not printed: the client reports
 * {@link RuntimeAccessProgress} events to an optional `A2AProgress` service. Without one, nothing happens.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as RuntimeAccess from "./RuntimeAccess.js"

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
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly report: (event: RuntimeAccessProgress) => Effect.Effect<void>
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
export const report = (event: RuntimeAccessProgress): Effect.Effect<void> =>
  Effect.flatMap(
    Effect.serviceOption(A2AProgress),
    Option.match({ onNone: () => Effect.void, onSome: (progress) => progress.report(event) })
  )
