/**
 * The simulated Agent runtime: A2A v1 over HTTP+JSON under
 * `{base}/runtimes/{service_uid}/api/a2a/v1/` (SPEC §4, §7), behind a gateway
 * that answers for runtimes that are down.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Stream from "effect/Stream"
import * as A2ASchema from "../A2ASchema.js"
import type * as SessionScenario from "../SessionScenario.js"
import { runtimeIsUp } from "./access.js"
import {
  agentMessage,
  answerParts,
  breakMessage,
  breakTask,
  type JsonObject,
  withExtraFields,
  withNullFields
} from "./agent.js"
import { decodeSegment, type HandlerContext } from "./context.js"
import type { SimResponse } from "./model.js"
import { bearerOf, redactText } from "./redact.js"
import { increment, type RuntimeToken, type SessionState } from "./state.js"
import * as Tasks from "./tasks.js"
import { validateSendRequest, type Validation, type ValidSendRequest } from "./validate.js"
import {
  A2A_CONTENT_TYPE,
  A2A_ERROR_DOMAIN,
  bodyStream,
  bytesResponse,
  decodeText,
  encodeJson,
  encodeText,
  type FieldViolation,
  htmlResponse,
  invalidArgument,
  messageLimitResponse,
  RESPONSE_KIND_EXTENSION,
  rpcErrorResponse,
  trickledStream
} from "./wire.js"

/**
 * A dropped connection instead of an answer.
 *
 * @internal
 */
export interface ConnectionDrop {
  readonly _tag: "ConnectionDrop"
  readonly reason: string
  readonly code: string
}

/** @internal */
export type Outcome = SimResponse | ConnectionDrop

/** @internal */
export const isConnectionDrop = (outcome: Outcome): outcome is ConnectionDrop => "_tag" in outcome

const RUNTIME_ROUTE = /^\/runtimes\/([^/]+)(\/.*)?$/
const SEND_PATH = "/api/a2a/v1/message:send"
const TASK_PATH = /^\/api\/a2a\/v1\/tasks\/([^/]+)$/
const CANCEL_SUFFIX = ":cancel"

type RuntimeRoute =
  | { readonly _tag: "Send" }
  | { readonly _tag: "GetTask"; readonly taskId: string }
  | { readonly _tag: "CancelTask"; readonly taskId: string }

const matchRoute = (rest: string): RuntimeRoute | undefined => {
  if (rest === SEND_PATH) return { _tag: "Send" }
  const match = TASK_PATH.exec(rest)
  if (match === null) return undefined
  const segment = match[1] ?? ""
  if (segment.endsWith(CANCEL_SUFFIX)) {
    return { _tag: "CancelTask", taskId: decodeSegment(segment.slice(0, -CANCEL_SUFFIX.length)) }
  }
  return { _tag: "GetTask", taskId: decodeSegment(segment) }
}

const gatewayNoRoute = (): SimResponse => htmlResponse(404, { text: "No runtime is routed at this path." })

/** A path under a served runtime that is not one of the A2A v1 routes (a client built the URL wrong). */
const notAnA2ARoute = (rest: string): SimResponse =>
  rpcErrorResponse({
    httpStatus: 404,
    status: "NOT_FOUND",
    message: `No A2A route at "${rest}"; this runtime serves POST ${SEND_PATH}, ` +
      "GET /api/a2a/v1/tasks/{id} and POST /api/a2a/v1/tasks/{id}:cancel."
  })

const gatewayDown = (): SimResponse => htmlResponse(503, { text: "no healthy upstream" })

const methodNotAllowed = (allowed: string): SimResponse =>
  rpcErrorResponse({
    httpStatus: 405,
    status: "UNIMPLEMENTED",
    message: `Method not allowed; use ${allowed}.`,
    headers: { allow: allowed }
  })

const authRejection = (status: 401 | 403, message: string): SimResponse =>
  status === 401
    ? rpcErrorResponse({
      httpStatus: 401,
      status: "UNAUTHENTICATED",
      message,
      headers: { "www-authenticate": "Bearer realm=\"a2a\", error=\"invalid_token\"" }
    })
    : rpcErrorResponse({ httpStatus: 403, status: "PERMISSION_DENIED", message })

type Authentication =
  | { readonly _tag: "Authenticated"; readonly session: SessionState; readonly token: RuntimeToken }
  | { readonly _tag: "Rejected"; readonly response: SimResponse }

const authenticate = (
  context: HandlerContext,
  serviceUid: string,
  nowMs: number,
  isSend: boolean
): Authentication => {
  const { entry, state } = context
  const reject = (status: 401 | 403, message: string): Authentication => ({
    _tag: "Rejected",
    response: authRejection(status, message)
  })
  const bearer = bearerOf(context.headers)
  if (bearer === undefined || bearer === "") return reject(401, "A bearer runtime token is required.")
  const token = state.runtimeTokens.get(bearer)
  if (token === undefined) return reject(401, "The runtime token is not valid.")
  const session = state.sessions.get(token.sessionUid)
  if (session === undefined || session.scenario.serviceUid !== serviceUid) {
    return reject(401, "The runtime token is not valid for this runtime.")
  }
  entry.sessionUid = session.scenario.sessionUid
  const policy = session.scenario.token
  if (policy.rejectAll !== undefined) return reject(policy.rejectAll, "The runtime token was rejected.")
  if (token.revoked || session.currentToken !== token) {
    return reject(policy.staleTokenStatus, "The runtime token was superseded by a newer token.")
  }
  if (token.expiresAtMs !== null && nowMs >= token.expiresAtMs) return reject(401, "The runtime token has expired.")
  if (isSend && session.rejectedFirstSends < policy.rejectFirstSends) {
    session.rejectedFirstSends++
    token.revoked = true
    return reject(policy.rejectFirstSendsStatus, "The runtime token was revoked.")
  }
  return { _tag: "Authenticated", session, token }
}

const checkVersion = (headers: Readonly<Record<string, string>>): SimResponse | undefined => {
  const version = headers["a2a-version"]?.trim()
  if (version === "1.0") return undefined
  return rpcErrorResponse({
    httpStatus: 400,
    status: "FAILED_PRECONDITION",
    message: version === undefined || version === ""
      ? "The A2A-Version header is required; this server speaks A2A 1.0."
      : `A2A version ${version} is not supported; this server speaks A2A 1.0.`,
    errorInfo: { reason: "VERSION_NOT_SUPPORTED", domain: A2A_ERROR_DOMAIN, metadata: { supportedVersions: "1.0" } }
  })
}

const mediaTypeOf = (header: string | undefined): string | undefined => header?.split(";")[0]?.trim().toLowerCase()

const ACCEPTABLE = new Set([A2A_CONTENT_TYPE, "application/json", "application/*", "*/*"])

const acceptable = (header: string | undefined): boolean =>
  header === undefined || header.split(",").some((item) => ACCEPTABLE.has(mediaTypeOf(item) ?? ""))

const extensionsOf = (headers: Readonly<Record<string, string>>): ReadonlyArray<string> =>
  (headers["a2a-extensions"] ?? "").split(",").map((item) => item.trim()).filter((item) => item !== "")

type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false }

const parseJson = (bytes: Uint8Array): Parsed => {
  try {
    return { ok: true, value: JSON.parse(decodeText(bytes)) }
  } catch {
    return { ok: false }
  }
}

/**
 * The A2A error answer to a refused Task operation, with the status and
 * reason the official `@a2a-js/sdk` server gives.
 */
const taskFailureResponse = (failure: Tasks.TaskFailure): SimResponse => {
  switch (failure._tag) {
    case "TaskNotFound":
      return rpcErrorResponse({
        httpStatus: 404,
        status: "NOT_FOUND",
        message: `Task ${failure.taskId} was not found.`,
        errorInfo: { reason: "TASK_NOT_FOUND", domain: A2A_ERROR_DOMAIN, metadata: { taskId: failure.taskId } }
      })
    case "TaskTerminal":
      return rpcErrorResponse({
        httpStatus: 400,
        status: "FAILED_PRECONDITION",
        message: `Task ${failure.taskId} is in a terminal state (${failure.state}) and cannot be modified.`,
        errorInfo: {
          reason: "UNSUPPORTED_OPERATION",
          domain: A2A_ERROR_DOMAIN,
          metadata: { taskId: failure.taskId, state: failure.state }
        }
      })
    case "TaskNotCancelable":
      return rpcErrorResponse({
        httpStatus: 400,
        status: "FAILED_PRECONDITION",
        message: failure.cancelable
          ? `Task ${failure.taskId} is ${failure.state} and cannot be canceled.`
          : `Task ${failure.taskId} cannot be canceled.`,
        errorInfo: {
          reason: "TASK_NOT_CANCELABLE",
          domain: A2A_ERROR_DOMAIN,
          metadata: { taskId: failure.taskId, state: failure.state }
        }
      })
  }
}

// ---------------------------------------------------------------------------
// A2A v1 schema conformance
// ---------------------------------------------------------------------------

/**
 * Records in the log whether the Message / Task answered conforms to the A2A
 * v1 schema (a self-check of the simulation: only deliberately broken
 * answers may fail it).
 */
const recordAnswer = (context: HandlerContext, kind: "send" | "task", value: unknown): void => {
  const checked = kind === "send" ? A2ASchema.validateSendMessageResponse(value) : A2ASchema.validateTask(value)
  context.entry.answerSchemaViolation = Either.isLeft(checked)
    ? redactText(checked.left.message, context.state.secrets)
    : null
}

/**
 * The 400 answer to a body that breaks the A2A v1 schema: every schema issue
 * as a field violation, plus the platform's own finding when it concerns
 * another field or says more.
 */
const schemaViolationResponse = (violation: A2ASchema.A2ASchemaViolation, validation: Validation): SimResponse => {
  const fieldViolations: Array<FieldViolation> = violation.issues.map(({ description, field }) => ({
    field,
    description
  }))
  const platform = validation._tag === "Invalid" ? validation.violation : undefined
  if (platform !== undefined && !fieldViolations.some((item) => item.field === platform.field)) {
    fieldViolations.push(platform)
  }
  return rpcErrorResponse({
    httpStatus: 400,
    status: "INVALID_ARGUMENT",
    message: `Invalid request: ${violation.message}` +
      (platform === undefined ? "" : `; ${platform.field}: ${platform.description}`),
    fieldViolations
  })
}

// ---------------------------------------------------------------------------
// message:send
// ---------------------------------------------------------------------------

interface SendContext {
  readonly context: HandlerContext
  readonly session: SessionState
  readonly request: ValidSendRequest
  readonly extensionActivated: boolean
}

const answerHeaders = (send: SendContext): Record<string, string> => ({
  "content-type": A2A_CONTENT_TYPE,
  ...(send.extensionActivated ? { "a2a-extensions": RESPONSE_KIND_EXTENSION } : {})
})

const jsonAnswer = (
  send: SendContext,
  value: unknown,
  trickle?: { readonly chunks: number; readonly gapMs: number; readonly chunked?: boolean | undefined } | undefined
): SimResponse => {
  recordAnswer(send.context, "send", value)
  const bytes = encodeJson(value)
  return {
    status: 200,
    headers: trickle?.chunked === true
      ? answerHeaders(send)
      : { ...answerHeaders(send), "content-length": String(bytes.length) },
    body: trickle === undefined ? bodyStream(bytes) : trickledStream(bytes, trickle.chunks, trickle.gapMs)
  }
}

const validMessage = (send: SendContext): JsonObject =>
  agentMessage({
    messageId: send.context.state.nextAgentMessageId(),
    contextId: send.session.scenario.sessionUid,
    parts: answerParts(send.session.scenario.agent, send.request)
  })

const turnOf = (send: SendContext): Tasks.Turn => ({
  message: send.request.message,
  answerParts: answerParts(send.session.scenario.agent, send.request)
})

const createTask = (send: SendContext, nowMs: number, workMs: number): Tasks.TaskRecord => {
  const scenario = send.session.scenario
  return Tasks.createTask(
    send.context.state,
    { sessionUid: scenario.sessionUid, serviceUid: scenario.serviceUid, script: scenario.agent.task },
    turnOf(send),
    workMs,
    nowMs
  )
}

/**
 * Waits `workMs` before the head. A direct Message that would take longer than
 * the platform's Message limit is cut at exactly the limit.
 */
const work = (send: SendContext, workMs: number): Effect.Effect<"on-time" | "limit"> => {
  const limitMs = send.context.messageLimitSeconds * 1000
  return send.request.responseKind === "message" && workMs > limitMs
    ? Effect.as(Effect.sleep(limitMs), "limit" as const)
    : Effect.as(Effect.sleep(workMs), "on-time" as const)
}

const invalidBody = (send: SendContext, violation: SessionScenario.InvalidAnswer, nowMs: number): unknown => {
  if (violation === "not_an_object") return ["not", "an", "object"]
  const kind = send.request.responseKind
  const taskBody = (break_: boolean) => {
    const task = createTask(send, nowMs, send.session.scenario.agent.workMs)
    const rendered = Tasks.renderTask(task, nowMs)
    const statusMessage = agentMessage({
      messageId: task.statusMessageId,
      contextId: task.sessionUid,
      parts: [{ text: "Task accepted." }]
    })
    return { task: break_ ? breakTask(rendered, violation, statusMessage) : rendered }
  }
  if (kind === "message") {
    switch (violation) {
      case "task_instead_of_message":
        return taskBody(false)
      case "unknown_task_state":
      case "blank_task_id":
        return taskBody(true)
      case "message_instead_of_task":
        return { message: validMessage(send) }
      default:
        return { message: breakMessage(validMessage(send), violation) }
    }
  }
  switch (violation) {
    case "message_instead_of_task":
      return { message: validMessage(send) }
    case "task_instead_of_message":
      return taskBody(false)
    default:
      return taskBody(true)
  }
}

const NON_JSON_PAGE = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head>" +
  "<body><h1>Sign in to continue</h1><form method=\"post\"></form></body></html>\n"

const perform = (send: SendContext, behaviour: SessionScenario.SendBehaviour): Effect.Effect<Outcome> =>
  Effect.gen(function*() {
    const agent = send.session.scenario.agent
    const limitSeconds = send.context.messageLimitSeconds
    const isTask = send.request.responseKind === "task"
    switch (behaviour._tag) {
      case "Answer": {
        const workMs = behaviour.workMs ?? agent.workMs
        if (isTask) {
          const nowMs = yield* Clock.currentTimeMillis
          const taskId = send.request.taskId
          let record: Tasks.TaskRecord
          if (taskId === undefined) {
            record = createTask(send, nowMs, workMs)
          } else {
            const followed = Tasks.followUp(
              send.context.state,
              send.session.scenario.sessionUid,
              taskId,
              turnOf(send),
              nowMs
            )
            if (followed._tag === "Refused") return taskFailureResponse(followed.failure)
            record = followed.task
          }
          const rendered = Tasks.renderTask(record, nowMs)
          const task = behaviour.nullFields === true ? withNullFields(rendered, true) : rendered
          const body = behaviour.extraFields
            ? { task: { ...task, metadata: { "x-sim-metadata": { kept: true } }, "x-sim-task-extra": 7 } }
            : { task }
          return jsonAnswer(send, body, behaviour.trickle)
        }
        if ((yield* work(send, workMs)) === "limit") return messageLimitResponse(limitSeconds)
        const valid = validMessage(send)
        const message = behaviour.nullFields === true ? withNullFields(valid, false) : valid
        const body = behaviour.extraFields
          ? { message: withExtraFields(message), "x-sim-envelope-extra": { kept: true } }
          : { message }
        return jsonAnswer(send, body, behaviour.trickle)
      }
      case "Invalid": {
        const workMs = behaviour.workMs ?? (isTask ? 0 : agent.workMs)
        if ((yield* work(send, workMs)) === "limit") return messageLimitResponse(limitSeconds)
        const nowMs = yield* Clock.currentTimeMillis
        return jsonAnswer(send, invalidBody(send, behaviour.violation, nowMs))
      }
      case "GatewayError": {
        if ((yield* work(send, behaviour.workMs ?? 0)) === "limit") return messageLimitResponse(limitSeconds)
        return htmlResponse(behaviour.status)
      }
      case "Unavailable": {
        if ((yield* work(send, behaviour.workMs ?? 0)) === "limit") return messageLimitResponse(limitSeconds)
        return rpcErrorResponse({
          httpStatus: 503,
          status: "UNAVAILABLE",
          message: "The Agent runtime is unavailable."
        })
      }
      case "RpcError": {
        if ((yield* work(send, behaviour.workMs ?? 0)) === "limit") return messageLimitResponse(limitSeconds)
        return rpcErrorResponse({
          httpStatus: behaviour.httpStatus,
          status: behaviour.status,
          message: behaviour.message,
          errorInfo: behaviour.reason === undefined ? undefined : {
            reason: behaviour.reason,
            domain: behaviour.domain ?? A2A_ERROR_DOMAIN,
            ...(behaviour.metadata === undefined ? {} : { metadata: behaviour.metadata })
          }
        })
      }
      case "Stall": {
        if (!behaviour.afterHead) return yield* Effect.never
        const bytes = encodeJson({ message: validMessage(send) })
        const head = bytes.subarray(0, Math.floor(bytes.length / 2))
        return {
          status: 200,
          headers: { ...answerHeaders(send), "content-length": String(bytes.length) },
          body: Stream.concat(Stream.make(head), Stream.never)
        }
      }
      case "NonJson": {
        if ((yield* work(send, behaviour.workMs ?? 0)) === "limit") return messageLimitResponse(limitSeconds)
        return behaviour.status === 200
          ? bytesResponse(200, encodeText(NON_JSON_PAGE), { "content-type": "text/html; charset=utf-8" })
          : htmlResponse(behaviour.status)
      }
      case "EmptyOk": {
        if ((yield* work(send, behaviour.workMs ?? 0)) === "limit") return messageLimitResponse(limitSeconds)
        return bytesResponse(200, new Uint8Array(0), { "content-type": A2A_CONTENT_TYPE })
      }
      case "ConnectionFailure": {
        yield* Effect.sleep(behaviour.workMs ?? 0)
        return {
          _tag: "ConnectionDrop",
          reason: "socket hang up (ECONNRESET)",
          code: "ECONNRESET"
        } satisfies ConnectionDrop
      }
    }
  })

const nextBehaviour = (session: SessionState): SessionScenario.SendBehaviour => {
  const agent = session.scenario.agent
  const scripted = agent.script[session.scriptIndex]
  if (scripted === undefined) return agent.behaviour
  session.scriptIndex++
  return scripted
}

const send = (
  context: HandlerContext,
  session: SessionState,
  parsed: Parsed,
  schemaViolation: A2ASchema.A2ASchemaViolation | undefined
): Effect.Effect<Outcome> =>
  Effect.suspend(() => {
    const headers = context.headers
    const contentType = mediaTypeOf(headers["content-type"])
    if (contentType !== A2A_CONTENT_TYPE) {
      return Effect.succeed(rpcErrorResponse({
        httpStatus: 415,
        status: "INVALID_ARGUMENT",
        message: `Content-Type must be ${A2A_CONTENT_TYPE}${contentType === undefined ? "" : `, not ${contentType}`}.`,
        errorInfo: { reason: "CONTENT_TYPE_NOT_SUPPORTED", domain: A2A_ERROR_DOMAIN }
      }))
    }
    if (!acceptable(headers["accept"])) {
      return Effect.succeed(rpcErrorResponse({
        httpStatus: 406,
        status: "INVALID_ARGUMENT",
        message: `Accept must allow ${A2A_CONTENT_TYPE}.`
      }))
    }
    if (!parsed.ok) return Effect.succeed(invalidArgument("(body)", "is not valid JSON"))
    const validation = validateSendRequest(parsed.value, session.scenario.sessionUid)
    if (schemaViolation !== undefined) return Effect.succeed(schemaViolationResponse(schemaViolation, validation))
    if (validation._tag === "Invalid") {
      return Effect.succeed(invalidArgument(validation.violation.field, validation.violation.description))
    }
    const request = validation.request
    const extensionActivated = extensionsOf(headers).includes(RESPONSE_KIND_EXTENSION)
    if (request.responseKind === "task" && !extensionActivated) {
      return Effect.succeed(invalidArgument(
        "configuration.responseKind",
        `needs the response-kind extension activated (A2A-Extensions: ${RESPONSE_KIND_EXTENSION})`
      ))
    }
    if (request.responseKind === "task" && !session.scenario.agent.taskSupport) {
      return Effect.succeed(rpcErrorResponse({
        httpStatus: 400,
        status: "FAILED_PRECONDITION",
        message: "This Agent does not support Task mode; send responseKind \"message\".",
        errorInfo: { reason: "UNSUPPORTED_OPERATION", domain: A2A_ERROR_DOMAIN }
      }))
    }
    return perform({ context, session, request, extensionActivated }, nextBehaviour(session))
  })

// ---------------------------------------------------------------------------
// tasks
// ---------------------------------------------------------------------------

/** The answer to a Task operation: the Task as it is now, or the refusal. */
const taskAnswer = (context: HandlerContext, result: Tasks.TaskResult, nowMs: number): Outcome => {
  if (result._tag === "Refused") return taskFailureResponse(result.failure)
  const rendered = Tasks.renderTask(result.task, nowMs)
  recordAnswer(context, "task", rendered)
  return bytesResponse(200, encodeJson(rendered), { "content-type": A2A_CONTENT_TYPE })
}

const getTask = (context: HandlerContext, session: SessionState, taskId: string): Effect.Effect<Outcome> =>
  Effect.map(
    Clock.currentTimeMillis,
    (nowMs) => taskAnswer(context, Tasks.findTask(context.state, session.scenario.sessionUid, taskId), nowMs)
  )

const cancelTask = (context: HandlerContext, session: SessionState, taskId: string): Effect.Effect<Outcome> =>
  Effect.map(Clock.currentTimeMillis, (nowMs): Outcome => {
    const body = context.request.body
    if (body.length > 0) {
      const contentType = mediaTypeOf(context.headers["content-type"])
      if (contentType !== A2A_CONTENT_TYPE && contentType !== "application/json") {
        return rpcErrorResponse({
          httpStatus: 415,
          status: "INVALID_ARGUMENT",
          message: `Content-Type must be ${A2A_CONTENT_TYPE}.`,
          errorInfo: { reason: "CONTENT_TYPE_NOT_SUPPORTED", domain: A2A_ERROR_DOMAIN }
        })
      }
      const parsed = parseJson(body)
      if (!parsed.ok || !Predicate.isRecord(parsed.value)) {
        return invalidArgument("(body)", "must be a JSON object")
      }
    }
    return taskAnswer(context, Tasks.cancelTask(context.state, session.scenario.sessionUid, taskId, nowMs), nowMs)
  })

// ---------------------------------------------------------------------------
// routing
// ---------------------------------------------------------------------------

/** `message.contextId` and `message.messageId` of a body, when it has them. */
const messageIdsOf = (parsed: Parsed): { readonly contextId?: string; readonly messageId?: string } => {
  if (!parsed.ok || !Predicate.isRecord(parsed.value)) return {}
  const message = parsed.value.message
  if (!Predicate.isRecord(message)) return {}
  return {
    ...(typeof message.contextId === "string" ? { contextId: message.contextId } : {}),
    ...(typeof message.messageId === "string" ? { messageId: message.messageId } : {})
  }
}

/**
 * Routes a request under `{base}/runtimes/`.
 *
 * @internal
 */
export const handleRuntime = (context: HandlerContext): Effect.Effect<Outcome> =>
  Effect.gen(function*() {
    const { entry, request, state } = context
    const match = RUNTIME_ROUTE.exec(context.path)
    const serviceUid = decodeSegment(match?.[1] ?? "")
    // a session whose scenario names an external `rpcUrl` is not served here
    const sessions = [...state.sessions.values()].filter((session) =>
      session.scenario.serviceUid === serviceUid && session.scenario.rpcUrl === undefined
    )
    if (match === null || sessions.length === 0) return gatewayNoRoute()
    const route = matchRoute(match[2] ?? "")
    if (route === undefined) {
      return notAnA2ARoute(match[2] ?? "")
    }
    const nowMs = yield* Clock.currentTimeMillis
    let parsed: Parsed = { ok: false }
    let schemaViolation: A2ASchema.A2ASchemaViolation | undefined
    switch (route._tag) {
      case "Send": {
        entry.route = "message-send"
        if (request.method !== "POST") return methodNotAllowed("POST")
        parsed = parseJson(request.body)
        if (parsed.ok) {
          const checked = A2ASchema.validateSendMessageRequest(parsed.value)
          if (Either.isLeft(checked)) {
            schemaViolation = checked.left
            entry.schemaViolation = redactText(checked.left.message, state.secrets)
          }
        } else {
          entry.schemaViolation = "the body is not JSON"
        }
        const bearer = bearerOf(context.headers)
        const ids = messageIdsOf(parsed)
        entry.messageId = ids.messageId ?? null
        const owner = (bearer === undefined ? undefined : state.runtimeTokens.get(bearer)?.sessionUid) ?? ids.contextId
        if (owner !== undefined && state.sessions.has(owner)) {
          entry.sessionUid = owner
          increment(state.counters.sends, owner)
        }
        break
      }
      case "GetTask":
        entry.route = "task-get"
        if (request.method !== "GET") return methodNotAllowed("GET")
        state.counters.taskGets++
        break
      case "CancelTask":
        entry.route = "task-cancel"
        if (request.method !== "POST") return methodNotAllowed("POST")
        state.counters.taskCancels++
        break
    }
    if (!sessions.some((session) => runtimeIsUp(session, nowMs))) return gatewayDown()
    const authentication = authenticate(context, serviceUid, nowMs, route._tag === "Send")
    if (authentication._tag === "Rejected") return authentication.response
    const versionError = checkVersion(context.headers)
    if (versionError !== undefined) return versionError
    const session = authentication.session
    switch (route._tag) {
      case "Send":
        return yield* send(context, session, parsed, schemaViolation)
      case "GetTask":
        return yield* getTask(context, session, route.taskId)
      case "CancelTask":
        return yield* cancelTask(context, session, route.taskId)
    }
  })
