/**
 * JSON-serialisable descriptions of simulated agent sessions.
 *
 * A `SessionScenario` says how the simulated backend answers runtime-access
 * resolution for one session (SPEC §3), which runtime tokens it issues and
 * accepts, which backend errors it injects, and how the session's Agent
 * behaves on `message:send` and in Task mode (SPEC §4, §7). Every field except
 * the three uids has a default, so `{ sessionUid, agentUid, serviceUid }` is a
 * ready session whose Agent echoes the message.
 *
 * The schemas decode plain JSON (the encoded side), so an admin HTTP endpoint
 * can accept the same descriptions.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

// ---------------------------------------------------------------------------
// building blocks
// ---------------------------------------------------------------------------

/**
 * A duration in simulated milliseconds: finite and not negative.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Millis = Schema.Number.pipe(Schema.finite(), Schema.nonNegative()).annotations({
  identifier: "Millis"
})

/**
 * A delay that is either a number of milliseconds or `"forever"` (the answer never comes).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Delay = Schema.Union(Millis, Schema.Literal("forever"))

/**
 * @since 0.1.0
 * @category schemas
 */
export type Delay = typeof Delay.Type

/**
 * `runtime_interaction.state` values that are transient (SPEC §3).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TransientState = Schema.Literal("checking", "starting", "waking", "updating")

/**
 * @since 0.1.0
 * @category schemas
 */
export type TransientState = typeof TransientState.Type

/**
 * `runtime_interaction.state` values that block without automatic retry.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TerminalState = Schema.Literal("unavailable", "update_required", "update_failed")

/**
 * @since 0.1.0
 * @category schemas
 */
export type TerminalState = typeof TerminalState.Type

/**
 * A backend notice (`runtime_interaction.notice`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Notice = Schema.Struct({
  code: Schema.String,
  severity: Schema.Literal("info", "warning", "error", "success"),
  title: Schema.String,
  message: Schema.String
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Notice = typeof Notice.Type

// ---------------------------------------------------------------------------
// access behaviour (SPEC §3)
// ---------------------------------------------------------------------------

/**
 * One transient phase of a cold start. The phase lasts `durationMs` of
 * simulated time after the previous phase ended; while it lasts, resolve
 * answers `can_submit: false` with `state` and `retry_after_ms: retryAfterMs`.
 * A `null` `retryAfterMs` (a contract oddity) makes the answer blocked without
 * a retry hint.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TransientPhase = Schema.Struct({
  state: TransientState,
  retryAfterMs: Schema.NullOr(Millis),
  durationMs: Millis,
  detail: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type TransientPhase = typeof TransientPhase.Type

/**
 * Admitted: `mode: "token"` with `rpc_url` and a runtime token. With a
 * `warning` notice the state is `warning` while `can_submit` stays true.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReadyAccess = Schema.TaggedStruct("Ready", {
  warning: Schema.optional(Notice)
})

/**
 * Blocked for good: `can_submit: false` with a terminal state. `notice`
 * absent gives a default notice for the state; `null` sends `notice: null`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TerminalAccess = Schema.TaggedStruct("Terminal", {
  state: TerminalState,
  notice: Schema.optional(Schema.NullOr(Notice)),
  detail: Schema.optional(Schema.String)
})

/**
 * A cold start driven by simulated time: the first resolve starts the wake,
 * each later resolve reports the phase for the elapsed time, and once all
 * phases have elapsed the session answers as `then` (default: ready, with a
 * freshly minted token).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ColdStartAccess = Schema.TaggedStruct("ColdStart", {
  phases: Schema.NonEmptyArray(TransientPhase),
  then: Schema.optionalWith(Schema.Union(ReadyAccess, TerminalAccess), {
    default: () => ({ _tag: "Ready" as const })
  })
})

/**
 * A transient state that never ends.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StuckTransientAccess = Schema.TaggedStruct("StuckTransient", {
  state: TransientState,
  retryAfterMs: Schema.NullOr(Millis),
  detail: Schema.optional(Schema.String)
})

/**
 * An older backend without `runtime_interaction` / `runtime_presence`: it
 * answers `mode: "token"` with `rpc_url` and `token` when `admit` is true,
 * else `mode: "unavailable"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LegacyAccess = Schema.TaggedStruct("Legacy", {
  admit: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  detail: Schema.optional(Schema.String)
})

/**
 * A backend that breaks the contract: `can_submit: true` but the rest of the
 * answer cannot be used (for contract-error tests).
 *
 * - `mode_not_token`: `mode: "unavailable"` with a valid `rpc_url` and token
 * - `blank_token` / `null_token`: token `""` / `null`
 * - `blank_rpc_url` / `null_rpc_url`: rpc_url `""` / `null`
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContractBreakingAccess = Schema.TaggedStruct("ContractBreaking", {
  violation: Schema.Literal("mode_not_token", "blank_token", "null_token", "blank_rpc_url", "null_rpc_url")
})

/**
 * How the backend answers `resolve-runtime-access` for the session.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Access = Schema.Union(
  ReadyAccess,
  TerminalAccess,
  ColdStartAccess,
  StuckTransientAccess,
  LegacyAccess,
  ContractBreakingAccess
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type Access = typeof Access.Type

// ---------------------------------------------------------------------------
// runtime token policy
// ---------------------------------------------------------------------------

/**
 * An HTTP status the runtime uses to reject a bearer token.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AuthRejection = Schema.Literal(401, 403)

/**
 * Which runtime tokens are issued and accepted.
 *
 * - `ttlSeconds`: `expires_at` = now + ttl (from the simulated Clock, whole
 *   seconds); the runtime rejects the token with 401 once it has expired.
 *   `null`: no `expires_at`, the token never expires. Default 3600.
 * - The runtime accepts only the latest token issued for the session; an
 *   older one gets `staleTokenStatus` (default 401).
 * - A token is reused by later resolves until it is rotated, revoked or
 *   within 60 s of expiry; `mintOnEveryResolve` mints a new one on every
 *   admitted resolve instead.
 * - `rejectAll`: every runtime request with a token gets this status.
 * - `rejectFirstSends: n`: the first n `message:send` requests with the
 *   current token get `rejectFirstSendsStatus` and that token is revoked, so
 *   the next resolve issues a fresh one.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TokenPolicy = Schema.Struct({
  ttlSeconds: Schema.optionalWith(Schema.NullOr(Schema.Number.pipe(Schema.finite(), Schema.positive())), {
    default: () => 3600
  }),
  staleTokenStatus: Schema.optionalWith(AuthRejection, { default: () => 401 as const }),
  mintOnEveryResolve: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  rejectAll: Schema.optional(AuthRejection),
  rejectFirstSends: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 }),
  rejectFirstSendsStatus: Schema.optionalWith(AuthRejection, { default: () => 401 as const })
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type TokenPolicy = typeof TokenPolicy.Type

// ---------------------------------------------------------------------------
// backend faults
// ---------------------------------------------------------------------------

/**
 * An error answer of the backend.
 *
 * - `body`: `"json"` → `{"detail": …}`, `"html"` → an HTML error page, `"empty"`.
 * - `retryAfter`: value of the `Retry-After` header (e.g. `"30"`), typically with 429.
 * - `times`: only the first n calls of that route for the session fail; absent = all.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BackendFault = Schema.Struct({
  status: Schema.Int.pipe(Schema.between(400, 599)),
  body: Schema.optionalWith(Schema.Literal("json", "html", "empty"), { default: () => "json" as const }),
  detail: Schema.optional(Schema.String),
  retryAfter: Schema.optional(Schema.String),
  times: Schema.optional(Schema.Int.pipe(Schema.positive()))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type BackendFault = typeof BackendFault.Type

/**
 * Backend behaviour for the session: injected errors and delays on resolve
 * and on discovery (the session detail and agent detail routes), and extra
 * unknown keys added to every resolve answer (a client must tolerate them).
 * `oddDiagnostics` gives the diagnostic fields (`runtime_presence`,
 * `runtime_interaction.notice` and `.operation`) another shape in every
 * resolve answer: a `string`, an `array`, or objects whose fields have other
 * types (`mistyped`, e.g. a numeric `phase`, and an object `detail`). They are for display only, so a
 * client must neither fail nor decide on them (SPEC §3).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Backend = Schema.Struct({
  resolveFault: Schema.optional(BackendFault),
  resolveDelay: Schema.optional(Delay),
  discoveryFault: Schema.optional(BackendFault),
  discoveryDelay: Schema.optional(Delay),
  extraResolveFields: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  oddDiagnostics: Schema.optional(Schema.Literal("string", "array", "mistyped"))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Backend = typeof Backend.Type

// ---------------------------------------------------------------------------
// agent behaviour (SPEC §4, §7)
// ---------------------------------------------------------------------------

/**
 * What the Agent says: `Echo` answers `prefix + <first text part>` (plus a
 * note listing attachments), `Text` always answers `text`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Reply = Schema.Union(
  Schema.TaggedStruct("Echo", { prefix: Schema.optionalWith(Schema.String, { default: () => "You said: " }) }),
  Schema.TaggedStruct("Text", { text: Schema.String })
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type Reply = typeof Reply.Type

/**
 * The strict-dictionary answer, given when the request carries the
 * output-contract metadata of SPEC §2. `value` defaults to
 * `{ "ok": true, "answer": <reply text> }`; `parts` says whether it comes as
 * a `data` part, a JSON text part, or both (default).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Dictionary = Schema.Struct({
  value: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  parts: Schema.optionalWith(Schema.Literal("data", "text", "both"), { default: () => "both" as const })
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Dictionary = typeof Dictionary.Type

/**
 * A body split into `chunks` pieces, the first sent with the head and each
 * next one `gapMs` of simulated time later.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Trickle = Schema.Struct({
  chunks: Schema.Int.pipe(Schema.positive()),
  gapMs: Millis,
  /** No `Content-Length` (chunked transfer): the size is known only once the body ends. */
  chunked: Schema.optional(Schema.Boolean)
})

/**
 * Invalid answers of SPEC §4 / §7.
 *
 * For a Message request the answer is `{"message": …}` broken as named, except
 * `task_instead_of_message`, `unknown_task_state` and `blank_task_id`, which
 * answer a Task. For a Task request the Task is broken (`role_*`,
 * `blank_message_id` and `empty_parts` break its `status.message`), and
 * `message_instead_of_task` answers a Message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InvalidAnswer = Schema.Literal(
  "role_user",
  "role_requester",
  "role_responder",
  "missing_role",
  "blank_message_id",
  "empty_parts",
  "missing_parts",
  "other_context_id",
  "task_instead_of_message",
  "message_instead_of_task",
  "unknown_task_state",
  "blank_task_id",
  "not_an_object"
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type InvalidAnswer = typeof InvalidAnswer.Type

/**
 * What the runtime does with one accepted `message:send` (after the token,
 * the headers and the body were checked).
 *
 * `workMs` is how long the runtime takes before the head of the answer
 * (default: the Agent's `workMs` for `Answer` and `Invalid`, 0 for the
 * others). For a direct Message, a `workMs` longer than the platform Message
 * limit (90 s) is cut at exactly the limit with the 504
 * `MESSAGE_RESPONSE_LIMIT_EXCEEDED` answer. In Task mode `Answer` creates the
 * Task at once and `workMs` is the Task's work; the limit does not apply.
 *
 * - `Answer`: a valid answer; `trickle` sends its body in pieces;
 *   `extraFields` adds unknown fields (top level, parts, metadata,
 *   extensions) that a client must preserve; `nullFields` sets the optional
 *   fields it leaves out to `null` (proto3 JSON for "not set": `taskId`,
 *   `metadata`, `extensions`, `referenceTaskIds`, a part's `metadata`; in a
 *   Task also `status.message.messageId`), which a client must accept.
 * - `Invalid`: an answer that breaks a rule of SPEC §4 / §7.
 * - `GatewayError`: 502 / 504 with an HTML page (a gateway, not the runtime).
 * - `Unavailable`: 503 google.rpc `UNAVAILABLE`.
 * - `RpcError`: any google.rpc.Status error, optionally with an ErrorInfo.
 * - `Stall`: the head never comes, or (`afterHead`) the head and part of the
 *   body come and the rest never does.
 * - `NonJson`: an HTML body with the given status (default 200).
 * - `EmptyOk`: 200 with an empty body.
 * - `ConnectionFailure`: the connection drops after `workMs` (default 0)
 *   without an answer (the in-memory HttpClient fails with a transport
 *   `RequestError`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SendBehaviour = Schema.Union(
  Schema.TaggedStruct("Answer", {
    workMs: Schema.optional(Millis),
    trickle: Schema.optional(Trickle),
    extraFields: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    nullFields: Schema.optional(Schema.Boolean)
  }),
  Schema.TaggedStruct("Invalid", {
    violation: InvalidAnswer,
    workMs: Schema.optional(Millis)
  }),
  Schema.TaggedStruct("GatewayError", {
    status: Schema.Literal(502, 504),
    workMs: Schema.optional(Millis)
  }),
  Schema.TaggedStruct("Unavailable", {
    workMs: Schema.optional(Millis)
  }),
  Schema.TaggedStruct("RpcError", {
    httpStatus: Schema.Int.pipe(Schema.between(400, 599)),
    status: Schema.String,
    message: Schema.String,
    reason: Schema.optional(Schema.String),
    domain: Schema.optional(Schema.String),
    metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
    workMs: Schema.optional(Millis)
  }),
  Schema.TaggedStruct("Stall", {
    afterHead: Schema.optionalWith(Schema.Boolean, { default: () => false })
  }),
  Schema.TaggedStruct("NonJson", {
    status: Schema.optionalWith(Schema.Int.pipe(Schema.between(200, 599)), { default: () => 200 }),
    workMs: Schema.optional(Millis)
  }),
  Schema.TaggedStruct("EmptyOk", {
    workMs: Schema.optional(Millis)
  }),
  Schema.TaggedStruct("ConnectionFailure", {
    workMs: Schema.optional(Millis)
  })
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type SendBehaviour = typeof SendBehaviour.Type

/**
 * How a Task progresses over simulated time after it was created:
 * `TASK_STATE_SUBMITTED` for `queuedMs`, then `TASK_STATE_WORKING` for the
 * Agent's work, then `outcome` (`completed` carries an artifact with the
 * answer to the latest turn). `cancelable: false` makes cancel answer
 * `TASK_NOT_CANCELABLE`.
 *
 * `questions` makes the Agent ask for input (SPEC §7): after each round of
 * work it asks the next question (`TASK_STATE_INPUT_REQUIRED` with the
 * question as status message) and stays there until a follow-up turn
 * (`message.taskId`) arrives; the follow-up starts the next round of work
 * at once. Once every question was answered the Task ends with `outcome`.
 * A follow-up for an unknown Task answers 404 `TASK_NOT_FOUND`; for a
 * terminal Task 400 `FAILED_PRECONDITION` `UNSUPPORTED_OPERATION`, as the
 * official `@a2a-js/sdk` server does.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskScript = Schema.Struct({
  queuedMs: Schema.optionalWith(Millis, { default: () => 1000 }),
  outcome: Schema.optionalWith(
    Schema.Literal("completed", "failed", "input_required", "auth_required", "rejected"),
    { default: () => "completed" as const }
  ),
  cancelable: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  statusMessage: Schema.optional(Schema.String),
  questions: Schema.optionalWith(Schema.Array(Schema.NonEmptyTrimmedString), { default: () => [] })
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type TaskScript = typeof TaskScript.Type

/**
 * The session's Agent.
 *
 * - `reply`, `dictionary`: the content of valid answers.
 * - `workMs`: how long the Agent works on a message (default 0).
 * - `taskSupport`: the runtime accepts `responseKind: "task"` (else it answers
 *   400 `UNSUPPORTED_OPERATION`); `advertiseProfile: false` makes the backend
 *   agent detail carry `a2a_profile: null`; `profile` replaces the advertised
 *   profile object verbatim.
 * - `script`: behaviours used one per accepted send, in order; after it runs
 *   out every send uses `behaviour` (default `Answer`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Agent = Schema.Struct({
  name: Schema.optionalWith(Schema.String, { default: () => "Simulated Agent" }),
  reply: Schema.optionalWith(Reply, { default: () => ({ _tag: "Echo" as const, prefix: "You said: " }) }),
  dictionary: Schema.optionalWith(Dictionary, { default: () => ({ parts: "both" as const }) }),
  workMs: Schema.optionalWith(Millis, { default: () => 0 }),
  taskSupport: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  advertiseProfile: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  profile: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  task: Schema.optionalWith(TaskScript, {
    default: () => ({ queuedMs: 1000, outcome: "completed" as const, cancelable: true, questions: [] })
  }),
  behaviour: Schema.optionalWith(SendBehaviour, {
    default: () => ({ _tag: "Answer" as const, extraFields: false })
  }),
  script: Schema.optionalWith(Schema.Array(SendBehaviour), { default: () => [] })
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Agent = typeof Agent.Type

// ---------------------------------------------------------------------------
// the scenario
// ---------------------------------------------------------------------------

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
  } catch {
    return false
  }
}

/**
 * The `rpc_url` of an external Agent runtime: an absolute `http:` / `https:`
 * URL (a path is allowed and kept, as `rpc_url` is opaque).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExternalRpcUrl = Schema.String.pipe(
  Schema.filter((value) => isHttpUrl(value) || "must be an absolute http: or https: URL")
).annotations({ identifier: "ExternalRpcUrl" })

/**
 * One simulated session: backend `AgentSession.uid`, its Agent's uid, the
 * uid of the coding-agent service whose runtime answers it, and its behaviour.
 *
 * `rpcUrl` makes the runtime external: the backend hands out that `rpc_url`
 * (with runtime tokens issued by the session's `token` policy) instead of the
 * simulation's own `{base}/runtimes/{serviceUid}/`, and the simulation does
 * not serve that runtime (its own runtime route for the service answers the
 * gateway's 404). Use it to point clients at a real A2A server (e.g. an
 * official `@a2a-js/sdk` server on another port) while the simulation plays
 * the backend. `agent` and the runtime side of `token` (`staleTokenStatus`,
 * `rejectAll`, `rejectFirstSends`) then do not apply; the in-memory
 * `HttpClient` cannot reach an external runtime (a connection error that says
 * so), the `./node` face with a real `HttpClient` can.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionScenario = Schema.Struct({
  sessionUid: Schema.UUID,
  agentUid: Schema.UUID,
  serviceUid: Schema.UUID,
  name: Schema.optional(Schema.String),
  rpcUrl: Schema.optional(ExternalRpcUrl),
  access: Schema.optionalWith(Access, { default: () => ({ _tag: "Ready" as const }) }),
  token: Schema.optionalWith(TokenPolicy, {
    default: () => ({
      ttlSeconds: 3600,
      staleTokenStatus: 401 as const,
      mintOnEveryResolve: false,
      rejectFirstSends: 0,
      rejectFirstSendsStatus: 401 as const
    })
  }),
  backend: Schema.optionalWith(Backend, { default: () => ({}) }),
  agent: Schema.optionalWith(Agent, { default: () => Schema.decodeSync(Agent)({}) })
})

/**
 * A decoded scenario: every default filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionScenario = typeof SessionScenario.Type

/**
 * A scenario as written by hand or received as JSON: only the uids are required.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionScenarioInput = typeof SessionScenario.Encoded

/**
 * The scenario could not be decoded, or the platform's options (`SimulatedPlatform.Options`) are invalid.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidScenarioError extends Schema.TaggedError<InvalidScenarioError>()("InvalidScenarioError", {
  issue: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Invalid session scenario: ${this.issue}`
  }
}

const decodeOptions = { errors: "all", onExcessProperty: "error" } as const

/**
 * Decodes a scenario (hand-written input or parsed JSON), filling in defaults.
 * Unknown keys are an error, so a typo in a JSON scenario does not pass silently.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (input: unknown): Effect.Effect<SessionScenario, InvalidScenarioError> =>
  Schema.decodeUnknown(SessionScenario, decodeOptions)(input).pipe(
    Effect.mapError((error) => new InvalidScenarioError({ issue: ParseResult.TreeFormatter.formatErrorSync(error) }))
  )

/**
 * Decodes a scenario synchronously; throws an `InvalidScenarioError` when it is invalid.
 * Meant for constant scenarios in tests and demos.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeSync = (input: SessionScenarioInput): SessionScenario => Effect.runSync(decode(input))
