import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as SessionScenario from "../src/SessionScenario.js"
import * as SimulatedPlatform from "../src/SimulatedPlatform.js"

export const BASE = SimulatedPlatform.defaultBaseUrl
export const USER_TOKEN = Redacted.value(SimulatedPlatform.defaultUserAccessToken)
export const REFRESH_TOKEN = Redacted.value(SimulatedPlatform.defaultRefreshToken)

export const SESSION = "0b2701a1-e777-4cfe-8437-b94025f00069"
export const AGENT = "5a1c7d0e-3b4f-4e2a-9c8d-7f6e5d4c3b2a"
export const SERVICE = "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"
/** A second session, for what must stay with its own. */
export const OTHER_SESSION = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"

export const RESPONSE_KIND_EXTENSION = "https://mainsequence.ai/a2a/extensions/response-kind/v1"
export const OUTPUT_CONTRACT = "https://mainsequence.ai/a2a/extensions/output-contract/v1"

export const scenario = (
  overrides: Partial<SessionScenario.SessionScenarioInput> = {}
): SessionScenario.SessionScenarioInput => ({
  sessionUid: SESSION,
  agentUid: AGENT,
  serviceUid: SERVICE,
  ...overrides
})

export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  readonly json: unknown
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Executes a request and reads the whole body. */
export const exchange = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(request)
    const text = yield* response.text
    const answer: Answer = { status: response.status, headers: response.headers, text, json: parse(text) }
    return answer
  })

export const resolveRequest = (sessionUid: string = SESSION, userToken: string = USER_TOKEN) =>
  HttpClientRequest.post(`${BASE}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`).pipe(
    HttpClientRequest.bearerToken(userToken),
    HttpClientRequest.bodyUnsafeJson({})
  )

export const resolve = (sessionUid: string = SESSION, userToken: string = USER_TOKEN) =>
  exchange(resolveRequest(sessionUid, userToken))

const Admitted = Schema.Struct({
  mode: Schema.Literal("token"),
  rpc_url: Schema.String,
  token: Schema.String,
  expires_at: Schema.NullOr(Schema.String)
})

/** Resolves access and expects admission. */
export const admitted = (sessionUid: string = SESSION) =>
  Effect.gen(function*() {
    const answer = yield* resolve(sessionUid)
    if (answer.status !== 200) return yield* Effect.dieMessage(`resolve answered ${answer.status}: ${answer.text}`)
    const access = yield* Schema.decodeUnknown(Admitted)(answer.json)
    return { rpcUrl: access.rpc_url, token: access.token, expiresAt: access.expires_at }
  })

export interface MessageOptions {
  readonly text?: string
  readonly messageId?: string
  readonly contextId?: string
  readonly responseKind?: "message" | "task"
  readonly strictDictionary?: boolean
}

export const messageBody = (options: MessageOptions = {}) => ({
  message: {
    messageId: options.messageId ?? "msg-test-0001",
    role: "ROLE_USER",
    contextId: options.contextId ?? SESSION,
    parts: [{ text: options.text ?? "What can you do?" }]
  },
  configuration: {
    acceptedOutputModes: [options.strictDictionary === true ? "application/json" : "text/plain"],
    responseKind: options.responseKind ?? "message"
  },
  ...(options.strictDictionary === true
    ? {
      metadata: {
        [OUTPUT_CONTRACT]: { response_format: { type: "dictionary", strict: true }, jsonRepairAttempts: 3 }
      }
    }
    : {})
})

export const a2aHeaders = (token: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  accept: "application/a2a+json",
  "a2a-extensions": RESPONSE_KIND_EXTENSION,
  "a2a-version": "1.0"
})

export const runtimeUrl = (rpcUrl: string, path: string) => `${rpcUrl.replace(/\/+$/, "")}/api/a2a/v1/${path}`

/** A `message:send` request; `headers` replace the standard ones (a value of `null` drops one). */
export const sendRequest = (
  rpcUrl: string,
  token: string,
  body: unknown,
  headers: Readonly<Record<string, string | null>> = {}
) => {
  const merged: Record<string, string> = {}
  for (const [name, value] of Object.entries({ ...a2aHeaders(token), ...headers })) {
    if (value !== null) merged[name] = value
  }
  const contentType = headers["content-type"]
  const bytes = new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body))
  return HttpClientRequest.post(runtimeUrl(rpcUrl, "message:send"), { headers: merged }).pipe(
    HttpClientRequest.bodyUint8Array(bytes, contentType === undefined ? "application/a2a+json" : contentType ?? "")
  )
}

export const send = (
  rpcUrl: string,
  token: string,
  body: unknown = messageBody(),
  headers: Readonly<Record<string, string | null>> = {}
) => exchange(sendRequest(rpcUrl, token, body, headers))

export const getTask = (rpcUrl: string, token: string, taskId: string) =>
  exchange(
    HttpClientRequest.get(runtimeUrl(rpcUrl, `tasks/${encodeURIComponent(taskId)}`), { headers: a2aHeaders(token) })
  )

export const cancelTask = (rpcUrl: string, token: string, taskId: string) =>
  exchange(
    HttpClientRequest.post(runtimeUrl(rpcUrl, `tasks/${encodeURIComponent(taskId)}:cancel`), {
      headers: a2aHeaders(token)
    }).pipe(HttpClientRequest.bodyText("{}", "application/a2a+json"))
  )

/** The google.rpc ErrorInfo reason of an error answer, if any. */
const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Number,
    status: Schema.String,
    message: Schema.String,
    details: Schema.optional(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
  })
})

export const rpcError = (answer: Answer) =>
  Effect.map(Schema.decodeUnknown(ErrorBody)(answer.json), ({ error }) => ({
    ...error,
    reason: error.details?.find((detail) => detail["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")?.reason
  }))

const TaskAnswer = Schema.Struct({ task: Schema.Struct({ id: Schema.String }) })

/** The id of the Task a `message:send` answer holds. */
export const taskIdOf = (answer: Answer) =>
  Effect.map(Schema.decodeUnknown(TaskAnswer)(answer.json), ({ task }) => task.id)
