/**
 * The backend's runtime-access answer (SPEC §3) and the admission decision taken from it.
 * `runtime_interaction.can_submit` is the sole admission decision; `runtime_presence` is diagnostic only.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { bearerTokenProblem } from "./internal/bearerToken.js"
import { rpcUrlProblem } from "./internal/httpUrl.js"

const Rest = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const OptionalString = Schema.optional(Schema.NullOr(Schema.String))
/** A string shown but never decided on: anything else reads as absent, never as an error (SPEC §3). */
const DisplayString = Schema.optional(
  Schema.transform(Schema.Unknown, Schema.UndefinedOr(Schema.String), {
    strict: true,
    decode: (value) => Predicate.isString(value) ? value : undefined,
    encode: (value) => value
  })
)

/**
 * @since 0.1.0
 * @category schemas
 */
export const RuntimeNotice = Schema.Struct({
  code: OptionalString,
  severity: OptionalString,
  title: OptionalString,
  message: OptionalString
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface RuntimeNotice extends Schema.Schema.Type<typeof RuntimeNotice> {}

/**
 * @since 0.1.0
 * @category schemas
 */
export const RuntimeInteraction = Schema.Struct({
  state: Schema.String,
  can_submit: Schema.Boolean,
  // Diagnostic: read leniently by `decide` (see `noticeOf`), never a reason to refuse the answer.
  notice: Schema.optional(Schema.Unknown),
  operation: Schema.optional(Schema.Unknown),
  // Only a finite number makes a transient state a wait; any other value makes it terminal (SPEC §3).
  retry_after_ms: Schema.optional(Schema.Unknown)
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface RuntimeInteraction extends Schema.Schema.Type<typeof RuntimeInteraction> {}

/**
 * Diagnostic only: shown in progress output and errors, never decided on.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RuntimePresence = Schema.Struct({
  phase: OptionalString,
  replicas: Schema.optional(Schema.Unknown),
  detail: OptionalString,
  observed_at: OptionalString,
  wake: Schema.optional(Schema.Unknown)
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface RuntimePresence extends Schema.Schema.Type<typeof RuntimePresence> {}

/**
 * The answer of `POST {backend}/api/v1/agent-sessions/{uid}/resolve-runtime-access/`. Unknown keys are
 * kept; the runtime token is decoded straight into a `Redacted`. Only the fields that decide (`can_submit`,
 * `state`, `mode`, `rpc_url`, `token`, `expires_at`) must have their shape (`retry_after_ms` waits only when a
 * number, see {@link decide}); the diagnostic ones (`runtime_presence`, `notice`, `operation`, `detail`,
 * `coding_agent_service_uid`) are read leniently for display (SPEC §3).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResolveRuntimeAccessAnswer = Schema.Struct({
  coding_agent_service_uid: DisplayString,
  mode: OptionalString,
  rpc_url: OptionalString,
  token: Schema.optional(Schema.NullOr(Schema.Redacted(Schema.String))),
  expires_at: OptionalString,
  runtime_paths: Schema.optional(Schema.Unknown),
  runtime_interaction: Schema.optional(Schema.NullOr(RuntimeInteraction)),
  // Diagnostic: read leniently by `decide` (see `presenceOf`), never a reason to refuse the answer.
  runtime_presence: Schema.optional(Schema.Unknown),
  detail: DisplayString
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface ResolveRuntimeAccessAnswer extends Schema.Schema.Type<typeof ResolveRuntimeAccessAnswer> {}

/**
 * States in which the backend is still bringing the runtime up; with a numeric `retry_after_ms` the call
 * re-resolves after that delay.
 *
 * @since 0.1.0
 * @category constants
 */
export const transientStates: ReadonlySet<string> = new Set(["checking", "starting", "waking", "updating"])

/**
 * The shortest wait between two resolutions: smaller `retry_after_ms` values count as this.
 *
 * @since 0.1.0
 * @category constants
 */
export const minimumRetryAfterMs = 100

/**
 * Submission is admitted: send to `rpcUrl` with `token`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Admitted {
  readonly _tag: "Admitted"
  readonly rpcUrl: string
  readonly token: Redacted.Redacted<string>
  readonly expiresAt: string | undefined
  readonly serviceUid: string | undefined
  readonly state: string
  readonly notice: RuntimeNotice | undefined
}

/**
 * Blocked for now: re-resolve after `retryAfterMs` (already raised to at least 100 ms).
 *
 * @since 0.1.0
 * @category models
 */
export interface Transient {
  readonly _tag: "Transient"
  readonly state: string
  readonly retryAfterMs: number
  readonly notice: RuntimeNotice | undefined
  readonly presence: RuntimePresence | undefined
}

/**
 * Blocked, with no automatic retry.
 *
 * @since 0.1.0
 * @category models
 */
export interface Terminal {
  readonly _tag: "Terminal"
  readonly state: string
  readonly notice: RuntimeNotice | undefined
  readonly detail: string | undefined
  readonly presence: RuntimePresence | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type Decision = Admitted | Transient | Terminal

const nonBlank = (s: string | null | undefined): s is string => typeof s === "string" && s.trim() !== ""

/**
 * The well-shaped part of a diagnostic object: its keys whose value has the expected shape (the string
 * fields a string or null), plus unknown keys; `undefined` for anything that is not an object. Diagnostic
 * fields are for display only, so an odd shape is dropped, never an error (SPEC §3).
 */
const lenient = <A, I>(
  schema: Schema.Schema<A, I>,
  stringFields: ReadonlyArray<string>,
  value: unknown
): A | undefined => {
  if (!Predicate.isRecord(value) || Array.isArray(value)) return undefined
  const kept = Object.fromEntries(
    Object.entries(value).filter(([key, field]) =>
      !stringFields.includes(key) || field === null || Predicate.isString(field)
    )
  )
  return Option.getOrUndefined(Schema.decodeUnknownOption(schema)(kept))
}

/**
 * The notice of an answer, read leniently for display: the fields of the expected shape, the rest dropped.
 *
 * @since 0.1.0
 * @category constructors
 */
export const noticeOf = (value: unknown): RuntimeNotice | undefined =>
  lenient(RuntimeNotice, ["code", "severity", "title", "message"], value)

/**
 * The `runtime_presence` of an answer, read leniently for display: the fields of the expected shape, the
 * rest dropped.
 *
 * @since 0.1.0
 * @category constructors
 */
export const presenceOf = (value: unknown): RuntimePresence | undefined =>
  lenient(RuntimePresence, ["phase", "detail", "observed_at"], value)

const orUndefined = <A>(a: A | null | undefined): A | undefined => a ?? undefined

/**
 * The admission decision of an answer, or the contract rule it breaks (`can_submit: true` without
 * `mode: "token"`, `rpc_url` and `token`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const decide = (answer: ResolveRuntimeAccessAnswer): Either.Either<Decision, string> => {
  const interaction = answer.runtime_interaction ?? undefined
  const presence = presenceOf(answer.runtime_presence)
  const given = orUndefined(answer.token)
  const token = given !== undefined && nonBlank(Redacted.value(given)) ? given : undefined
  const hasAccess = answer.mode === "token" && nonBlank(answer.rpc_url) && token !== undefined
  const admitted = (state: string, notice: RuntimeNotice | undefined): Either.Either<Decision, string> => {
    if (!(hasAccess && nonBlank(answer.rpc_url) && token !== undefined)) {
      return Either.left("can_submit is true but the answer lacks mode \"token\", a non-blank rpc_url or a token")
    }
    const unusable = rpcUrlProblem(answer.rpc_url.trim())
    const unusableToken = bearerTokenProblem(Redacted.value(token))
    return unusable !== undefined
      ? Either.left(`rpc_url ${unusable}`)
      : unusableToken !== undefined
      ? Either.left(`the token ${unusableToken}`)
      : Either.right({
        _tag: "Admitted",
        rpcUrl: answer.rpc_url.trim(),
        token,
        expiresAt: orUndefined(answer.expires_at),
        serviceUid: orUndefined(answer.coding_agent_service_uid),
        state,
        notice
      })
  }
  const terminal = (state: string, notice: RuntimeNotice | undefined): Either.Either<Decision, string> =>
    Either.right({ _tag: "Terminal", state, notice, detail: orUndefined(answer.detail), presence })

  if (interaction === undefined) {
    // An older backend without runtime_interaction: the mode alone decides.
    return hasAccess ? admitted("ready", undefined) : terminal(answer.mode ?? "unavailable", undefined)
  }
  const notice = noticeOf(interaction.notice)
  if (interaction.can_submit) return admitted(interaction.state, notice)
  const retry = interaction.retry_after_ms
  if (transientStates.has(interaction.state) && typeof retry === "number" && Number.isFinite(retry)) {
    return Either.right({
      _tag: "Transient",
      state: interaction.state,
      retryAfterMs: Math.max(minimumRetryAfterMs, retry),
      notice,
      presence
    })
  }
  return terminal(interaction.state, notice)
}
