/**
 * The simulated Django backend: runtime-access resolution (SPEC §3), Agent
 * discovery (SPEC §7) and the user-token refresh (SPEC §8).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import type * as SessionScenario from "../SessionScenario.js"
import { accessAnswer, decide } from "./access.js"
import type { JsonObject } from "./agent.js"
import { decodeSegment, delay, type HandlerContext, sessionRpcUrl } from "./context.js"
import type { SimResponse } from "./model.js"
import { bearerOf } from "./redact.js"
import { increment, type SessionState } from "./state.js"
import { bytesResponse, decodeText, htmlResponse, isoTime, jsonResponse, RESPONSE_KIND_EXTENSION } from "./wire.js"

const RESOLVE_ROUTE = /^\/api\/v1\/agent-sessions\/([^/]+)\/resolve-runtime-access\/$/
const SESSION_ROUTE = /^\/api\/v1\/agent-sessions\/([^/]+)\/$/
const AGENT_ROUTE = /^\/api\/v1\/agents\/([^/]+)\/$/
const REFRESH_ROUTE = "/auth/jwt-token/token/refresh/"

const djangoNotFound = (): SimResponse =>
  bytesResponse(
    404,
    new TextEncoder().encode(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n  <title>Not Found</title>\n</head>\n<body>\n  <h1>Not Found</h1>" +
        "<p>The requested resource was not found on this server.</p>\n</body>\n</html>\n"
    ),
    { "content-type": "text/html; charset=utf-8" }
  )

const methodNotAllowed = (method: string, allowed: string): SimResponse =>
  jsonResponse(405, { detail: `Method "${method}" not allowed.` }, { headers: { allow: allowed } })

const defaultDetail = (status: number): string => {
  switch (status) {
    case 401:
      return "Given token not valid for any token type"
    case 403:
      return "You do not have permission to perform this action."
    case 404:
      return "Not found."
    case 429:
      return "Request was throttled. Expected available in 30 seconds."
    case 503:
      return "Service temporarily unavailable, try again later."
    default:
      return status >= 500 ? "A server error occurred." : "The request could not be processed."
  }
}

/** The answer of an injected backend fault. @internal */
export const faultResponse = (fault: SessionScenario.BackendFault): SimResponse => {
  const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter }
  switch (fault.body) {
    case "json":
      return jsonResponse(fault.status, { detail: fault.detail ?? defaultDetail(fault.status) }, { headers })
    case "html":
      return htmlResponse(fault.status, { text: fault.detail, server: "gunicorn", headers })
    case "empty":
      return bytesResponse(fault.status, new Uint8Array(0), headers)
  }
}

const faultApplies = (fault: SessionScenario.BackendFault | undefined, calls: number) =>
  fault !== undefined && (fault.times === undefined || calls <= fault.times) ? fault : undefined

/**
 * Checks the user's bearer token (a simplejwt-style backend). `undefined`
 * means authenticated.
 */
const authenticateUser = (context: HandlerContext): SimResponse | undefined => {
  if (context.headers["authorization"] === undefined) {
    return jsonResponse(401, { detail: "Authentication credentials were not provided." }, {
      headers: { "www-authenticate": "Bearer realm=\"api\"" }
    })
  }
  const bearer = bearerOf(context.headers)
  const credential = context.state.userTokens.find((token) => token.value === bearer)
  if (credential === undefined || !credential.valid) {
    return jsonResponse(401, {
      detail: "Given token not valid for any token type",
      code: "token_not_valid",
      messages: [{ token_class: "AccessToken", token_type: "access", message: "Token is invalid or expired" }]
    }, { headers: { "www-authenticate": "Bearer realm=\"api\"" } })
  }
  return undefined
}

const sessionNotFound = (): SimResponse => jsonResponse(404, { detail: "No AgentSession matches the given query." })

const resolve = (context: HandlerContext, sessionUid: string) =>
  Effect.gen(function*() {
    const { entry, request, state } = context
    entry.route = "resolve-runtime-access"
    entry.sessionUid = sessionUid
    if (request.method !== "POST") return methodNotAllowed(request.method, "POST, OPTIONS")
    const session = state.sessions.get(sessionUid)
    if (session !== undefined) {
      session.resolveCalls++
      increment(state.counters.resolveCalls, sessionUid)
      yield* delay(session.scenario.backend.resolveDelay)
    }
    const unauthenticated = authenticateUser(context)
    if (unauthenticated !== undefined) return unauthenticated
    if (session === undefined) return sessionNotFound()
    const fault = faultApplies(session.scenario.backend.resolveFault, session.resolveCalls)
    if (fault !== undefined) return faultResponse(fault)
    const nowMs = yield* Clock.currentTimeMillis
    const decision = decide(session, nowMs, true)
    const answer = accessAnswer(
      { state, session, nowMs, rpcUrl: sessionRpcUrl(context.baseUrl, session.scenario) },
      decision
    )
    const odd = session.scenario.backend.oddDiagnostics
    return jsonResponse(200, {
      ...session.scenario.backend.extraResolveFields,
      ...(odd === undefined ? answer : withOddDiagnostics(answer, odd))
    })
  })

const oddShapes = {
  string: { presence: "serving", notice: "Heads up: maintenance tonight.", operation: "op-1" },
  array: { presence: ["serving", 1], notice: [{ title: "Heads up" }], operation: [null] },
  mistyped: {
    presence: { phase: 3, detail: { text: "serving" }, observed_at: 0, replicas: "one", wake: 7 },
    notice: { code: 12, severity: ["warning"], title: false, message: "Maintenance tonight." },
    operation: 42,
    detail: { text: "queued" }
  }
} as const

/** The answer with its diagnostic fields in another shape (see `Backend.oddDiagnostics`). */
const withOddDiagnostics = (answer: JsonObject, odd: keyof typeof oddShapes): JsonObject => {
  const shapes = oddShapes[odd]
  const interaction = answer["runtime_interaction"]
  return {
    ...answer,
    ...(typeof interaction === "object" && interaction !== null && !Array.isArray(interaction)
      ? { runtime_interaction: { ...interaction, notice: shapes.notice, operation: shapes.operation } }
      : {}),
    runtime_presence: shapes.presence,
    ...("detail" in shapes ? { detail: shapes.detail } : {})
  }
}

const discoveryPrelude = (context: HandlerContext, session: SessionState | undefined) =>
  Effect.gen(function*() {
    context.state.counters.discoveryCalls++
    if (session !== undefined) {
      session.discoveryCalls++
      yield* delay(session.scenario.backend.discoveryDelay)
    }
    const unauthenticated = authenticateUser(context)
    if (unauthenticated !== undefined) return unauthenticated
    if (session === undefined) return undefined
    const fault = faultApplies(session.scenario.backend.discoveryFault, session.discoveryCalls)
    return fault === undefined ? undefined : faultResponse(fault)
  })

const sessionDetail = (context: HandlerContext, sessionUid: string) =>
  Effect.gen(function*() {
    const { entry, request, state } = context
    entry.route = "session-detail"
    entry.sessionUid = sessionUid
    if (request.method !== "GET") return methodNotAllowed(request.method, "GET, HEAD, OPTIONS")
    const session = state.sessions.get(sessionUid)
    increment(state.counters.sessionDetailCalls, sessionUid)
    const early = yield* discoveryPrelude(context, session)
    if (early !== undefined) return early
    if (session === undefined) return sessionNotFound()
    const scenario = session.scenario
    return jsonResponse(200, {
      uid: scenario.sessionUid,
      agent_uid: scenario.agentUid,
      name: scenario.name ?? `Session with ${scenario.agent.name}`,
      coding_agent_service_uid: scenario.serviceUid,
      status: "active",
      created_at: isoTime(session.createdAtMs)
    })
  })

/** The A2A profile the backend advertises for the Agent (SPEC §7). @internal */
export const a2aProfile = (agent: SessionScenario.Agent): Record<string, unknown> | null => {
  if (agent.profile !== undefined) return { ...agent.profile }
  if (!agent.advertiseProfile) return null
  return {
    response_kind_extension_uri: RESPONSE_KIND_EXTENSION,
    supported_response_kinds: agent.taskSupport ? ["message", "task"] : ["message"],
    default_response_kind: "message"
  }
}

const agentDetail = (context: HandlerContext, agentUid: string) =>
  Effect.gen(function*() {
    const { entry, request, state } = context
    entry.route = "agent-detail"
    if (request.method !== "GET") return methodNotAllowed(request.method, "GET, HEAD, OPTIONS")
    const session = [...state.sessions.values()].find((candidate) => candidate.scenario.agentUid === agentUid)
    if (session !== undefined) entry.sessionUid = session.scenario.sessionUid
    increment(state.counters.agentDetailCalls, agentUid)
    const early = yield* discoveryPrelude(context, session)
    if (early !== undefined) return early
    if (session === undefined) return jsonResponse(404, { detail: "No Agent matches the given query." })
    const agent = session.scenario.agent
    return jsonResponse(200, {
      uid: agentUid,
      name: agent.name,
      description: "A deterministic Agent of the simulated Main Sequence platform.",
      a2a_profile: a2aProfile(agent)
    })
  })

const refresh = (context: HandlerContext) =>
  Effect.sync(() => {
    const { entry, request, state } = context
    entry.route = "token-refresh"
    if (request.method !== "POST") return methodNotAllowed(request.method, "POST, OPTIONS")
    state.counters.refreshes++
    let body: unknown
    try {
      body = JSON.parse(decodeText(request.body))
    } catch {
      return jsonResponse(400, { detail: "JSON parse error." })
    }
    const value = Predicate.isRecord(body) ? body.refresh : undefined
    if (typeof value !== "string" || value === "") {
      return jsonResponse(400, { refresh: ["This field is required."] })
    }
    const credential = state.refreshTokens.find((token) => token.value === value)
    if (credential === undefined || !credential.valid) {
      return jsonResponse(401, { detail: "Token is invalid or expired", code: "token_not_valid" })
    }
    for (const token of state.userTokens) token.valid = false
    const access = state.addUserToken(undefined)
    if (!context.rotateRefreshTokens) return jsonResponse(200, { access: access.value })
    credential.valid = false
    const next = state.addRefreshToken(undefined)
    return jsonResponse(200, { access: access.value, refresh: next.value })
  })

/**
 * Routes a request on the backend side of the origin.
 *
 * @internal
 */
export const handleBackend = (context: HandlerContext): Effect.Effect<SimResponse> => {
  const path = context.path
  const resolveMatch = RESOLVE_ROUTE.exec(path)
  if (resolveMatch !== null) return resolve(context, decodeSegment(resolveMatch[1] ?? ""))
  const sessionMatch = SESSION_ROUTE.exec(path)
  if (sessionMatch !== null) return sessionDetail(context, decodeSegment(sessionMatch[1] ?? ""))
  const agentMatch = AGENT_ROUTE.exec(path)
  if (agentMatch !== null) return agentDetail(context, decodeSegment(agentMatch[1] ?? ""))
  if (path === REFRESH_ROUTE) return refresh(context)
  return Effect.succeed(djangoNotFound())
}
