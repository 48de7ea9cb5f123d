// SPEC §4, the runtime's answer: its kinds, its errors, its size, A2A v1 conformance.
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import { type SessionScenario, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as A2AClient from "../src/A2AClient.js"
import * as A2AProtocol from "../src/A2AProtocol.js"
import {
  client,
  clientOf,
  failFor,
  fakePlatform,
  fakeRuntime,
  jsonResponse,
  platform,
  readyAccessForTests,
  runtimeSends,
  schemaViolations,
  sendUrl,
  serviceUid,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

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

/** A runtime 500 answer whose body is `body`, of `mediaType`. */
const text = (body: string, mediaType = "text/plain") => (request: HttpClientRequest.HttpClientRequest) =>
  HttpClientResponse.fromWeb(request, new Response(body, { status: 500, headers: { "content-type": mediaType } }))

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

  it.scoped("an answer that holds both a Message and a Task → envelope, for either kind of request", () =>
    Effect.gen(function*() {
      const both = invalid("envelope", "the answer holds both a \"message\" and a \"task\"; A2A allows one")
      expect(failure(yield* sendAnswered({ message: message(), task: task() }))).toEqual(both)
      expect(failure(yield* sendAnswered({ task: task(), message: message() }, "task"))).toEqual(both)
    }))

  it.scoped("a member written null is unset (proto3 JSON): the other one is the answer, or the mismatch", () =>
    Effect.gen(function*() {
      expect(success(yield* sendAnswered({ message: message(), task: null }))).toEqual(message())
      expect(success(yield* sendAnswered({ message: null, task: task() }, "task"))).toEqual(task())
      expect(failure(yield* sendAnswered({ message: null, task: task() }))).toEqual(
        invalid("response-kind", "response-kind mismatch: the Agent answered a Message request with a Task")
      )
      expect(failure(yield* sendAnswered({ message: null }))).toEqual(
        invalid("envelope", "the answer has no \"message\" object")
      )
      expect(failure(yield* sendAnswered({ task: null }, "task"))).toEqual(
        invalid("envelope", "the answer has no \"task\" object")
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
      for (const value of ["hello", 7, [message()]]) {
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

  it.scoped("another Task than the one asked for → rule task-id, naming both", () =>
    Effect.gen(function*() {
      const result = yield* getAnswered(task({ id: "t-2" }))
      expect(result._tag === "Left" ? { ...result.left } : result).toEqual(
        taskInvalid("task-id", "the answer for Task \"t-1\" is another Task (id \"t-2\")")
      )
    }))

  it.scoped("a bare Task that breaks a rule names the rule", () =>
    Effect.gen(function*() {
      const result = yield* getAnswered(task({ id: "" }))
      expect(result._tag === "Left" ? { ...result.left } : result).toEqual(
        taskInvalid("task-id", "the task's id must be a non-blank string")
      )
    }))
})

describe("rules: hostile answers are read as data, never as code or a stall (SPEC §9)", () => {
  it.scoped("a \"__proto__\" member, escaped or not, is dropped: it cannot make a Message look like a Task", () =>
    Effect.gen(function*() {
      for (const key of ["__proto__", "\\u005f_proto\\u005f_"]) {
        const text = `{"message":{"${key}":{"id":"evil","status":{"state":"TASK_STATE_WORKING"}},"messageId":"a-1",` +
          `"role":"ROLE_AGENT","contextId":"${sessionUid}","parts":[{"text":"hello","metadata":{"${key}":{"x":1}}}]}}`
        const answer = success(yield* sendAnsweredWith(answerText(200, text)))
        expect(answer).toEqual(message({ parts: [{ text: "hello", metadata: {} }] }))
        expect(Object.getPrototypeOf(answer)).toBe(Object.prototype)
        expect(A2AProtocol.isTask(answer as A2AProtocol.Message)).toBe(false)
      }
    }))

  it.scoped("a value quoted in a reason is cut to 1,000 characters: a 5 MB contextId", () =>
    Effect.gen(function*() {
      const error = failure(yield* sendAnswered({ message: message({ contextId: "c".repeat(5_000_000) }) }))
      expect(error).toMatchObject({ _tag: "InvalidA2AResponseError", rule: "context-id" })
      const reason = String((error as { reason?: unknown }).reason)
      const start = "the message belongs to another session: contextId \""
      expect(reason).toBe(`${start}${"c".repeat(1000 - start.length)}…`)
    }))

  it.scoped("an error text made to stall a backtracking pattern (1 MB of \"a-a-…\", of \"<title\") is read at once", () =>
    Effect.gen(function*() {
      const plain = failure(yield* sendAnsweredWith(text("a-".repeat(500_000), "text/plain")))
      expect(plain).toMatchObject({ _tag: "ServerError", detail: `${"a-".repeat(100)}…` })
      const html = failure(yield* sendAnsweredWith(text(`<html>${"<title".repeat(200_000)}`, "text/html")))
      expect(html).toMatchObject({ _tag: "ServerError", detail: "an HTML error page" })
    }))

  it.scoped("a long error text is scrubbed only up to 64 KiB past what is shown, none of a secret it cut shown", () =>
    Effect.gen(function*() {
      // 60 MiB of Basic credentials: the start shown, scrubbed
      const basic = failure(yield* sendAnsweredWith(text("Basic QTpC ".repeat(6_000_000))))
      expect(basic).toMatchObject({ _tag: "ServerError", detail: expect.stringMatching(/^Basic <redacted> Basic/) })
      // A long "token" value shrinks to the marker, so the runtime token that the window's end (800 characters
      // shown + 64 KiB) cuts after 12 characters would come into view: what is left of it is dropped.
      const windowEnd = 800 + 64 * 1024
      const head = `{"token":"${"v".repeat(windowEnd - 12 - 40)}","note":"${"n".repeat(20)}`
      const cutToken = failure(yield* sendAnsweredWith(text(`${head}runtime-token and more"}${"x".repeat(1000)}`)))
      expect(cutToken).toMatchObject({
        _tag: "ServerError",
        detail: "{\"token\":\"<redacted>…"
      })
      expect(JSON.stringify(cutToken)).not.toContain("runtime-tok")
    }))

  it.scoped("an error text made to overflow a backtracking pattern's stack (16 MiB after \"token\": \", Basic) is read", () =>
    Effect.gen(function*() {
      const run = "A".repeat(16 * 1024 * 1024)
      expect(failure(yield* sendAnsweredWith(text(`"token":"${run}`)))).toMatchObject({
        _tag: "ServerError",
        detail: "\"token\":\"<redacted>…"
      })
      expect(failure(yield* sendAnsweredWith(text(`"token":"${"A\\\"".repeat(4 * 1024 * 1024)}`)))).toMatchObject({
        _tag: "ServerError",
        detail: "\"token\":\"<redacted>…"
      })
      // one run the cut ends in: it could be a credential, none of it is shown
      expect(failure(yield* sendAnsweredWith(text(`Basic ${run}`)))).toMatchObject({
        _tag: "ServerError",
        detail: "Basic…"
      })
    }))
})

/** JSON text of `levels` nested arrays around `inner`/** JSON text of `levels` nested arrays around `inner` (built as text: the value itself is too deep to print). */
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

// SPEC §4: a runtime error answer is read as google.rpc.Status JSON, its ErrorInfo found anywhere in
// `details` (only an entry typed google.rpc.ErrorInfo counts); status and `reason` decide the error, the
// Status `message` (or a plain-string `error`) is its detail, and a non-JSON body still gives one.

const runtime = "https://runtime.example/api/a2a/v1"
const info = (reason: string, extra: Record<string, unknown> = {}) => ({
  "@type": "type.googleapis.com/google.rpc.ErrorInfo",
  reason,
  domain: "a2a-protocol.org",
  ...extra
})
const rpc = (code: number, message: string, details: ReadonlyArray<unknown>) => ({
  error: { code, status: "X", message, details }
})

const respond = (request: HttpClientRequest.HttpClientRequest, status: number, body: unknown) =>
  HttpClientResponse.fromWeb(
    request,
    typeof body === "string"
      ? new Response(body, { status, headers: { "content-type": "text/html" } })
      : new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })
  )

/** The error of one send (or Task call) to a runtime that answers `status` with `body` (a string: HTML). */
const failing = (
  status: number,
  body: unknown,
  call: (a2a: A2AClient.Service) => Effect.Effect<unknown, object> = (a2a) =>
    a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" })
) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const a2a = yield* clientOf(fakeRuntime((request) => {
      seen.push(`${request.method} ${request.url}`)
      return Effect.succeed(respond(request, status, body))
    }))
    const error = yield* Effect.flip(call(a2a))
    // never retried
    expect(seen).toHaveLength(1)
    return { ...error }
  })

const sendFields = (status: number) => ({
  agentSessionUid: sessionUid,
  messageId: "m-1",
  method: "POST",
  url: `${runtime}/message:send`,
  status
})

describe("rules: platform text in an error is one bounded line (SPEC §9, hostile answers)", () => {
  const hostile = `first line\r\nsecond\u0007\u001b]52;c;ZXZpbA==\u0007 line\u001b[2J ${"x".repeat(5000)}`
  const shown = `first line second line ${"x".repeat(5000)}`.slice(0, 1000)

  it.scoped("the runtime's message and reason: line breaks one space, escape sequences and controls gone, 1,000 at most", () =>
    Effect.gen(function*() {
      const error = yield* failing(500, rpc(500, hostile, [info(`REASON\n\u001b${"R".repeat(300)}`)]))
      expect(error).toMatchObject({ _tag: "ServerError", detail: `${shown}…`, reason: `REASON ${"R".repeat(193)}…` })
    }))

  it.scoped("the runtime's message: bidirectional formatting characters gone, so it reads as it was sent", () =>
    Effect.gen(function*() {
      // U+202E would show "gnp.exe" as "exe.png"; U+2066..U+2069, U+200F and U+061C reorder text as well
      const error = yield* failing(500, rpc(500, "file \u202egnp.exe\u202c ok \u2066x\u2069 \u200fy\u061c z", []))
      expect(error).toMatchObject({ _tag: "ServerError", detail: "file gnp.exe ok x y z" })
    }))

  it.scoped("a message of 1,000 characters is kept whole", () =>
    Effect.gen(function*() {
      const error = yield* failing(400, rpc(400, "y".repeat(1000), []))
      expect(error).toMatchObject({ _tag: "A2ARequestError", detail: "y".repeat(1000) })
    }))
})

describe("rules: the ErrorInfo of a runtime error (SPEC §4)", () => {
  it.scoped("an entry without @type, or of another type, is not the ErrorInfo: the typed one is", () =>
    Effect.gen(function*() {
      expect(yield* failing(400, rpc(400, "bad", [{ reason: "UNTYPED" }]))).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(400),
        detail: "bad"
      })
      expect(
        yield* failing(
          400,
          rpc(400, "bad", [
            { "@type": "type.googleapis.com/google.rpc.BadRequest", reason: "OTHER" },
            info("UNSUPPORTED_OPERATION")
          ])
        )
      ).toEqual({ _tag: "A2ARequestError", ...sendFields(400), reason: "UNSUPPORTED_OPERATION", detail: "bad" })
    }))

  it.scoped("found nested in details; an ErrorInfo without a string reason is passed over", () =>
    Effect.gen(function*() {
      expect(
        yield* failing(409, rpc(409, "nested", [{ wrapper: { inner: [info("", { reason: 7 }), info("DEEP")] } }]))
      ).toEqual({ _tag: "A2ARequestError", ...sendFields(409), reason: "DEEP", detail: "nested" })
    }))

  it.scoped("looked for eight levels deep, not deeper", () =>
    Effect.gen(function*() {
      // details itself is level 0, an entry of it level 1; each array around the ErrorInfo adds one
      const wrapped = (levels: number): unknown => levels === 1 ? info("DEEP") : [wrapped(levels - 1)]
      expect(yield* failing(400, rpc(400, "deep", [wrapped(8)]))).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(400),
        reason: "DEEP",
        detail: "deep"
      })
      expect(yield* failing(400, rpc(400, "deep", [wrapped(9)]))).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(400),
        detail: "deep"
      })
    }))

  it.scoped("an entry whose @type is not a string is passed over (no crash)", () =>
    Effect.gen(function*() {
      expect(yield* failing(400, rpc(400, "bad", [{ "@type": 5, reason: "NUMERIC_TYPE" }, info("TYPED")]))).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(400),
        reason: "TYPED",
        detail: "bad"
      })
    }))

  it.scoped("an ErrorInfo-typed entry that does not decode is searched inside, like any other object", () =>
    Effect.gen(function*() {
      const broken = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: 7,
        metadata: { inner: info("INNER") }
      }
      expect(yield* failing(400, rpc(400, "bad", [broken]))).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(400),
        reason: "INNER",
        detail: "bad"
      })
    }))

  it.scoped("eight levels also count through objects: three objects deep is found, five is not", () =>
    Effect.gen(function*() {
      // an object's values are one level below it and each value one more
      const inObjects = (n: number): unknown => n === 0 ? info("IN_OBJECTS") : { inner: inObjects(n - 1) }
      expect(yield* failing(400, rpc(400, "o", [inObjects(3)]))).toMatchObject({ reason: "IN_OBJECTS" })
      expect(yield* failing(400, rpc(400, "o", [inObjects(5)]))).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(400),
        detail: "o"
      })
    }))

  it.scoped("a Status message or error that is not a string is not the detail: the body text is", () =>
    Effect.gen(function*() {
      expect(yield* failing(400, { error: { code: 400, message: 42 } })).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(400),
        detail: "{\"error\":{\"code\":400,\"message\":42}}"
      })
      expect(yield* failing(400, { error: { code: 400, error: 5 } })).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(400),
        detail: "{\"error\":{\"code\":400,\"error\":5}}"
      })
    }))

  it.scoped("a Status without the error wrapper is read the same; a plain-string error is the detail", () =>
    Effect.gen(function*() {
      expect(yield* failing(400, { code: 400, message: "bare", details: [info("BARE")] })).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(400),
        reason: "BARE",
        detail: "bare"
      })
      expect(yield* failing(422, { error: "a plain string" })).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(422),
        detail: "a plain string"
      })
      expect(yield* failing(422, { error: { code: 422 } })).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(422),
        detail: "{\"error\":{\"code\":422}}"
      })
    }))
})

describe("rules: runtime error statuses on a send (SPEC §4)", () => {
  it.scoped("5xx → ServerError from the runtime with the ErrorInfo reason and the Status message", () =>
    Effect.gen(function*() {
      const error = yield* failing(503, rpc(503, "down for a moment", [info("BACKEND_DOWN")]))
      expect(error).toEqual({
        _tag: "ServerError",
        ...sendFields(503),
        origin: "runtime",
        reason: "BACKEND_DOWN",
        detail: "down for a moment"
      })
    }))

  it.scoped("an HTML 500 page → ServerError naming the page; a 4xx HTML page → A2ARequestError naming it", () =>
    Effect.gen(function*() {
      expect(yield* failing(500, "<html><title>Oops</title></html>")).toEqual({
        _tag: "ServerError",
        ...sendFields(500),
        origin: "runtime",
        detail: "an HTML page \"Oops\""
      })
      expect(yield* failing(404, "<html><body>no</body></html>")).toEqual({
        _tag: "A2ARequestError",
        ...sendFields(404),
        detail: "an HTML error page"
      })
    }))

  it.scoped("the Message limit is a 504 only: a 502 with that ErrorInfo is a ServerError", () =>
    Effect.gen(function*() {
      const limit = info("MESSAGE_RESPONSE_LIMIT_EXCEEDED", { domain: "mainsequence.ai" })
      expect(yield* failing(502, rpc(502, "cut", [limit]))).toEqual({
        _tag: "ServerError",
        ...sendFields(502),
        origin: "runtime",
        reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
        detail: "cut"
      })
      expect(
        yield* failing(504, rpc(504, "cut", [{ ...limit, metadata: { limitSeconds: 30 } }]))
      ).toEqual({
        _tag: "A2AMessageLimitExceededError",
        ...sendFields(504),
        origin: "runtime",
        reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
        limitSeconds: 30
      })
    }))
})

describe("rules: runtime error statuses on get / cancel task (SPEC §4, §7)", () => {
  const get = (a2a: A2AClient.Service) => a2a.getA2ATask(sessionUid, "t 1")
  const cancel = (a2a: A2AClient.Service) => a2a.cancelA2ATask(sessionUid, "t 1")
  const taskFields = (method: string, path: string, status: number) => ({
    agentSessionUid: sessionUid,
    taskId: "t 1",
    method,
    url: `${runtime}${path}`,
    status
  })

  it.scoped("TASK_NOT_FOUND → TaskNotFoundError; TASK_NOT_CANCELABLE → TaskNotCancelableError (keyed on reason)", () =>
    Effect.gen(function*() {
      expect(yield* failing(404, rpc(404, "no such task", [info("TASK_NOT_FOUND")]), get)).toEqual({
        _tag: "TaskNotFoundError",
        ...taskFields("GET", "/tasks/t%201", 404),
        reason: "TASK_NOT_FOUND",
        detail: "no such task"
      })
      expect(yield* failing(409, rpc(409, "done already", [info("TASK_NOT_CANCELABLE")]), cancel)).toEqual({
        _tag: "TaskNotCancelableError",
        ...taskFields("POST", "/tasks/t%201:cancel", 409),
        reason: "TASK_NOT_CANCELABLE",
        detail: "done already"
      })
      // keyed on reason, not status
      expect(yield* failing(400, rpc(400, "gone", [info("TASK_NOT_FOUND")]), cancel)).toMatchObject({
        _tag: "TaskNotFoundError",
        status: 400
      })
    }))

  it.scoped("TASK_NOT_CANCELABLE only in the message, without ErrorInfo → A2ARequestError without reason", () =>
    Effect.gen(function*() {
      const error = yield* failing(409, rpc(409, "TASK_NOT_CANCELABLE", [{ reason: "TASK_NOT_CANCELABLE" }]), cancel)
      const { taskId: _, ...fields } = taskFields("POST", "/tasks/t%201:cancel", 409)
      expect(error).toEqual({ _tag: "A2ARequestError", ...fields, detail: "TASK_NOT_CANCELABLE" })
    }))

  it.scoped("another 4xx → A2ARequestError with its reason; a 5xx → ServerError from the runtime", () =>
    Effect.gen(function*() {
      const { taskId: _, ...fields } = taskFields("GET", "/tasks/t%201", 400)
      expect(yield* failing(400, rpc(400, "no", [info("UNSUPPORTED_OPERATION")]), get)).toEqual({
        _tag: "A2ARequestError",
        ...fields,
        reason: "UNSUPPORTED_OPERATION",
        detail: "no"
      })
      expect(yield* failing(500, rpc(500, "crashed", [info("INTERNAL")]), get)).toEqual({
        _tag: "ServerError",
        ...fields,
        status: 500,
        origin: "runtime",
        reason: "INTERNAL",
        detail: "crashed"
      })
      expect(yield* failing(502, "<html><title>Bad gateway</title></html>", cancel)).toEqual({
        _tag: "ServerError",
        ...fields,
        method: "POST",
        url: `${runtime}/tasks/t%201:cancel`,
        status: 502,
        origin: "runtime",
        detail: "an HTML page \"Bad gateway\""
      })
    }))
})

const sendPath = `/runtimes/${serviceUid}/api/a2a/v1/message:send`

/** Sends once with the Agent answering `behaviour`; the error and the one request on the wire. */
const failWith = (behaviour: typeof SessionScenario.SendBehaviour.Encoded) =>
  Effect.gen(function*() {
    const a2a = yield* client
    const p = yield* platform
    yield* p.updateSession(sessionUid, (s) => ({ ...s, agent: { ...s.agent, behaviour } }))
    yield* p.clearRequestLog
    const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
    const sends = yield* runtimeSends
    expect(sends.map((s) => [s.method, s.path, s.status])).toEqual([[
      "POST",
      sendPath,
      "status" in error ? error.status : undefined
    ]])
    return error
  })

const limit = (metadata: Record<string, string> | undefined, reason = "MESSAGE_RESPONSE_LIMIT_EXCEEDED") => ({
  _tag: "RpcError" as const,
  httpStatus: 504,
  status: "DEADLINE_EXCEEDED",
  message: "The Agent did not answer within the Message limit.",
  reason,
  domain: "mainsequence.ai",
  ...(metadata === undefined ? {} : { metadata })
})

// SPEC §4: the Message limit is `ErrorInfo.metadata.limitSeconds` (90 when missing or unusable), and only
// `reason: MESSAGE_RESPONSE_LIMIT_EXCEEDED` from `mainsequence.ai` on a 504 is the Message limit.
describe("message-limit answers", () => {
  it.effect("limitSeconds is read trimmed; missing or invalid metadata means 90", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, string> | undefined, number]> = [
        [{ limitSeconds: " 120 " }, 120],
        [{ limitSeconds: "45" }, 45],
        [undefined, 90],
        [{}, 90],
        [{ limitSeconds: "soon" }, 90],
        [{ limitSeconds: "-5" }, 90],
        [{ limitSeconds: "0" }, 90]
      ]
      for (const [metadata, seconds] of cases) {
        const error = yield* failWith(limit(metadata))
        expect([metadata, error]).toMatchObject([metadata, {
          _tag: "A2AMessageLimitExceededError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          method: "POST",
          status: 504,
          origin: "runtime",
          reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
          limitSeconds: seconds
        }])
      }
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a mainsequence.ai 504 with another reason is a plain ServerError carrying the rpc message", () =>
    Effect.gen(function*() {
      const error = yield* failWith(limit({ limitSeconds: "90" }, "UPSTREAM_TIMEOUT"))
      expect(error).toMatchObject({
        _tag: "ServerError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        method: "POST",
        status: 504,
        origin: "runtime",
        reason: "UPSTREAM_TIMEOUT",
        detail: "The Agent did not answer within the Message limit."
      })
      expect(error.message).toContain("The Agent did not answer within the Message limit.")
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("the limit reason on a status other than 504 is not the Message limit", () =>
    Effect.gen(function*() {
      const error = yield* failWith({ ...limit({ limitSeconds: "90" }), httpStatus: 503 })
      expect(error).toMatchObject({ _tag: "ServerError", status: 503, reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED" })
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

// SPEC §4: a runtime 4xx other than 401/403 is an A2ARequestError, with or without an ErrorInfo, and the
// google.rpc `message` is its detail.
describe("runtime error answers", () => {
  it.effect("a 4xx without ErrorInfo → A2ARequestError with the rpc message and no reason, sent once", () =>
    Effect.gen(function*() {
      const error = yield* failWith({
        _tag: "RpcError",
        httpStatus: 400,
        status: "INVALID_ARGUMENT",
        message: "parts must not be empty"
      })
      expect(error).toMatchObject({
        _tag: "A2ARequestError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        method: "POST",
        status: 400,
        detail: "parts must not be empty"
      })
      expect("reason" in error ? error.reason : "no reason field").toBeUndefined()
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a 4xx with ErrorInfo keeps its reason", () =>
    Effect.gen(function*() {
      const error = yield* failWith({
        _tag: "RpcError",
        httpStatus: 409,
        status: "ABORTED",
        message: "busy",
        reason: "CONTEXT_BUSY"
      })
      expect(error).toMatchObject({ _tag: "A2ARequestError", status: 409, reason: "CONTEXT_BUSY", detail: "busy" })
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a 3xx is not a success: A2ARequestError with the status, sent once (an answer is HTTP 2xx)", () =>
    Effect.gen(function*() {
      for (const status of [300, 302]) {
        const error = yield* failWith({ _tag: "NonJson", status })
        expect(error).toMatchObject({
          _tag: "A2ARequestError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          method: "POST",
          status,
          detail: `an HTML page "${status} Error"`
        })
      }
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

/** The InvalidA2AResponseError (rule `json`) of a 200 answer that is not JSON, with `reason`. */
const notJson = (reason: string) => ({
  _tag: "InvalidA2AResponseError",
  agentSessionUid: sessionUid,
  messageId: "m-1",
  url: sendUrl,
  status: 200,
  rule: "json",
  reason
})

/** The error of one send to a runtime that answers 200 with `body` (bytes: no implied media type) and `headers`. */
const answeredWith = (body: string | Uint8Array, headers: Record<string, string>) =>
  Effect.flatMap(
    A2AClient.A2AClient,
    (a2a) => Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
  ).pipe(
    Effect.provide(
      fakeRuntime((request) =>
        Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body, { status: 200, headers })))
      )
    )
  )

// SPEC §4: a 200 answer that is not a JSON object is InvalidA2AResponseError, its reason naming what came
// (media type, or an empty body) without echoing more than a short excerpt; it is not retried.
describe("a 200 answer that is not a JSON object", () => {
  it.effect("a JSON array → rule envelope, \"the answer is not a JSON object\"; sent once", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }), "1 minute")
      expect({ ...error }).toEqual({
        _tag: "InvalidA2AResponseError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        url: expect.stringMatching(/\/api\/a2a\/v1\/message:send$/),
        status: 200,
        rule: "envelope",
        reason: "the answer is not a JSON object"
      })
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Invalid", violation: "not_an_object" } } })]
    }))))

  it.effect("an HTML page names its media type and title", () =>
    Effect.gen(function*() {
      const error = yield* answeredWith("<html><title> Bad\n gateway </title></html>", { "content-type": "text/html" })
      expect({ ...error }).toEqual(notJson("the answer is not JSON (text/html: an HTML page \"Bad gateway\")"))
    }))

  it.effect("an empty body without a media type says so", () =>
    Effect.gen(function*() {
      const error = yield* answeredWith(new Uint8Array(0), {})
      expect({ ...error }).toEqual(notJson("the answer is not JSON (no media type, empty body)"))
    }))
})

const url = `https://platform.sim.mainsequence.test/runtimes/${serviceUid}/api/a2a/v1/message:send`

// SPEC §2, §4: ROLE_REQUESTER / ROLE_RESPONDER are internal platform directions, never accepted, and the
// error says so rather than only "must be ROLE_AGENT".
describe("answers with an internal platform role", () => {
  it.effect("each internal role is named in its own InvalidA2AResponseError; sent once, not retried", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const cases = [
        ["role_requester", "ROLE_REQUESTER"],
        ["role_responder", "ROLE_RESPONDER"]
      ] as const
      for (const [violation, role] of cases) {
        yield* p.updateSession(
          sessionUid,
          (s) => ({ ...s, agent: { ...s.agent, behaviour: { _tag: "Invalid", violation } } })
        )
        yield* p.clearRequestLog
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
        expect(error).toMatchObject({
          _tag: "InvalidA2AResponseError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          url,
          status: 200,
          rule: "role",
          reason: `the message has the internal platform direction ${role}, which is not a public A2A role; ` +
            "an Agent's answer must have role ROLE_AGENT"
        })
        expect((yield* runtimeSends).map((s) => s.status)).toEqual([200])
      }
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("ROLE_USER gets the generic role rule, naming the role it got", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
      expect(error).toMatchObject({
        _tag: "InvalidA2AResponseError",
        rule: "role",
        reason: "the message role must be ROLE_AGENT (got \"ROLE_USER\")"
      })
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Invalid", violation: "role_user" } } })]
    }))))
})

const tooLarge = { _tag: "InvalidA2AResponseError", rule: "response-too-large" } as const

const answerBytes = new TextEncoder().encode(JSON.stringify({
  message: { messageId: "a-1", role: "ROLE_AGENT", contextId: sessionUid, parts: [{ text: "x".repeat(1000) }] }
}))

/** The answer streamed in two pieces, without a Content-Length. */
const streamedAnswer = (options: { readonly maxResponseBytes: number }) =>
  fakeRuntime((request) =>
    Effect.succeed(HttpClientResponse.fromWeb(
      request,
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(answerBytes.subarray(0, 10))
            controller.enqueue(answerBytes.subarray(10))
            controller.close()
          }
        }),
        { status: 200, headers: { "content-type": "application/a2a+json" } }
      )
    )), options)

describe("maxResponseBytes", () => {
  it.effect("an answer whose Content-Length is over the limit is refused before its body is read", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // the resolve answer fits; the echo of 5000 characters, trickled over 9 s, does not
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "x".repeat(5000), timeout: 60 }),
        "1 minute"
      )
      expect(error).toMatchObject(tooLarge)
      expect(error.message).toContain("limit of 3000 bytes")
      expect(error.message).toContain("Content-Length")
      expect(millis).toBe(0)
      const [send] = yield* runtimeSends
      expect(send?.bodyOutcome).not.toBe("complete")
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 10, gapMs: 1000 } } } })]
    }, { maxResponseBytes: 3000 }))))

  it.effect("a chunked body stops being read once it passes the limit (no Content-Length)", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // ~10 kB in 10 pieces a second apart: the third piece passes 2500 bytes, 7 s before the body would end
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "x".repeat(10_000), timeout: 60 }),
        "1 minute"
      )
      expect(error).toMatchObject(tooLarge)
      expect(error.message).toContain("its body passed the limit of 2500 bytes")
      expect(millis).toBe(2000)
      const [send] = yield* runtimeSends
      expect(send?.bodyOutcome).toBe("aborted")
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        agent: { behaviour: { _tag: "Answer", trickle: { chunks: 10, gapMs: 1000, chunked: true } } }
      })]
    }, { maxResponseBytes: 2500 }))))

  it.effect("a body of exactly the limit is read; one byte more is refused", () =>
    Effect.gen(function*() {
      const exact = yield* Effect.flatMap(client, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" })).pipe(
        Effect.provide(streamedAnswer({ maxResponseBytes: answerBytes.length }))
      )
      expect(exact.parts).toEqual([{ text: "x".repeat(1000) }])
      const over = yield* Effect.flip(
        Effect.flatMap(client, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" })).pipe(
          Effect.provide(streamedAnswer({ maxResponseBytes: answerBytes.length - 1 }))
        )
      )
      expect(over).toMatchObject(tooLarge)
    }))

  it.effect("the default is 64 MiB: a declared 64 MiB + 1 is refused, nothing read", () =>
    Effect.gen(function*() {
      expect(A2AClient.defaultMaxResponseBytes).toBe(64 * 1024 * 1024)
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      expect(error).toMatchObject(tooLarge)
      expect(error.message).toContain(`limit of ${64 * 1024 * 1024} bytes`)
    }).pipe(Effect.provide(fakeRuntime((request) =>
      Effect.succeed(HttpClientResponse.fromWeb(
        request,
        new Response(new ReadableStream(), {
          status: 200,
          headers: { "content-type": "application/a2a+json", "content-length": String(64 * 1024 * 1024 + 1) }
        })
      ))
    ))))

  it.effect("a backend answer over the limit is a BackendContractError naming the limit, nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      expect(error).toMatchObject({ _tag: "BackendContractError" })
      expect(error.message).toContain("limit of 1000 bytes")
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ backend: { extraResolveFields: { padding: "x".repeat(2000) } } })]
    }, { maxResponseBytes: 1000 }))))

  it.effect("an unusable limit fails every call with A2AInputError before any request", () =>
    Effect.gen(function*() {
      for (const maxResponseBytes of [0, -1, 1.5, Number.NaN]) {
        const error = yield* Effect.flip(
          Effect.flatMap(
            client,
            (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" })
          ).pipe(Effect.provide(simulated({ sessions: [session()] }, { maxResponseBytes })))
        )
        expect(error).toMatchObject({ _tag: "A2AInputError", field: "maxResponseBytes" })
      }
    }))

  it.effect("MAINSEQUENCE_MAX_RESPONSE_BYTES is read by A2AClient.config (optional, checked like the option)", () =>
    Effect.gen(function*() {
      const env = (extra: ReadonlyArray<readonly [string, string]>) =>
        ConfigProvider.fromMap(
          new Map([["MAINSEQUENCE_ENDPOINT", "https://backend.example"], ["MAINSEQUENCE_ACCESS_TOKEN", "t"], ...extra])
        )
      const set = yield* Effect.withConfigProvider(A2AClient.config, env([["MAINSEQUENCE_MAX_RESPONSE_BYTES", "1234"]]))
      expect(set.maxResponseBytes).toBe(1234)
      const unset = yield* Effect.withConfigProvider(A2AClient.config, env([]))
      expect(unset.maxResponseBytes).toBeUndefined()
      const empty = yield* Effect.withConfigProvider(A2AClient.config, env([["MAINSEQUENCE_MAX_RESPONSE_BYTES", ""]]))
      expect(empty.maxResponseBytes).toBeUndefined()
      const padded = yield* Effect.withConfigProvider(
        A2AClient.config,
        env([["MAINSEQUENCE_MAX_RESPONSE_BYTES", " 12 "]])
      )
      expect(padded.maxResponseBytes).toBe(12)
      for (
        const [text, got] of [["0", "0"], ["abc", "\"abc\""], ["1.5", "\"1.5\""], ["-3", "\"-3\""], [
          "99999999999999999999",
          "100000000000000000000"
        ]]
      ) {
        const error = yield* Effect.flip(
          Effect.withConfigProvider(A2AClient.config, env([["MAINSEQUENCE_MAX_RESPONSE_BYTES", text]]))
        )
        expect(error.toString(), text).toContain(
          `Invalid data at MAINSEQUENCE_MAX_RESPONSE_BYTES: "must be a positive integer number of bytes (got ${got})"`
        )
      }
    }))
})

// One HTTP exchange (SPEC §4, §5): a body that fails while being read is a transport error of the step
// that read it; an answer of exactly maxResponseBytes is taken; a non-JSON body is described by its media
// type (without parameters, lower-cased) and an HTML page by its title; rpc_url's trailing slashes are trimmed.

const resolveUrl = `https://backend.example/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`
const ready = (rpcUrl: string) => ({ ...readyAccessForTests, rpc_url: rpcUrl })
const agentMessage = {
  message: { messageId: "a-1", role: "ROLE_AGENT", contextId: sessionUid, parts: [{ text: "ok" }] }
}

const answer = (
  request: HttpClientRequest.HttpClientRequest,
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string>
) => Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body, { status: 200, headers })))

const json = (request: HttpClientRequest.HttpClientRequest, value: unknown) =>
  Effect.succeed(jsonResponse(request, 200, value))

/** A body that sends `first` and then fails. */
const failingBody = (first: string) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first))
      controller.error(new Error("connection reset while reading"))
    }
  })

/** The client on a hand-written HttpClient answering every request with `handler`; the URLs it asked. */
const on = (
  handler: (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<HttpClientResponse.HttpClientResponse>,
  maxResponseBytes?: number
) => {
  const seen: Array<string> = []
  const layer = fakePlatform((request) => {
    seen.push(`${request.method} ${request.url}`)
    return handler(request)
  }, maxResponseBytes === undefined ? {} : { maxResponseBytes })
  const send = Effect.flatMap(
    A2AClient.A2AClient,
    (a2a) => Effect.either(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
  ).pipe(Effect.provide(layer))
  return { send, seen }
}

const runtimeBase = "https://runtime.example/base"

describe("rules: a body that fails while it is read (SPEC §5)", () => {
  it.effect("the runtime's answer body → A2ATransportError in read-response; the message may have been sent", () =>
    Effect.gen(function*() {
      const { send } = on((request) =>
        request.url === resolveUrl
          ? json(request, ready(`${runtimeBase}/`))
          : answer(request, failingBody("{\"message\":"), { "content-type": "application/a2a+json" })
      )
      const result = yield* send
      expect(result._tag === "Left" ? { ...result.left } : result).toEqual({
        _tag: "A2ATransportError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        method: "POST",
        url: `${runtimeBase}/api/a2a/v1/message:send`,
        step: "read-response",
        messageMayHaveBeenSent: true
      })
    }))

  it.effect("the backend's answer body → A2ATransportError in resolve-runtime-access; nothing was sent", () =>
    Effect.gen(function*() {
      const { seen, send } = on((request) =>
        answer(request, failingBody("{\"mode\":"), { "content-type": "application/json" })
      )
      const result = yield* send
      expect(result._tag === "Left" ? { ...result.left } : result).toEqual({
        _tag: "A2ATransportError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        method: "POST",
        url: resolveUrl,
        step: "resolve-runtime-access",
        messageMayHaveBeenSent: false
      })
      expect(seen).toEqual([`POST ${resolveUrl}`])
    }))
})

describe("rules: maxResponseBytes from Content-Length (SPEC §4)", () => {
  // larger than the resolve answer, which the same limit also bounds
  const body = JSON.stringify({ message: { ...agentMessage.message, padding: "x".repeat(400) } })
  const size = new TextEncoder().encode(body).byteLength
  const declared = (request: HttpClientRequest.HttpClientRequest) =>
    request.url === resolveUrl
      ? json(request, ready(`${runtimeBase}/`))
      : answer(request, body, { "content-type": "application/a2a+json", "content-length": String(size) })

  it.effect("an answer of exactly the limit is taken; one byte less of limit refuses it", () =>
    Effect.gen(function*() {
      const exact = yield* on(declared, size).send
      expect(exact._tag).toBe("Right")
      const over = yield* on(declared, size - 1).send
      expect(over._tag === "Left" ? { ...over.left } : over).toEqual({
        _tag: "InvalidA2AResponseError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        url: `${runtimeBase}/api/a2a/v1/message:send`,
        status: 200,
        rule: "response-too-large",
        reason: `the answer is too large: its Content-Length ${size} is over the limit of ${
          size - 1
        } bytes (maxResponseBytes)`
      })
    }))
})

describe("rules: how a non-JSON answer is described (SPEC §4)", () => {
  const described = (text: string, headers: Record<string, string>) =>
    Effect.map(
      on((request) =>
        request.url === resolveUrl ? json(request, ready(`${runtimeBase}/`)) : answer(request, text, headers)
      )
        .send,
      (result) => result._tag === "Left" && "reason" in result.left ? result.left.reason : "not a failure"
    )

  it.effect("media type without parameters, lower-cased; an HTML page by its title, else as an HTML error page", () =>
    Effect.gen(function*() {
      expect(yield* described("<p>down</p>", { "content-type": "Text/HTML ; charset=utf-8" })).toBe(
        "the answer is not JSON (text/html: an HTML error page)"
      )
      expect(yield* described("<title>  </title>", { "content-type": "text/html" })).toBe(
        "the answer is not JSON (text/html: an HTML error page)"
      )
      expect(
        yield* described("  <!DOCTYPE html><title lang=\"en\">Bad\n  gateway</title>", { "content-type": "text/plain" })
      ).toBe("the answer is not JSON (text/plain: an HTML page \"Bad gateway\")")
      expect(yield* described("<html><body>no title</body></html>", { "content-type": "text/plain" })).toBe(
        "the answer is not JSON (text/plain: an HTML error page)"
      )
      // text that only contains a tag is text
      expect(yield* described("see <html> here", { "content-type": "text/plain" })).toBe(
        "the answer is not JSON (text/plain: see <html> here)"
      )
    }))
})

describe("rules: rpc_url is opaque (SPEC §3)", () => {
  it.effect("every trailing slash is trimmed, the path kept", () =>
    Effect.gen(function*() {
      const { seen, send } = on((request) =>
        request.url === resolveUrl ? json(request, ready(`${runtimeBase}///`)) : json(request, agentMessage)
      )
      const result = yield* send
      expect(result._tag).toBe("Right")
      expect(seen).toEqual([`POST ${resolveUrl}`, `POST ${runtimeBase}/api/a2a/v1/message:send`])
    }))

  it.effect("an rpc_url made to stall a backtracking pattern (a million slashes, then a segment) is sent at once", () =>
    Effect.gen(function*() {
      const rpcUrl = `${runtimeBase}/${"/".repeat(1_000_000)}x/`
      const { seen, send } = on((request) =>
        request.url === resolveUrl ? json(request, ready(rpcUrl)) : json(request, agentMessage)
      )
      expect((yield* send)._tag).toBe("Right")
      expect(seen).toEqual([`POST ${resolveUrl}`, `POST ${rpcUrl.slice(0, -1)}/api/a2a/v1/message:send`])
    }))
})

const Access = Schema.Struct({ rpc_url: Schema.String, token: Schema.String })

/** Resolves access and sends `body` to the simulated runtime by hand, past the SDK. */
const handSend = (body: unknown) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const resolved = yield* http.execute(
      HttpClientRequest.post(
        `${SimulatedPlatform.defaultBaseUrl}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`
      ).pipe(
        HttpClientRequest.bearerToken(SimulatedPlatform.defaultUserAccessToken),
        HttpClientRequest.bodyText("{}", "application/json")
      )
    )
    const access = yield* Schema.decodeUnknown(Access)(yield* resolved.json)
    const answer = yield* http.execute(
      HttpClientRequest.post(`${access.rpc_url.replace(/\/+$/, "")}/api/a2a/v1/message:send`).pipe(
        HttpClientRequest.bearerToken(access.token),
        HttpClientRequest.setHeaders({ "A2A-Version": "1.0", "Accept": "application/a2a+json" }),
        HttpClientRequest.bodyText(JSON.stringify(body), "application/a2a+json")
      )
    )
    return answer.status
  })

const blockingBody = {
  message: { messageId: "m-blocking", role: "ROLE_USER", contextId: sessionUid, parts: [{ text: "hi" }] },
  configuration: { acceptedOutputModes: ["text/plain"], blocking: true }
}

describe("A2A v1 conformance of the suite", () => {
  it.effect("a hand-sent body with blocking: true is refused and logged as a schema violation", () =>
    Effect.gen(function*() {
      expect(yield* handSend(blockingBody)).toBe(400)
      const p = yield* platform
      const violations = schemaViolations(yield* p.requestLog)
      expect(violations).toHaveLength(1)
      expect(violations[0]).toMatch(/^m-blocking: .*blocking/)
      yield* p.clearRequestLog
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("the check on every simulated layer fails the test that sent such a body", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(handSend(blockingBody).pipe(Effect.provide(simulated({ sessions: [session()] }))))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        expect(Cause.pretty(exit.cause)).toMatch(/break the A2A v1 schema:\s+m-blocking: .*blocking/)
      }
      // the SDK's own body passes the same check
      const sdk = yield* Effect.exit(
        Effect.flatMap(client, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" })).pipe(
          Effect.provide(simulated({ sessions: [session()] }))
        )
      )
      expect(Exit.isSuccess(sdk)).toBe(true)
    }))

  it.effect("an answer the SDK returns is validated too: one that breaks A2A v1 fails the test", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.flatMap(client, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(Cause.pretty(exit.cause)).toContain("breaks A2A v1")
    }).pipe(Effect.provide(fakeRuntime((request) =>
      Effect.succeed(jsonResponse(request, 200, {
        message: {
          messageId: "a-1",
          role: "ROLE_AGENT",
          contextId: sessionUid,
          parts: [{ raw: "not base64 @@@", mediaType: "application/pdf" }]
        }
      }))
    ))))
})

describe("proto-JSON null is absent (SPEC §4, §7)", () => {
  it.effect("a Message answer whose optional fields are null is accepted and returned as it came", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const answer = yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
      expect(answer).toMatchObject({
        role: "ROLE_AGENT",
        contextId: sessionUid,
        taskId: null,
        metadata: null,
        extensions: null,
        referenceTaskIds: null,
        parts: [{ text: "You said: hi", metadata: null }]
      })
      expect(A2AProtocol.textOf(answer)).toEqual(["You said: hi"])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Answer", nullFields: true } } })]
    }))))

  it.effect("a Task answer with null optional fields and a status message without messageId is accepted as it came", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const task = yield* a2a.sendA2AMessage(sessionUid, { message: "hi", responseKind: "task" })
      expect(task).toMatchObject({
        contextId: sessionUid,
        artifacts: null,
        metadata: null,
        status: {
          state: "TASK_STATE_INPUT_REQUIRED",
          message: {
            messageId: null,
            taskId: null,
            metadata: null,
            parts: [{ text: "More input is needed to go on." }]
          }
        }
      })
      expect(A2AProtocol.textOf(task)).toEqual(["More input is needed to go on."])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        agent: {
          taskSupport: true,
          task: { queuedMs: 0, outcome: "input_required" },
          behaviour: { _tag: "Answer", nullFields: true }
        }
      })]
    }))))
})
