/**
 * The shapes of the simulation's requests, responses and request log: a leaf module, so the platform's
 * parts read them without importing `SimulatedPlatform` (which re-exports them).
 */
import type * as Stream from "effect/Stream"
import type * as SessionScenario from "../SessionScenario.js"

/** @internal */
export interface SimRequest {
  readonly method: string
  /** the absolute URL */
  readonly url: string
  /** header names in any case (they are compared in lower case) */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** @internal */
export interface SimResponse {
  readonly status: number
  /** header names in lower case */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Stream.Stream<Uint8Array>
}

/** @internal */
export type Target = "backend" | "runtime" | "unknown"

/** @internal */
export type Route =
  | "resolve-runtime-access"
  | "session-detail"
  | "agent-detail"
  | "token-refresh"
  | "message-send"
  | "task-get"
  | "task-cancel"
  | "unknown"

/** @internal */
export interface RequestLogEntry {
  /** 1, 2, … in arrival order */
  readonly seq: number
  readonly method: string
  readonly url: string
  readonly path: string
  readonly target: Target
  readonly route: Route
  /** the session the request concerned, when known */
  readonly sessionUid: string | null
  /** lower-case names; secrets replaced by labels */
  readonly headers: Readonly<Record<string, string>>
  /** label of the bearer token used (`null` without an Authorization header) */
  readonly tokenLabel: string | null
  /** `message.messageId` of a `message:send` body (whatever the answer) */
  readonly messageId: string | null
  /**
   * `message:send` only: why the body is not an A2A v1 `Send Message Request` (`configuration.responseKind`
   * allowed), recorded whatever the answer; `null` when it conforms. A checked violating body gets 400.
   */
  readonly schemaViolation: string | null
  /**
   * Why the Message or Task the runtime answered is not A2A v1 (strict schema); `null` when it conforms or
   * there is none. Only deliberately broken answers (`Invalid`, `Answer` with `extraFields`) set it.
   */
  readonly answerSchemaViolation: string | null
  /** the body bytes (re-encoded from `bodyText` only if a secret had to be replaced) */
  readonly body: Uint8Array
  readonly bodyText: string
  /** Clock time (ms) when the request arrived */
  readonly atMs: number
  /** response status, `null` until the head was produced */
  readonly status: number | null
  /** Clock time (ms) when the head was produced */
  readonly respondedAtMs: number | null
  readonly outcome: "pending" | "responded" | "interrupted" | "connection-failed"
  /**
   * what became of the response body: `pending` while it is being sent (or
   * was never read), `complete` once all of it was sent, `aborted` when the
   * reader stopped early (e.g. a timeout); `null` without a response
   */
  readonly bodyOutcome: "pending" | "complete" | "aborted" | null
  /** Clock time (ms) when the body was complete or aborted */
  readonly bodyEndedAtMs: number | null
}

/** @internal */
export interface TaskRecord {
  readonly id: string
  readonly sessionUid: string
  readonly serviceUid: string
  readonly createdAtMs: number
  readonly script: SessionScenario.TaskScript
  readonly workMs: number
  readonly artifactId: string
  /** the parts of the completed Task's artifact (the answer to the latest turn) */
  answerParts: ReadonlyArray<unknown>
  /** the user's turns and the Agent's questions, oldest first */
  readonly history: Array<unknown>
  /** the id of the current status message */
  statusMessageId: string
  /** follow-up turns taken so far (the index of the next question) */
  turns: number
  /** when the current round of work starts (after the queue, or at the latest follow-up) */
  workStartsAtMs: number
  canceledAtMs: number | null
}
