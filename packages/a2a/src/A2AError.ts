/**
 * Every failure of the SDK, as tagged errors (SPEC §10). The tags are public API: catch them with
 * `Effect.catchTag` / `Effect.catchTags`. Each error carries structured fields and prints a one-line
 * human `message` that never contains a token.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { oneLine } from "./internal/oneLine.js"

const SessionFields = {
  agentSessionUid: Schema.optional(Schema.String),
  messageId: Schema.optional(Schema.String)
}

const HttpFields = {
  method: Schema.String,
  url: Schema.String,
  status: Schema.Number
}

// Every message is one line: the platform's texts in it (a state, a notice, a detail) may hold line breaks.
const withIds = (text: string, error: { readonly agentSessionUid?: string | undefined }): string =>
  oneLine(error.agentSessionUid === undefined ? text : `${text} (session ${error.agentSessionUid})`)

/** `text` ended as a sentence: a period, unless a platform's text already ends in one (or in `!`, `?`). */
const sentence = (text: string): string => /[.!?]$/.test(text.trimEnd()) ? text.trimEnd() : `${text.trimEnd()}.`

/**
 * Bad input: the call is refused before any request is sent (SPEC §9).
 *
 * @since 0.1.0
 * @category errors
 */
export class A2AInputError extends Schema.TaggedError<A2AInputError>()("A2AInputError", {
  field: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Invalid ${this.field}: ${this.reason}`
  }
}

/**
 * The step of a call that was under way when it failed.
 *
 * @since 0.1.0
 * @category models
 */
export const A2AStep = Schema.Literal(
  "discover-agent",
  "resolve-runtime-access",
  "await-runtime",
  "send-message",
  "read-response",
  "get-task",
  "wait-task",
  "cancel-task"
)

/**
 * @since 0.1.0
 * @category models
 */
export type A2AStep = typeof A2AStep.Type

const RuntimeNotice = Schema.Struct({
  code: Schema.optional(Schema.NullOr(Schema.String)),
  severity: Schema.optional(Schema.NullOr(Schema.String)),
  title: Schema.optional(Schema.NullOr(Schema.String)),
  message: Schema.optional(Schema.NullOr(Schema.String))
})

/**
 * The runtime was still starting when the call's time for it ran out: the platform's next `retry_after_ms` no
 * longer fitted in the call's budget, or (`limit`, `seconds`) the backend's next answer about the runtime did
 * not come within a phase limit of a `[connect, read]` budget. Nothing was sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class AgentRuntimeNotReadyError extends Schema.TaggedError<AgentRuntimeNotReadyError>()(
  "AgentRuntimeNotReadyError",
  {
    ...SessionFields,
    state: Schema.String,
    retryAfterMs: Schema.optional(Schema.Number),
    remainingMs: Schema.Number,
    detail: Schema.optional(Schema.String),
    /** @since 0.2.0 */
    limit: Schema.optional(Schema.Literal("connect", "read", "response-head")),
    /** @since 0.2.0 */
    seconds: Schema.optional(Schema.Number)
  }
) {
  override get message(): string {
    if (this.limit !== undefined) {
      const limit = this.limit === "response-head" ? "connect + read limits" : `${this.limit} limit`
      return withIds(
        `The Agent runtime is still ${this.state}, and the backend's next answer about it did not come within the ${this.seconds} s ${limit}. Nothing was sent`,
        this
      )
    }
    const retry = this.retryAfterMs === undefined ? "" : `; the next check in ${this.retryAfterMs} ms`
    return withIds(
      `The Agent runtime is still ${this.state}${retry} would not fit in the remaining budget of ${this.remainingMs} ms. Nothing was sent`,
      this
    )
  }
}

/**
 * The backend refused submission with a terminal state (`can_submit: false`, not transient). Nothing was
 * sent and nothing is retried.
 *
 * @since 0.1.0
 * @category errors
 */
export class AgentRuntimeUnavailableError extends Schema.TaggedError<AgentRuntimeUnavailableError>()(
  "AgentRuntimeUnavailableError",
  {
    ...SessionFields,
    state: Schema.String,
    notice: Schema.optional(RuntimeNotice),
    detail: Schema.optional(Schema.String),
    presenceDetail: Schema.optional(Schema.String)
  }
) {
  override get message(): string {
    const parts = [this.notice?.title, this.notice?.message, this.detail].filter(Predicate.isString)
    const why = parts.length === 0 ? "" : `: ${parts.join(" — ")}`
    return withIds(
      `${sentence(`The Agent runtime cannot take messages (state ${this.state})${why}`)} Nothing was sent`,
      this
    )
  }
}

/**
 * A 5xx answer from the backend or the runtime (including gateway pages). Never retried.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerError extends Schema.TaggedError<ServerError>()("ServerError", {
  ...SessionFields,
  ...HttpFields,
  origin: Schema.Literal("backend", "runtime"),
  reason: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const what = this.origin === "backend" ? "The Main Sequence backend" : "The Agent runtime"
    const detail = this.detail === undefined ? "" : `: ${this.detail}`
    return withIds(`${what} answered ${this.status} to ${this.method} ${this.url}${detail}`, this)
  }
}

/**
 * The Agent did not answer a direct Message within the platform's Message limit (a 504 carrying ErrorInfo
 * reason `MESSAGE_RESPONSE_LIMIT_EXCEEDED`, domain `mainsequence.ai`). A kind of server error: see
 * {@link isServerError}. Never retried and never turned into a Task.
 *
 * @since 0.1.0
 * @category errors
 */
export class A2AMessageLimitExceededError extends Schema.TaggedError<A2AMessageLimitExceededError>()(
  "A2AMessageLimitExceededError",
  {
    ...SessionFields,
    ...HttpFields,
    origin: Schema.Literal("runtime"),
    reason: Schema.Literal("MESSAGE_RESPONSE_LIMIT_EXCEEDED"),
    limitSeconds: Schema.Number
  }
) {
  override get message(): string {
    return withIds(
      `The Agent did not answer the Message within the platform's limit of ${this.limitSeconds} seconds. ` +
        `Use responseKind: "task" (CLI --response-kind task) for longer work`,
      this
    )
  }
}

/**
 * Whether an error is a server error: a {@link ServerError} or its kind {@link A2AMessageLimitExceededError}.
 *
 * @example
 * import { A2AError } from "@mainsequence/a2a"
 *
 * const limit = new A2AError.A2AMessageLimitExceededError({
 *   method: "POST",
 *   url: "https://runtime.example/api/a2a/v1/message:send",
 *   status: 504,
 *   origin: "runtime",
 *   reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
 *   limitSeconds: 90
 * })
 * assert.strictEqual(A2AError.isServerError(limit), true)
 * assert.strictEqual(A2AError.isServerError(new A2AError.A2AInputError({ field: "message", reason: "blank" })), false)
 *
 * @since 0.1.0
 * @category refinements
 */
export const isServerError = (u: unknown): u is ServerError | A2AMessageLimitExceededError =>
  u instanceof ServerError || u instanceof A2AMessageLimitExceededError

/**
 * The runtime rejected the credentials again after the one refresh.
 *
 * @since 0.1.0
 * @category errors
 */
export class RuntimeAuthError extends Schema.TaggedError<RuntimeAuthError>()("RuntimeAuthError", {
  ...SessionFields,
  ...HttpFields
}) {
  override get message(): string {
    return withIds(
      `The Agent runtime rejected its credentials (${this.status}) again after one refresh of runtime access`,
      this
    )
  }
}

/**
 * The call's total budget or one of its phase limits ran out. `limit` says which: `total` (the budget),
 * `connect`, `read` (no response head within `read` seconds of connecting, or `read` seconds between two
 * body chunks) or `response-head` (no response head within connect + read seconds, with an `HttpClient`
 * that cannot tell the connect phase apart; see `Timeout.markConnected`).
 *
 * @since 0.1.0
 * @category errors
 */
export class A2ATimeoutError extends Schema.TaggedError<A2ATimeoutError>()("A2ATimeoutError", {
  ...SessionFields,
  step: A2AStep,
  limit: Schema.Literal("total", "connect", "read", "response-head"),
  seconds: Schema.Number,
  messageMayHaveBeenSent: Schema.Boolean,
  taskId: Schema.optional(Schema.String),
  lastTask: Schema.optional(Schema.Unknown)
}) {
  override get message(): string {
    const sent = this.messageMayHaveBeenSent
      ? "; the message may already have reached the runtime and is not sent again"
      : ""
    if (this.limit === "response-head") {
      return withIds(
        `No response head within ${this.seconds} s (the connect + read limits) during ${this.step}${sent}`,
        this
      )
    }
    const which = this.limit === "total" ? "budget" : `${this.limit} limit`
    return withIds(`The call's ${this.seconds} s ${which} ran out during ${this.step}${sent}`, this)
  }
}

/**
 * The certificate failures of a TLS handshake that {@link A2ATransportError} explains in words, by their
 * OpenSSL (or Node) code: the server's certificate is not trusted, is not valid for the host, or has expired.
 *
 * @since 0.2.0
 * @category models
 */
export const tlsCertificateCodes: ReadonlyArray<string> = [
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID"
]

/** What a certificate failure means and what to do, in one clause. */
const tlsAdvice = (code: string | undefined, url: string): string | undefined => {
  switch (code) {
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "UNABLE_TO_GET_ISSUER_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "CERT_UNTRUSTED":
    case "CERT_SIGNATURE_FAILURE":
      return `the server's certificate is not trusted (${code}): if your company's certificate authority signs ` +
        "it, give Node that CA's certificate with NODE_EXTRA_CA_CERTS=/path/to/company-ca.pem"
    case "ERR_TLS_CERT_ALTNAME_INVALID": {
      const host = URL.canParse(url) ? new URL(url).hostname : "this host"
      return `the server's certificate is not valid for ${host} (${code}): check the host name in the URL ` +
        "(MAINSEQUENCE_ENDPOINT, or the runtime's address the backend gave)"
    }
    case "CERT_HAS_EXPIRED":
      return `the server's certificate has expired (${code}): the server must renew it; check this ` +
        "machine's date and time too"
    case "CERT_NOT_YET_VALID":
      return `the server's certificate is not valid yet (${code}): check this machine's date and time`
    default:
      return undefined
  }
}

const statusTexts: Readonly<Record<number, string>> = {
  403: "Forbidden",
  407: "Proxy Authentication Required",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout"
}

const proxyAdvice = (status: number): string => {
  switch (status) {
    case 407:
      return "give the proxy's user and password in its URL (http://user:password@host:port), or check them"
    case 403:
      return "the proxy does not allow this destination: ask its administrator, or exempt the host with NO_PROXY"
    default:
      return "the proxy could not reach the server"
  }
}

/**
 * The connection to the backend or the runtime failed (refused, reset, DNS, TLS, a proxy's refusal). `code`
 * is the failure's error code (`ECONNREFUSED`, an OpenSSL code such as `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, …);
 * a certificate failure (see {@link tlsCertificateCodes}) is explained in the message. When a proxy refused
 * the request (a 407, 403 or 502 answer to CONNECT, or a 407 to a forwarded request), `proxy` names it
 * (without credentials) and `proxyStatus` is its status; nothing reached the server then.
 *
 * @since 0.1.0
 * @category errors
 */
export class A2ATransportError extends Schema.TaggedError<A2ATransportError>()("A2ATransportError", {
  ...SessionFields,
  method: Schema.String,
  url: Schema.String,
  step: A2AStep,
  messageMayHaveBeenSent: Schema.Boolean,
  cause: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  proxy: Schema.optional(Schema.String),
  proxyStatus: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    const sent = this.messageMayHaveBeenSent
      ? "; the message may already have reached the runtime and is not sent again"
      : ""
    if (this.proxy !== undefined && this.proxyStatus !== undefined) {
      const status = `${this.proxyStatus}${
        statusTexts[this.proxyStatus] === undefined ? "" : ` ${statusTexts[this.proxyStatus]}`
      }`
      return withIds(
        `The proxy ${this.proxy} refused ${this.method} ${this.url} during ${this.step} with ${status}: ` +
          `${proxyAdvice(this.proxyStatus)}; nothing was sent to the server`,
        this
      )
    }
    const advice = tlsAdvice(this.code, this.url)
    if (advice !== undefined) {
      return withIds(`The connection failed during ${this.step} to ${this.method} ${this.url}: ${advice}${sent}`, this)
    }
    const cause = this.cause === undefined ? "" : ` (${this.cause})`
    return withIds(`The connection failed during ${this.step} to ${this.method} ${this.url}${cause}${sent}`, this)
  }
}

/**
 * An answer that breaks the A2A contract of SPEC §4/§7; `rule` names the rule.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidA2AResponseError extends Schema.TaggedError<InvalidA2AResponseError>()(
  "InvalidA2AResponseError",
  {
    ...SessionFields,
    url: Schema.String,
    status: Schema.Number,
    rule: Schema.String,
    reason: Schema.String
  }
) {
  override get message(): string {
    return withIds(`Invalid A2A answer from ${this.url}: ${this.reason}`, this)
  }
}

/**
 * Task mode was asked for an Agent that does not advertise it. Nothing was sent to the runtime.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskModeNotSupportedError extends Schema.TaggedError<TaskModeNotSupportedError>()(
  "TaskModeNotSupportedError",
  {
    ...SessionFields,
    agentUid: Schema.optional(Schema.String),
    supportedResponseKinds: Schema.Array(Schema.String)
  }
) {
  override get message(): string {
    const kinds = this.supportedResponseKinds.length === 0 ? "message" : this.supportedResponseKinds.join(", ")
    return withIds(`The Agent does not support Task mode (it supports: ${kinds}). Nothing was sent`, this)
  }
}

const TaskRequestFields = {
  ...SessionFields,
  ...HttpFields,
  taskId: Schema.String,
  reason: Schema.String,
  detail: Schema.optional(Schema.String)
}

/**
 * The runtime does not know the Task (`TASK_NOT_FOUND`).
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskNotFoundError extends Schema.TaggedError<TaskNotFoundError>()("TaskNotFoundError", TaskRequestFields) {
  override get message(): string {
    return withIds(`Task ${this.taskId} was not found`, this)
  }
}

/**
 * The Task cannot be canceled (`TASK_NOT_CANCELABLE`), e.g. it already ended.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskNotCancelableError extends Schema.TaggedError<TaskNotCancelableError>()(
  "TaskNotCancelableError",
  TaskRequestFields
) {
  override get message(): string {
    return withIds(`Task ${this.taskId} cannot be canceled`, this)
  }
}

/**
 * Any other 3xx or 4xx answer of the runtime, keyed on its google.rpc `reason` (a redirect is never followed).
 *
 * @since 0.1.0
 * @category errors
 */
export class A2ARequestError extends Schema.TaggedError<A2ARequestError>()("A2ARequestError", {
  ...SessionFields,
  ...HttpFields,
  reason: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const reason = this.reason === undefined ? "" : ` ${this.reason}`
    const detail = this.detail === undefined ? "" : `: ${this.detail}`
    if (this.status >= 300 && this.status < 400) {
      return withIds(
        `The Agent runtime answered with a redirect (${this.status}), which is never followed${detail}`,
        this
      )
    }
    return withIds(`The Agent runtime refused the request (${this.status}${reason})${detail}`, this)
  }
}

const BackendFields = {
  ...SessionFields,
  ...HttpFields,
  detail: Schema.optional(Schema.String)
}

const backendDetail = (detail: string | undefined): string => detail === undefined ? "" : `: ${detail}`

/**
 * The backend answered 401: the user's access token is missing, expired or rejected, and no refresh token was
 * configured or the refresh did not give a usable access token (`refreshFailure` says why). A refresh the
 * backend itself failed (5xx, 429) ends in that error instead.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotLoggedInError extends Schema.TaggedError<NotLoggedInError>()("NotLoggedInError", {
  ...BackendFields,
  /** Why the one refresh with the refresh token did not give a usable access token, when it was tried. */
  refreshFailure: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const refresh = this.refreshFailure === undefined ? "" : `; the token refresh failed: ${this.refreshFailure}`
    return withIds(
      `Not logged in: the backend rejected the access token (401)${backendDetail(this.detail)}${refresh}`,
      this
    )
  }
}

/**
 * The backend answered 403.
 *
 * @since 0.1.0
 * @category errors
 */
export class PermissionDeniedError extends Schema.TaggedError<PermissionDeniedError>()(
  "PermissionDeniedError",
  BackendFields
) {
  override get message(): string {
    return withIds(`Permission denied by the backend (403)${backendDetail(this.detail)}`, this)
  }
}

/**
 * The backend answered 404: no such Agent session (or Agent).
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionNotFoundError extends Schema.TaggedError<SessionNotFoundError>()(
  "SessionNotFoundError",
  BackendFields
) {
  override get message(): string {
    return withIds(`Agent session not found (404)${backendDetail(this.detail)}`, this)
  }
}

/**
 * The backend answered 429. `retryAfter` keeps its `Retry-After` header as sent (one line of at most 64
 * characters, secrets scrubbed); `retryAfterDuration` reads it as a `Duration` (delay-seconds, the form the
 * platform sends; an HTTP-date or anything else is `Option.none()`). Not retried.
 *
 * @since 0.1.0
 * @category errors
 */
export class RateLimitedError extends Schema.TaggedError<RateLimitedError>()("RateLimitedError", {
  ...BackendFields,
  retryAfter: Schema.optional(Schema.String)
}) {
  /** `Retry-After` as a `Duration` when it is delay-seconds (e.g. `"30"`), else none. */
  get retryAfterDuration(): Option.Option<Duration.Duration> {
    const raw = this.retryAfter?.trim()
    return raw !== undefined && /^\d+(\.\d+)?$/.test(raw) ? Option.some(Duration.seconds(Number(raw))) : Option.none()
  }

  override get message(): string {
    const after = this.retryAfter === undefined ? "" : `; retry after ${this.retryAfter}`
    return withIds(`Rate limited by the backend (429)${backendDetail(this.detail)}${after}`, this)
  }
}

/**
 * The backend's answer breaks the runtime-access contract (SPEC §3), e.g. admitted without a token.
 *
 * @since 0.1.0
 * @category errors
 */
export class BackendContractError extends Schema.TaggedError<BackendContractError>()("BackendContractError", {
  ...SessionFields,
  url: Schema.String,
  status: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return withIds(`The backend's answer breaks the contract: ${this.reason}`, this)
  }
}

/**
 * The failures of resolving runtime access (SPEC §3).
 *
 * @since 0.1.0
 * @category models
 */
export type BackendError =
  | NotLoggedInError
  | PermissionDeniedError
  | SessionNotFoundError
  | RateLimitedError
  | BackendContractError
  | ServerError
  | A2ATransportError

/**
 * The failures of admission (SPEC §1 steps 2–3).
 *
 * @since 0.1.0
 * @category models
 */
export type AdmissionError = BackendError | AgentRuntimeNotReadyError | AgentRuntimeUnavailableError

/**
 * Every failure of `sendA2AMessage`.
 *
 * @since 0.1.0
 * @category models
 */
export type SendError =
  | A2AInputError
  | AdmissionError
  | A2AMessageLimitExceededError
  | RuntimeAuthError
  | A2ATimeoutError
  | InvalidA2AResponseError
  | TaskModeNotSupportedError
  | A2ARequestError

/**
 * Every failure of the Task helpers.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskError =
  | A2AInputError
  | AdmissionError
  | RuntimeAuthError
  | A2ATimeoutError
  | InvalidA2AResponseError
  | TaskNotFoundError
  | TaskNotCancelableError
  | A2ARequestError

/**
 * Every error of this package.
 *
 * @since 0.1.0
 * @category models
 */
export type A2AError = SendError | TaskError

/**
 * Whether a failed send may be retried safely: `true` exactly when the message provably did not reach the
 * runtime and the same call, unchanged, may succeed later. The SDK never retries a send by itself; a caller
 * that does should reuse the same `messageId` (see the README's recipe). Per tag:
 *
 * | error | retry-safe | why |
 * |---|---|---|
 * | `AgentRuntimeNotReadyError` | yes | still starting; nothing was sent |
 * | `AgentRuntimeUnavailableError` | yes | refused by the backend; nothing was sent (it may take messages later) |
 * | `RateLimitedError` | yes | backend 429 before any send; wait `retryAfterDuration` |
 * | `ServerError` from the backend | yes | the backend failed before any send |
 * | `BackendContractError` | yes | the backend's answer was unusable; nothing was sent |
 * | `A2ATransportError` | when `messageMayHaveBeenSent` is false | the connection failed before the request left |
 * | `A2ATimeoutError` | when `messageMayHaveBeenSent` is false | time ran out before the send |
 * | `ServerError` from the runtime, `A2AMessageLimitExceededError` | no | the message reached the runtime and may have run |
 * | `InvalidA2AResponseError` | no | the runtime answered: the message was taken |
 * | `A2ARequestError`, `TaskNotFoundError`, `TaskNotCancelableError` | no | the runtime refused it; the same call fails again |
 * | `RuntimeAuthError` | no | the runtime refused fresh credentials twice; retrying will not change that |
 * | `A2AInputError`, `TaskModeNotSupportedError` | no | nothing was sent, but the caller must change the call |
 * | `NotLoggedInError`, `PermissionDeniedError`, `SessionNotFoundError` | no | nothing was sent, but the caller must fix the login, permission or session |
 *
 * @example
 * import { A2AError } from "@mainsequence/a2a"
 *
 * const notReady = new A2AError.AgentRuntimeNotReadyError({ state: "waking", remainingMs: 0 })
 * assert.strictEqual(A2AError.isRetrySafe(notReady), true)
 * assert.strictEqual(A2AError.isRetrySafe(new A2AError.A2AInputError({ field: "message", reason: "blank" })), false)
 *
 * @since 0.1.0
 * @category refinements
 */
export const isRetrySafe = (error: A2AError): boolean => {
  switch (error._tag) {
    case "AgentRuntimeNotReadyError":
    case "AgentRuntimeUnavailableError":
    case "RateLimitedError":
    case "BackendContractError":
      return true
    case "ServerError":
      return error.origin === "backend"
    case "A2ATransportError":
    case "A2ATimeoutError":
      return !error.messageMayHaveBeenSent
    case "A2AMessageLimitExceededError":
    case "InvalidA2AResponseError":
    case "A2ARequestError":
    case "TaskNotFoundError":
    case "TaskNotCancelableError":
    case "RuntimeAuthError":
    case "A2AInputError":
    case "TaskModeNotSupportedError":
    case "NotLoggedInError":
    case "PermissionDeniedError":
    case "SessionNotFoundError":
      return false
  }
}
