import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import { clientOf, fakeRuntime, jsonResponse, sendUrl, sessionUid } from "./fixtures.js"

// SPEC §4 / §7: every rule of a runtime answer has its own `rule` and a reason that says what broke. The
// answers are written by hand (a runtime the simulated platform does not play), each given as the 200
// answer to one send; the send is never repeated.

const taskProfile = { supported_response_kinds: ["message", "task"] }

const message = (fields: Record<string, unknown> = {}) => ({
  messageId: "a-1",
  role: "ROLE_AGENT",
  contextId: sessionUid,
  parts: [{ text: "hello" }],
  ...fields
})

const task = (fields: Record<string, unknown> = {}) => ({
  id: "t-1",
  contextId: sessionUid,
  status: { state: "TASK_STATE_WORKING" },
  ...fields
})

/** One send (Message mode, or Task mode with `task`) to a runtime that answers with `respond`. */
const sendAnsweredWith = (
  respond: (request: HttpClientRequest.HttpClientRequest) => HttpClientResponse.HttpClientResponse,
  kind: "message" | "task" = "message",
  taskId?: string
) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const a2a = yield* clientOf(fakeRuntime((request) => {
      seen.push(`${request.method} ${request.url}`)
      return Effect.succeed(respond(request))
    }))
    const result = yield* Effect.either(
      a2a.sendA2AMessage(sessionUid, {
        message: "hi",
        messageId: "m-1",
        responseKind: kind,
        ...(kind === "task" ? { agentProfile: taskProfile } : {}),
        ...(taskId === undefined ? {} : { taskId })
      })
    )
    expect(seen).toEqual([`POST ${sendUrl}`])
    return result
  })

/** One send to a runtime that answers 200 with `body` as JSON. */
const sendAnswered = (body: unknown, kind: "message" | "task" = "message", taskId?: string) =>
  sendAnsweredWith((request) => jsonResponse(request, 200, body), kind, taskId)

const invalid = (rule: string, reason: string, url = sendUrl) => ({
  _tag: "InvalidA2AResponseError",
  agentSessionUid: sessionUid,
  messageId: "m-1",
  url,
  status: 200,
  rule,
  reason
})

type Outcome = Either.Either<unknown, object>

/** The error's fields (or the unexpected answer). */
const failure = (result: Outcome) => result._tag === "Left" ? { ...result.left } : { unexpected: result.right }

/** The answer (or the unexpected error's fields). */
const success = (result: Outcome) => result._tag === "Right" ? result.right : { unexpected: { ...result.left } }

describe("rules: the kind of answer (SPEC §4, §7)", () => {
  it.scoped("a Task request answered with a Message → response-kind, naming both", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ message: message() }, "task"))).toEqual(
        invalid("response-kind", "response-kind mismatch: the Agent answered a Task request with a Message")
      )
    }))

  it.scoped("a Message request answered with a Task → response-kind, naming both", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ task: task() }))).toEqual(
        invalid("response-kind", "response-kind mismatch: the Agent answered a Message request with a Task")
      )
    }))

  it.scoped("an object with neither → envelope, naming the object expected", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ answer: message() }))).toEqual(
        invalid("envelope", "the answer has no \"message\" object")
      )
      expect(failure(yield* sendAnswered({ answer: task() }, "task"))).toEqual(
        invalid("envelope", "the answer has no \"task\" object")
      )
    }))

  it.scoped("a JSON string, number or array is not an object → envelope", () =>
    Effect.gen(function*() {
      for (const body of ["hello", 42, [message()], null]) {
        expect([body, failure(yield* sendAnswered(body))]).toEqual([
          body,
          invalid("envelope", "the answer is not a JSON object")
        ])
      }
    }))

  it.scoped("\"message\" or \"task\" that is not an object → envelope", () =>
    Effect.gen(function*() {
      for (const value of ["hello", 7, null, [message()]]) {
        expect(failure(yield* sendAnswered({ message: value }))).toEqual(
          invalid("envelope", "\"message\" is not an object")
        )
        expect(failure(yield* sendAnswered({ task: value }, "task"))).toEqual(
          invalid("envelope", "the task is not an object")
        )
      }
    }))
})

describe("rules: a Message answer (SPEC §4)", () => {
  it.scoped("role other than ROLE_AGENT, or none → rule role, saying what came", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ message: message({ role: "ROLE_USER" }) }))).toEqual(
        invalid("role", "the message role must be ROLE_AGENT (got \"ROLE_USER\")")
      )
      expect(failure(yield* sendAnswered({ message: message({ role: undefined }) }))).toEqual(
        invalid("role", "the message role must be ROLE_AGENT (got none)")
      )
    }))

  it.scoped("messageId blank or not a string → rule message-id", () =>
    Effect.gen(function*() {
      for (const messageId of [" ", 12, undefined]) {
        expect(failure(yield* sendAnswered({ message: message({ messageId }) }))).toEqual(
          invalid("message-id", "the message's messageId must be a non-blank string")
        )
      }
    }))

  it.scoped("parts missing or empty → rule parts, each with its own reason", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ message: message({ parts: undefined }) }))).toEqual(
        invalid("parts", "the message has no parts array; it must have a non-empty one")
      )
      expect(failure(yield* sendAnswered({ message: message({ parts: { text: "x" } }) }))).toEqual(
        invalid("parts", "the message has no parts array; it must have a non-empty one")
      )
      expect(failure(yield* sendAnswered({ message: message({ parts: [] }) }))).toEqual(
        invalid("parts", "the message's parts array is empty")
      )
    }))

  it.scoped("contextId missing or null → rule context-id \"has no contextId\"; another one → \"another session\"", () =>
    Effect.gen(function*() {
      for (const contextId of [undefined, null]) {
        expect(failure(yield* sendAnswered({ message: message({ contextId }) }))).toEqual(
          invalid("context-id", `the message has no contextId; it must be the session uid ${sessionUid}`)
        )
      }
      expect(failure(yield* sendAnswered({ message: message({ contextId: "ctx-9" }) }))).toEqual(
        invalid(
          "context-id",
          `the message belongs to another session: contextId "ctx-9" is not the session uid ${sessionUid}`
        )
      )
    }))

  it.scoped("passes the four rules but breaks the Message shape → rule schema, naming where (no value)", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ message: message({ parts: [{ text: "ok" }, 42] }) }))).toEqual(
        invalid("schema", "the message does not match the A2A v1 Message shape at parts.1")
      )
      expect(failure(yield* sendAnswered({ message: message({ extensions: "secret-value" }) }))).toEqual(
        invalid("schema", "the message does not match the A2A v1 Message shape at extensions")
      )
    }))

  it.scoped("a valid Message is returned whole", () =>
    Effect.gen(function*() {
      const answer = message({ taskId: null, extra: { kept: true } })
      expect(success(yield* sendAnswered({ message: answer }))).toEqual(answer)
    }))
})

describe("rules: a Task answer to a send (SPEC §7)", () => {
  it.scoped("id blank or missing → rule task-id", () =>
    Effect.gen(function*() {
      for (const id of ["  ", undefined, 3]) {
        expect(failure(yield* sendAnswered({ task: task({ id }) }, "task"))).toEqual(
          invalid("task-id", "the task's id must be a non-blank string")
        )
      }
    }))

  it.scoped("state unknown or missing → rule task-state, quoting what came", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ task: task({ status: { state: "DONE" } }) }, "task"))).toEqual(
        invalid("task-state", "the task's status.state \"DONE\" is not a known Task state")
      )
      expect(failure(yield* sendAnswered({ task: task({ status: {} }) }, "task"))).toEqual(
        invalid("task-state", "the task's status.state (missing) is not a known Task state")
      )
      expect(failure(yield* sendAnswered({ task: task({ status: undefined }) }, "task"))).toEqual(
        invalid("task-state", "the task's status.state (missing) is not a known Task state")
      )
    }))

  it.scoped("contextId missing → \"the task has no contextId\"; another → \"the task belongs to another session\"", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ task: task({ contextId: undefined }) }, "task"))).toEqual(
        invalid("context-id", `the task has no contextId; it must be the session uid ${sessionUid}`)
      )
      expect(failure(yield* sendAnswered({ task: task({ contextId: "c-2" }) }, "task"))).toEqual(
        invalid(
          "context-id",
          `the task belongs to another session: contextId "c-2" is not the session uid ${sessionUid}`
        )
      )
    }))

  it.scoped("passes the rules but breaks the Task shape → rule schema, naming where", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ task: task({ artifacts: "x" }) }, "task"))).toEqual(
        invalid("schema", "the task does not match the A2A v1 Task shape at artifacts")
      )
    }))

  it.scoped("a follow-up answered with another Task → rule task-id; with the same Task → the Task", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnswered({ task: task({ id: "t-2" }) }, "task", "t-1"))).toEqual(
        invalid(
          "task-id",
          "the answer to a follow-up turn for Task \"t-1\" is another Task (id \"t-2\"); it must be the same Task"
        )
      )
      expect(success(yield* sendAnswered({ task: task() }, "task", "t-1"))).toEqual(task())
    }))
})

/** `getA2ATask("t-1")` against a runtime that answers 200 with `body`. */
const getAnswered = (body: unknown) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const a2a = yield* clientOf(fakeRuntime((request) => {
      seen.push(`${request.method} ${request.url}`)
      return Effect.succeed(
        HttpClientResponse.fromWeb(
          request,
          new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/a2a+json" } })
        )
      )
    }))
    const result = yield* Effect.either(a2a.getA2ATask(sessionUid, "t-1"))
    expect(seen).toEqual(["GET https://runtime.example/api/a2a/v1/tasks/t-1"])
    return result
  })

describe("rules: the answer of get / cancel task (SPEC §7)", () => {
  const getUrl = "https://runtime.example/api/a2a/v1/tasks/t-1"
  const taskInvalid = (rule: string, reason: string) => {
    const { messageId: _, ...rest } = invalid(rule, reason, getUrl)
    return rest
  }

  it.scoped("a Message → response-kind \"the runtime answered with a Message, not a Task\"", () =>
    Effect.gen(function*() {
      const result = yield* getAnswered({ message: message() })
      expect(result._tag === "Left" ? { ...result.left } : result).toEqual(
        taskInvalid("response-kind", "response-kind mismatch: the runtime answered with a Message, not a Task")
      )
    }))

  it.scoped("a bare Task, or a wrapped one, is a Task even when it also has a \"message\" field", () =>
    Effect.gen(function*() {
      const bare = task({ message: "a field of the Task" })
      expect(success(yield* getAnswered(bare))).toEqual(bare)
      expect(success(yield* getAnswered({ task: task(), message: message() }))).toEqual(task())
    }))

  it.scoped("a bare Task that breaks a rule names the rule", () =>
    Effect.gen(function*() {
      const result = yield* getAnswered(task({ id: "" }))
      expect(result._tag === "Left" ? { ...result.left } : result).toEqual(
        taskInvalid("task-id", "the task's id must be a non-blank string")
      )
    }))
})

/** JSON text of `levels` nested arrays around `inner` (built as text: the value itself is too deep to print). */
const nested = (levels: number, inner = "0") => `${"[".repeat(levels)}${inner}${"]".repeat(levels)}`
/** The text of a valid Message answer whose one part's `data` is `data` (the data starts at depth 5). */
const messageWithData = (data: string) =>
  `{"message":{"messageId":"a-1","role":"ROLE_AGENT","contextId":"${sessionUid}","parts":[{"data":${data}}]}}`
const answerText = (status: number, text: string) => (request: HttpClientRequest.HttpClientRequest) =>
  HttpClientResponse.fromWeb(
    request,
    new Response(text, { status, headers: { "content-type": "application/a2a+json" } })
  )

describe("rules: an answer nested deeper than 512 levels is an InvalidA2AResponseError, never a defect", () => {
  it.scoped("a Message answer 5,000 levels deep → rule json, saying how deep", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnsweredWith(answerText(200, `{"message":${nested(5000)}}`)))).toEqual(
        invalid("json", "the answer nests arrays and objects deeper than 512 levels")
      )
    }))

  it.scoped("512 levels are an answer (its data kept whole and printable); 513 are not", () =>
    Effect.gen(function*() {
      const atLimit = messageWithData(nested(508))
      const answer = success(yield* sendAnsweredWith(answerText(200, atLimit)))
      expect(JSON.stringify({ message: answer })).toBe(atLimit)
      expect(failure(yield* sendAnsweredWith(answerText(200, messageWithData(nested(509)))))).toEqual(
        invalid("json", "the answer nests arrays and objects deeper than 512 levels")
      )
    }))

  it.scoped("brackets inside strings, escaped quotes included, are not nesting", () =>
    Effect.gen(function*() {
      const data = `\\"${"[{".repeat(600)}` // a backslash, a quote, then 1,200 brackets: all inside the string
      const answer = success(yield* sendAnsweredWith(answerText(200, messageWithData(JSON.stringify(data)))))
      expect(answer).toMatchObject({ parts: [{ data }] })
    }))

  it.scoped("an error answer 5,000 levels deep is still a ServerError (its body excerpted)", () =>
    Effect.gen(function*() {
      const error = failure(yield* sendAnsweredWith(answerText(500, `{"error":${nested(5000)}}`)))
      expect(error).toMatchObject({ _tag: "ServerError", status: 500, detail: `{"error":${"[".repeat(191)}…` })
    }))

  it.scoped("a Task answer 5,000 levels deep → rule json", () =>
    Effect.gen(function*() {
      expect(failure(yield* sendAnsweredWith(answerText(200, `{"task":${nested(5000, "{}")}}`), "task"))).toEqual(
        invalid("json", "the answer nests arrays and objects deeper than 512 levels")
      )
    }))
})
