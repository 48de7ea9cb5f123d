/**
 * The client's environment, built once per client: its options checked (tokens redacted at once), the
 * backend client, the cache keys, the sessions with a call in flight and their resolutions, which the
 * client's scope interrupts when it closes.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as A2AError from "../A2AError.js"
import * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import * as backendClient from "./backendClient.js"
import { bearerTokenProblem } from "./bearerToken.js"
import { type Call, makeSessionState, type SessionState } from "./callContext.js"
import { describeValue, notAStringReason, unknownFieldReason } from "./describeValue.js"
import { backendUrlProblem, withoutTrailingSlashes } from "./httpUrl.js"
import { type A2AClientOptions, fieldsOf } from "./options.js"
import { sha256Hex } from "./sha256.js"

/**
 * The client's environment, the same for all its calls.
 *
 * @internal
 */
export interface ClientEnv {
  readonly client: HttpClient.HttpClient
  readonly backend: backendClient.BackendClient
  readonly cache: RuntimeAccessCache.Service
  /** Fails when the client's options are unusable (a blank or unusable backend URL, a blank access token). */
  readonly ready: Effect.Effect<void, A2AError.A2AInputError>
  /** The cache key of a session: a hash of backend URL, user and session uid. */
  readonly cacheKey: (agentSessionUid: string) => string
  /** The largest answer read, in bytes. */
  readonly maxResponseBytes: number
  /** The state of each session with a call in flight, held by its calls. */
  readonly sessions: SessionRegistry
  /** The sessions' resolutions running: the client's scope interrupts them when it closes. */
  readonly resolutions: FiberSet.FiberSet
}

/**
 * What the calls to each session in flight share, from the first call's start to the last one's end. Kept
 * synchronously: `RcMap.get` can acquire a key twice when many first calls arrive at once.
 *
 * @internal
 */
export interface SessionRegistry {
  readonly acquire: (agentSessionUid: string) => SessionState
  readonly release: (agentSessionUid: string, state: SessionState) => void
  readonly size: () => number
}

/** @internal */
export const makeSessionRegistry = (): SessionRegistry => {
  const sessions = new Map<string, { readonly state: SessionState; refs: number }>()
  return {
    acquire: (agentSessionUid) => {
      const entry = sessions.get(agentSessionUid) ?? { state: makeSessionState(), refs: 0 }
      entry.refs++
      sessions.set(agentSessionUid, entry)
      return entry.state
    },
    release: (agentSessionUid, state) => {
      const entry = sessions.get(agentSessionUid)
      if (entry === undefined || entry.state !== state) return
      entry.refs--
      if (entry.refs === 0) sessions.delete(agentSessionUid)
    },
    size: () => sessions.size
  }
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

/** @internal */
export const callContext = (env: ClientEnv, call: Call): CallContext =>
  Object.assign(call, {
    client: env.client,
    backend: env.backend,
    cache: env.cache,
    ready: env.ready,
    cacheKey: env.cacheKey,
    maxResponseBytes: env.maxResponseBytes,
    sessions: env.sessions,
    resolutions: env.resolutions,
    key: env.cacheKey(call.agentSessionUid)
  })

/**
 * The options with their tokens as `Redacted` (a plain string is wrapped here, before anything else sees it).
 * A token of any other type is left out, so the checks below report it missing.
 */
interface RedactedOptions extends Omit<A2AClientOptions, "accessToken" | "refreshToken"> {
  readonly accessToken: Redacted.Redacted<string> | undefined
  readonly refreshToken: Redacted.Redacted<string> | undefined
}

const redactAtOnce = (token: string | Redacted.Redacted<string> | undefined): Redacted.Redacted<string> | undefined =>
  typeof token === "string"
    ? Redacted.make(token)
    : Redacted.isRedacted(token) && typeof Redacted.value(token) === "string"
    ? token
    : undefined

// An untyped caller's options that are no object are read as none: every call reports what is missing.
const asObject = (given: A2AClientOptions): Partial<A2AClientOptions> =>
  typeof given === "object" && given !== null ? given : {}

const redactOptions = (options: Partial<A2AClientOptions>): RedactedOptions => ({
  ...options,
  backendUrl: options.backendUrl ?? "",
  accessToken: redactAtOnce(options.accessToken),
  refreshToken: redactAtOnce(options.refreshToken)
})

const notAString = (field: string, value: unknown): A2AError.A2AInputError =>
  new A2AError.A2AInputError({ field, reason: notAStringReason(value) })

// A token's value is never quoted, whatever its type.
const notAToken = (field: string): A2AError.A2AInputError =>
  new A2AError.A2AInputError({ field, reason: "must be a string or a Redacted string" })

/** The option of an untyped caller that has a wrong type, before what the options hold is checked. */
const optionTypeProblem = (
  given: Partial<A2AClientOptions>,
  options: RedactedOptions
): A2AError.A2AInputError | undefined =>
  typeof options.backendUrl !== "string"
    ? notAString("backendUrl", options.backendUrl)
    : given.accessToken !== undefined && options.accessToken === undefined
    ? notAToken("accessToken")
    : given.refreshToken !== undefined && options.refreshToken === undefined
    ? notAToken("refreshToken")
    : options.username !== undefined && typeof options.username !== "string"
    ? notAString("username", options.username)
    : undefined

// Only options given reach this check: the environment's are checked where they are read (`A2AClient.config`).
const fromEnvironment = (variable: string) =>
  `options given never read ${variable}; layerConfig() and makeA2AClient() without options do`

const checkOptions = (
  given: Partial<A2AClientOptions>,
  options: RedactedOptions
): Effect.Effect<void, A2AError.A2AInputError> => {
  const unknown = unknownFieldReason(given, fieldsOf.clientOptions)
  if (unknown !== undefined) return Effect.fail(new A2AError.A2AInputError({ field: "options", reason: unknown }))
  const wrongType = optionTypeProblem(given, options)
  if (wrongType !== undefined) return Effect.fail(wrongType)
  if (options.backendUrl.trim() === "") {
    return Effect.fail(
      new A2AError.A2AInputError({
        field: "backendUrl",
        reason: `is missing (${fromEnvironment("MAINSEQUENCE_ENDPOINT")})`
      })
    )
  }
  const unusableUrl = backendUrlProblem(options.backendUrl.trim())
  if (unusableUrl !== undefined) {
    return Effect.fail(new A2AError.A2AInputError({ field: "backendUrl", reason: unusableUrl }))
  }
  if (options.accessToken === undefined || Redacted.value(options.accessToken).trim() === "") {
    return Effect.fail(
      new A2AError.A2AInputError({
        field: "accessToken",
        reason: `is missing (${fromEnvironment("MAINSEQUENCE_ACCESS_TOKEN")})`
      })
    )
  }
  const unusableToken = bearerTokenProblem(Redacted.value(options.accessToken))
  if (unusableToken !== undefined) {
    return Effect.fail(new A2AError.A2AInputError({ field: "accessToken", reason: unusableToken }))
  }
  const unusableMax = options.maxResponseBytes === undefined
    ? undefined
    : maxResponseBytesProblem(options.maxResponseBytes)
  if (unusableMax !== undefined) {
    return Effect.fail(new A2AError.A2AInputError({ field: "maxResponseBytes", reason: unusableMax }))
  }
  return Effect.void
}

/** @internal */
export const maxResponseBytesProblem = (max: unknown): string | undefined => {
  // Stryker disable next-line ConditionalExpression: equivalent: Number.isSafeInteger refuses a non-number
  const isNumber = typeof max === "number"
  return isNumber && Number.isSafeInteger(max) && max > 0
    ? undefined
    : `must be a positive integer number of bytes (got ${describeValue(max)})`
}

/** @internal */
export const makeClientEnv = (
  clientOptions: A2AClientOptions,
  defaultMaxResponseBytes: number
): Effect.Effect<ClientEnv, never, HttpClient.HttpClient | RuntimeAccessCache.RuntimeAccessCache | Scope.Scope> =>
  Effect.gen(function*() {
    const given = asObject(clientOptions)
    const options = redactOptions(given)
    const client = yield* HttpClient.HttpClient
    const cache = yield* RuntimeAccessCache.RuntimeAccessCache
    const maxResponseBytes = options.maxResponseBytes ?? defaultMaxResponseBytes
    // The fallbacks below ("") are taken only for an unusable option, with which every call fails (`ready`)
    // before anything is sent or keyed.
    const accessToken = options.accessToken ??
      // Stryker disable next-line StringLiteral: equivalent: a missing token fails every call first (ready)
      Redacted.make("")
    const backend = yield* backendClient.make({ ...options, accessToken }, client, maxResponseBytes)
    const backendUrl = typeof options.backendUrl === "string"
      ? withoutTrailingSlashes(options.backendUrl.trim())
      // Stryker disable next-line StringLiteral: equivalent: a non-string backend URL fails every call first
      : ""
    // The cache is scoped by user: the username when known, else a hash of the configured access token.
    const user = typeof options.username === "string" && options.username.trim() !== ""
      ? `user:${options.username.trim()}`
      : `token:${sha256Hex(Redacted.value(accessToken))}`
    const cacheKeys = new Map<string, string>()
    return {
      client,
      backend,
      cache,
      ready: checkOptions(given, options),
      maxResponseBytes,
      sessions: makeSessionRegistry(),
      resolutions: yield* FiberSet.make(),
      // A session's key never changes for this client: hash it once, not on every call (bounded).
      cacheKey: (agentSessionUid) => {
        const known = cacheKeys.get(agentSessionUid)
        // Stryker disable next-line ConditionalExpression: equivalent: the memo only saves hashing again (same key)
        if (known !== undefined) return known
        const key = sha256Hex(`${backendUrl}\n${user}\n${agentSessionUid}`)
        // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent: a key never changes
        if (cacheKeys.size >= 1024) cacheKeys.clear()
        cacheKeys.set(agentSessionUid, key)
        return key
      }
    } satisfies ClientEnv
  })
