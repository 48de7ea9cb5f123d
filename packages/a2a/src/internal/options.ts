/**
 * The options of the client and of its calls, and the fields each may hold: a leaf module, so the steps
 * read them without importing the client (re-exported by `A2AClient`).
 */
import type * as Redacted from "effect/Redacted"
import type * as A2AProtocol from "../A2AProtocol.js"
import type * as Attachment from "../Attachment.js"
import type * as Timeout from "../Timeout.js"

/** @internal */
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
  /**
   * `"message"` (default) or `"task"` (only for Agents that advertise Task support). A follow-up turn
   * (`taskId`) must say `"task"`: a `taskId` without it is an `A2AInputError`, nothing sent.
   */
  readonly responseKind?: A2AProtocol.ResponseKind | undefined
  /**
   * A follow-up turn (SPEC §7): the id of an interrupted Task (`INPUT_REQUIRED` / `AUTH_REQUIRED`) this
   * message answers, sent as `message.taskId`. Task mode only (`responseKind: "task"`); the answer must be
   * that same Task (same `id`), else `InvalidA2AResponseError` with rule `task-id`. Trimmed; blank is an error.
   */
  readonly taskId?: string | undefined
  /** Ids of other Tasks this message refers to, sent as `message.referenceTaskIds` as given (non-blank). */
  readonly referenceTaskIds?: ReadonlyArray<string> | undefined
  /** Task mode: the Agent's A2A profile, when the caller has it (skips discovery). */
  readonly agentProfile?: A2AProtocol.A2AProfile | undefined
  /** The call's budget; default `[5, 900]`. */
  readonly timeout?: Timeout.Timeout | undefined
}

/** @internal */
export interface TaskCallOptions {
  readonly timeout?: Timeout.Timeout | undefined
}

/** @internal */
export interface A2AClientOptions {
  /** The backend base URL, e.g. `https://api.main-sequence.app`. */
  readonly backendUrl: string
  /** The user's access token for the backend; a plain string is wrapped in `Redacted` at once. */
  readonly accessToken: string | Redacted.Redacted<string>
  /** Used once to refresh the access token when the backend answers 401; a plain string is redacted at once. */
  readonly refreshToken?: string | Redacted.Redacted<string> | undefined
  /** Scopes the access cache; without it, a hash of the access token does. */
  readonly username?: string | undefined
  /**
   * The largest answer (backend or runtime) the client reads, in bytes; default {@link defaultMaxResponseBytes}.
   * A larger one is refused from its `Content-Length`, or once its body passes the limit.
   */
  readonly maxResponseBytes?: number | undefined
}

/**
 * The fields each options object may hold: any other is refused, as an untyped (or spread) caller's typo.
 *
 * @internal
 */
export const fieldsOf = {
  sendInput: Object.keys(
    {
      message: null,
      messageId: null,
      strictDictionary: null,
      jsonRepairAttempts: null,
      attachments: null,
      responseKind: null,
      taskId: null,
      referenceTaskIds: null,
      agentProfile: null,
      timeout: null
    } satisfies Record<keyof SendA2AMessageInput, null>
  ),
  taskCallOptions: Object.keys({ timeout: null } satisfies Record<keyof TaskCallOptions, null>),
  clientOptions: Object.keys(
    {
      backendUrl: null,
      accessToken: null,
      refreshToken: null,
      username: null,
      maxResponseBytes: null
    } satisfies Record<keyof A2AClientOptions, null>
  )
}
