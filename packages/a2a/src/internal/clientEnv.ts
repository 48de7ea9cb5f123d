/**
 * The client's environment, built once per client: its options checked (tokens redacted at once), the
 * backend client, the cache keys, the per-session registry and the sessions' resolutions, which the
 * client's scope interrupts when it closes.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { A2AClientOptions } from "../A2AClient.js"
import * as A2AError from "../A2AError.js"
import * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import { makeAlarmsByClock } from "./alarms.js"
import * as backendClient from "./backendClient.js"
import { type ClientEnv, makeSessionRegistry } from "./callContext.js"
import { sha256Hex } from "./sha256.js"

/**
 * The options with their tokens as `Redacted` (a plain string is wrapped here, before anything else sees it).
 * A token of any other type is left out, so the checks below report it missing.
 */
interface RedactedOptions extends Omit<A2AClientOptions, "accessToken" | "refreshToken"> {
  readonly accessToken: Redacted.Redacted<string> | undefined
  readonly refreshToken: Redacted.Redacted<string> | undefined
}

const redactAtOnce = (token: string | Redacted.Redacted<string> | undefined): Redacted.Redacted<string> | undefined =>
  typeof token === "string" ? Redacted.make(token) : Redacted.isRedacted(token) ? token : undefined

const redactOptions = (options: A2AClientOptions): RedactedOptions => ({
  ...options,
  accessToken: redactAtOnce(options.accessToken),
  refreshToken: redactAtOnce(options.refreshToken)
})

const checkOptions = (options: RedactedOptions): Effect.Effect<void, A2AError.A2AInputError> => {
  if (typeof options.backendUrl !== "string" || options.backendUrl.trim() === "") {
    return Effect.fail(
      new A2AError.A2AInputError({ field: "backendUrl", reason: "is missing (set MAINSEQUENCE_ENDPOINT)" })
    )
  }
  if (options.accessToken === undefined || Redacted.value(options.accessToken).trim() === "") {
    return Effect.fail(
      new A2AError.A2AInputError({ field: "accessToken", reason: "is missing (set MAINSEQUENCE_ACCESS_TOKEN)" })
    )
  }
  const max = options.maxResponseBytes
  if (max !== undefined && !(Number.isSafeInteger(max) && max > 0)) {
    return Effect.fail(
      new A2AError.A2AInputError({
        field: "maxResponseBytes",
        reason: `must be a positive integer number of bytes (got ${String(max)})`
      })
    )
  }
  return Effect.void
}

/** @internal */
export const makeClientEnv = (
  clientOptions: A2AClientOptions,
  defaultMaxResponseBytes: number
): Effect.Effect<ClientEnv, never, HttpClient.HttpClient | RuntimeAccessCache.RuntimeAccessCache | Scope.Scope> =>
  Effect.gen(function*() {
    const options = redactOptions(clientOptions)
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
      ? options.backendUrl.trim().replace(/\/+$/, "")
      // Stryker disable next-line StringLiteral: equivalent: a backend URL that is not a string fails every call first (ready)
      : ""
    // The cache is scoped by user: the username when known, else a hash of the configured access token.
    const user = options.username !== undefined && options.username.trim() !== ""
      ? `user:${options.username.trim()}`
      : `token:${sha256Hex(Redacted.value(accessToken))}`
    const cacheKeys = new Map<string, string>()
    // The sessions' resolutions run as the client's own fibers: each only while a call waits for it, and
    // none past the client's scope.
    const resolutions = new Set<Fiber.RuntimeFiber<unknown, unknown>>()
    yield* Effect.addFinalizer(() => Fiber.interruptAll(Array.from(resolutions)))
    // The calls' deadlines: their sleepers, too, are the client's fibers, none past its scope.
    const alarms = makeAlarmsByClock()
    yield* Effect.addFinalizer(() => Fiber.interruptAll(Array.from(alarms.sleepers)))
    return {
      client,
      backend,
      cache,
      ready: checkOptions(options),
      maxResponseBytes,
      // What the calls to a session in flight share; a session's resolution belongs to the client.
      sessions: makeSessionRegistry(),
      resolutions,
      alarms,
      waitsHandTheirAbort: false,
      // A session's key never changes for this client: hash it once, not on every call (bounded).
      cacheKey: (agentSessionUid) => {
        const known = cacheKeys.get(agentSessionUid)
        // Stryker disable next-line ConditionalExpression: equivalent: the memo only saves hashing again (same key)
        if (known !== undefined) return known
        const key = sha256Hex(`${backendUrl}\n${user}\n${agentSessionUid}`)
        // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent: when the memo is cleared changes its memory only, never a key
        if (cacheKeys.size >= 1024) cacheKeys.clear()
        cacheKeys.set(agentSessionUid, key)
        return key
      }
    } satisfies ClientEnv
  })
