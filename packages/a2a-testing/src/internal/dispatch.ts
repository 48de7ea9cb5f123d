/**
 * The request dispatcher: logs each request, refuses hosts that are not the
 * platform's, hands the request to the backend or the runtime, and keeps the
 * log entry up to date as the head and the body go out.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { handleBackend } from "./backend.js"
import type { HandlerContext } from "./context.js"
import type { SimRequest, SimResponse } from "./model.js"
import { type Location, logRequest } from "./requestLog.js"
import { handleRuntime, isConnectionDrop, type Outcome } from "./runtime.js"
import type { MutableLogEntry, PlatformState } from "./state.js"
import { wholeAs } from "./wire.js"

/**
 * The connection failed (the public face turns it into a
 * `SimulatedConnectionError`).
 *
 * @internal
 */
export interface ConnectionFailure {
  readonly url: string
  readonly reason: string
  readonly code?: string | undefined
}

const connectionFailure = (failure: ConnectionFailure) => Effect.fail(failure)

/** What the dispatcher needs to know about the platform. @internal */
export interface Platform extends Location {
  readonly state: PlatformState
  readonly baseUrl: string
  readonly messageLimitSeconds: number
  readonly rotateRefreshTokens: boolean
}

const lowerCaseHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value
  return out
}

/** The session whose external runtime lives at `url`'s origin, if any. */
const externalSessionAt = (state: PlatformState, url: URL) =>
  [...state.sessions.values()].find((session) =>
    session.scenario.rpcUrl !== undefined && new URL(session.scenario.rpcUrl).origin === url.origin
  )

const unreachable = (state: PlatformState, entry: MutableLogEntry, url: URL): ConnectionFailure => {
  entry.outcome = "connection-failed"
  const external = externalSessionAt(state, url)
  if (external !== undefined) entry.sessionUid = external.scenario.sessionUid
  return {
    url: entry.url,
    code: external === undefined ? "ENOTFOUND" : "ECONNREFUSED",
    reason: external === undefined
      ? `getaddrinfo ENOTFOUND ${url.hostname}`
      : `ECONNREFUSED: ${url.origin} is the external runtime of session ${external.scenario.sessionUid} ` +
        "(scenario rpcUrl), which the in-memory HttpClient cannot reach; serve the platform with " +
        "serveReferencePlatform (./node) and use a real HttpClient"
  }
}

/** Answers through the backend or the runtime, recording the head and the fate of the body. */
const respond = (context: HandlerContext): Effect.Effect<SimResponse, ConnectionFailure> => {
  const entry = context.entry
  return Effect.gen(function*() {
    const outcome: Outcome = yield* (entry.target === "runtime" ? handleRuntime(context) : handleBackend(context))
    entry.respondedAtMs = yield* Clock.currentTimeMillis
    if (isConnectionDrop(outcome)) {
      entry.outcome = "connection-failed"
      return yield* connectionFailure({ url: entry.url, reason: outcome.reason, code: outcome.code })
    }
    entry.status = outcome.status
    entry.outcome = "responded"
    entry.bodyOutcome = "pending"
    const bodyEnded = (bodyOutcome: "complete" | "aborted") =>
      Effect.flatMap(Clock.currentTimeMillis, (nowMs) =>
        Effect.sync(() => {
          if (entry.bodyOutcome !== "pending") return
          entry.bodyOutcome = bodyOutcome
          entry.bodyEndedAtMs = nowMs
        }))
    const complete = bodyEnded("complete")
    const body = Stream.concat(outcome.body, Stream.execute(complete)).pipe(
      Stream.ensuring(bodyEnded("aborted"))
    )
    wholeAs(outcome.body, body, complete)
    return { ...outcome, body }
  }).pipe(
    Effect.onInterrupt(() =>
      Effect.sync(() => {
        entry.outcome = "interrupted"
      })
    )
  )
}

/**
 * Answers one request of either HTTP face.
 *
 * @internal
 */
export const dispatch = (
  platform: Platform,
  request: SimRequest
): Effect.Effect<SimResponse, ConnectionFailure> =>
  Effect.gen(function*() {
    const atMs = yield* Clock.currentTimeMillis
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return yield* connectionFailure({ url: request.url, reason: "invalid URL" })
    }
    const headers = lowerCaseHeaders(request.headers)
    const entry = logRequest(platform.state, platform, request, url, headers, atMs)
    if (entry.target === "unknown") return yield* connectionFailure(unreachable(platform.state, entry, url))
    return yield* respond({
      state: platform.state,
      baseUrl: platform.baseUrl,
      messageLimitSeconds: platform.messageLimitSeconds,
      rotateRefreshTokens: platform.rotateRefreshTokens,
      request,
      headers,
      path: entry.path,
      entry
    })
  })
