/**
 * The `A2AClient` service: send a message to an existing Main Sequence `AgentSession.uid`, and follow a
 * Task through get / wait / cancel.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as A2AError from "./A2AError.js"
import type * as A2AProtocol from "./A2AProtocol.js"
import type * as Attachment from "./Attachment.js"
import type * as Timeout from "./Timeout.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SendA2AMessageInput {
  /** The text of the message; blank is an error. */
  readonly message: string
  /** The caller's message id (trimmed, `^[A-Za-z0-9._:-]{1,128}$`); default `msg-<uuid v4>`. */
  readonly messageId?: string | undefined
  /** Ask for a strict JSON dictionary answer. */
  readonly strictDictionary?: boolean | undefined
  /** With `strictDictionary`: how often the platform may repair invalid JSON (integer ≥ 1, default 3). */
  readonly jsonRepairAttempts?: number | undefined
  readonly attachments?: ReadonlyArray<Attachment.Attachment> | undefined
  /** `"message"` (default) or `"task"` (only for Agents that advertise Task support). */
  readonly responseKind?: A2AProtocol.ResponseKind | undefined
  /** Task mode: the Agent's A2A profile, when the caller has it (skips discovery). */
  readonly agentProfile?: A2AProtocol.A2AProfile | undefined
  /** The call's budget; default `[5, 900]`. */
  readonly timeout?: Timeout.Timeout | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface TaskCallOptions {
  readonly timeout?: Timeout.Timeout | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface A2AClientOptions {
  /** The backend base URL, e.g. `https://api.main-sequence.app`. */
  readonly backendUrl: string
  /** The user's access token for the backend. */
  readonly accessToken: Redacted.Redacted<string>
  /** Used once to refresh the access token when the backend answers 401. */
  readonly refreshToken?: Redacted.Redacted<string> | undefined
  /** Scopes the access cache; without it, a hash of the access token does. */
  readonly username?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface A2AClient {
  readonly sendA2AMessage: {
    (
      agentSessionUid: string,
      input: SendA2AMessageInput & { readonly responseKind: "task" }
    ): Effect.Effect<A2AProtocol.Task, A2AError.SendError>
    (
      agentSessionUid: string,
      input: SendA2AMessageInput & { readonly responseKind?: "message" | undefined }
    ): Effect.Effect<A2AProtocol.Message, A2AError.SendError>
    (
      agentSessionUid: string,
      input: SendA2AMessageInput
    ): Effect.Effect<A2AProtocol.Message | A2AProtocol.Task, A2AError.SendError>
  }
  readonly getA2ATask: (
    agentSessionUid: string,
    taskId: string,
    options?: TaskCallOptions
  ) => Effect.Effect<A2AProtocol.Task, A2AError.TaskError>
  readonly waitForA2ATask: (
    agentSessionUid: string,
    taskId: string,
    options?: TaskCallOptions
  ) => Effect.Effect<A2AProtocol.Task, A2AError.TaskError>
  readonly cancelA2ATask: (
    agentSessionUid: string,
    taskId: string,
    options?: TaskCallOptions
  ) => Effect.Effect<A2AProtocol.Task, A2AError.TaskError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const A2AClient: Context.Tag<A2AClient, A2AClient> = Context.GenericTag<A2AClient>(
  "@mainsequence/a2a/A2AClient"
)
