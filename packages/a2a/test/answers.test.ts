import * as Headers from "@effect/platform/Headers"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as A2AError from "../src/A2AError.js"
import { decodeSendAnswer, decodeTaskAnswer } from "../src/internal/answers.js"
import { makeCall } from "../src/internal/callContext.js"
import type { HttpAnswer } from "../src/internal/exchange.js"
import { messageError, taskError } from "../src/internal/httpErrors.js"
import * as Timeout from "../src/Timeout.js"

/** No secret known: these tests are about the rules (scrubbing is spec10.errors.test.ts'). */
const keep = (text: string) => text
const uid = "0b2701a1-e777-4cfe-8437-b94025f00069"
const call = Effect.flatMap(
  Timeout.toBudget(undefined),
  (budget) => makeCall({ agentSessionUid: uid, messageId: "m1", budget, step: "send-message" })
)
const answer = (
  status: number,
  body: unknown,
  contentType = "application/a2a+json"
): HttpAnswer => ({
  method: "POST",
  url: "https://rt.example/api/a2a/v1/message:send",
  status,
  headers: Headers.fromInput({ "content-type": contentType }),
  body: new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body))
})

const agentMessage = {
  messageId: "a1",
  role: "ROLE_AGENT",
  contextId: uid,
  parts: [{ text: "hello" }]
}

const rule = (result: Either.Either<unknown, A2AError.InvalidA2AResponseError>) =>
  Either.match(result, { onLeft: (e) => [e.rule, e.message] as const, onRight: () => ["ok", ""] as const })

describe("message answers", () => {
  it.effect("a valid answer is returned whole, unknown fields preserved", () =>
    Effect.gen(function*() {
      const c = yield* call
      const rich = {
        ...agentMessage,
        parts: [
          { text: "t" },
          { data: { ok: true, nested: [1, 2] } },
          { raw: "AQID", filename: "x.pdf", mediaType: "application/pdf", vendorField: 1 },
          { url: "https://files.example/a", mediaType: "image/png" }
        ],
        metadata: { trace: "abc" },
        extensions: ["https://example/ext"],
        futureField: { deep: true }
      }
      const decoded = yield* decodeSendAnswer(
        c,
        answer(200, { message: rich }, "application/a2a+json; charset=utf-8"),
        keep,
        "message"
      )
      expect(decoded).toEqual(rich)
    }))

  it.effect("each broken rule has its own message", () =>
    Effect.gen(function*() {
      const c = yield* call
      const check = (message: unknown) => rule(decodeSendAnswer(c, answer(200, { message }), keep, "message"))
      expect(check({ ...agentMessage, role: "ROLE_USER" })[0]).toBe("role")
      const responder = check({ ...agentMessage, role: "ROLE_RESPONDER" })
      expect(responder[0]).toBe("role")
      expect(responder[1]).toContain("internal platform direction ROLE_RESPONDER")
      expect(check({ ...agentMessage, role: "ROLE_REQUESTER" })[1]).toContain("ROLE_REQUESTER")
      expect(check({ ...agentMessage, messageId: "  " })[0]).toBe("message-id")
      expect(check({ ...agentMessage, messageId: 7 })[0]).toBe("message-id")
      expect(check({ ...agentMessage, parts: [] })[0]).toBe("parts")
      expect(check({ ...agentMessage, parts: "x" })[0]).toBe("parts")
      const other = check({ ...agentMessage, contextId: "11111111-1111-4111-8111-111111111111" })
      expect(other[0]).toBe("context-id")
      expect(other[1]).toContain("another session")
      expect(check({ ...agentMessage, contextId: undefined })[0]).toBe("context-id")
      expect(rule(decodeSendAnswer(c, answer(200, "<html>oops</html>", "text/html"), keep, "message"))[0]).toBe("json")
      expect(rule(decodeSendAnswer(c, answer(200, [1]), keep, "message"))[0]).toBe("envelope")
      expect(rule(decodeSendAnswer(c, answer(200, { nothing: 1 }), keep, "message"))[0]).toBe("envelope")
    }))

  it.effect("a Task to a Message request (and the reverse) is a response-kind mismatch", () =>
    Effect.gen(function*() {
      const c = yield* call
      const task = { id: "t1", contextId: uid, status: { state: "TASK_STATE_WORKING" } }
      expect(rule(decodeSendAnswer(c, answer(200, { task }), keep, "message"))[0]).toBe("response-kind")
      expect(rule(decodeSendAnswer(c, answer(200, { message: agentMessage }), keep, "task"))[0]).toBe("response-kind")
      expect(Either.isRight(decodeSendAnswer(c, answer(200, { task }), keep, "task"))).toBe(true)
    }))
})

describe("task answers", () => {
  it.effect("accepts a bare or wrapped task and checks id, contextId and state", () =>
    Effect.gen(function*() {
      const c = yield* call
      const task = { id: "t1", contextId: uid, status: { state: "TASK_STATE_COMPLETED" }, extra: 1 }
      expect(yield* decodeTaskAnswer(c, answer(200, task), keep)).toEqual(task)
      expect(yield* decodeTaskAnswer(c, answer(200, { task }), keep)).toEqual(task)
      expect(rule(decodeTaskAnswer(c, answer(200, { ...task, id: " " }), keep))[0]).toBe("task-id")
      expect(rule(decodeTaskAnswer(c, answer(200, { ...task, contextId: "x" }), keep))[0]).toBe("context-id")
      expect(rule(decodeTaskAnswer(c, answer(200, { ...task, status: { state: "DONE" } }), keep))[0]).toBe("task-state")
    }))
})

describe("runtime error answers", () => {
  const limit = {
    error: {
      code: 504,
      status: "DEADLINE_EXCEEDED",
      message: "The Agent did not answer the Message within 90 seconds. Use Task mode for longer work.",
      details: [
        { "@type": "type.googleapis.com/google.rpc.DebugInfo", detail: "x" },
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
          domain: "mainsequence.ai",
          metadata: { limitSeconds: "90" }
        }
      ]
    }
  }

  it("504 + MESSAGE_RESPONSE_LIMIT_EXCEEDED from mainsequence.ai is the message limit, a server error", () => {
    const error = messageError(answer(504, limit), keep)
    expect(error._tag).toBe("A2AMessageLimitExceededError")
    expect(A2AError.isServerError(error)).toBe(true)
    if (error._tag === "A2AMessageLimitExceededError") expect(error.limitSeconds).toBe(90)
    expect(error.message).toContain("responseKind: \"task\"")
    expect(error.message).toContain("--response-kind task")
  })

  it("other 502/504s are plain ServerErrors, with a clear message for HTML pages", () => {
    const html = messageError(answer(504, "<html><title>504 Gateway Time-out</title></html>", "text/html"), keep)
    expect(html._tag).toBe("ServerError")
    expect(html.message).toContain("504 Gateway Time-out")
    const otherDomain = JSON.parse(JSON.stringify(limit))
    otherDomain.error.details[1].domain = "example.com"
    expect(messageError(answer(504, otherDomain), keep)._tag).toBe("ServerError")
    expect(messageError(answer(502, limit), keep)._tag).toBe("ServerError")
    const bare = messageError(answer(504, { error: { code: 504, message: "deadline" } }), keep)
    expect(bare._tag).toBe("ServerError")
    if (bare._tag === "ServerError") expect(bare.origin).toBe("runtime")
  })

  it("4xx are keyed on reason", () => {
    const status = (reason: string) => ({
      error: {
        code: 404,
        message: "m",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org" }]
      }
    })
    expect(taskError("t1", answer(404, status("TASK_NOT_FOUND")), keep)._tag).toBe("TaskNotFoundError")
    expect(taskError("t1", answer(400, status("TASK_NOT_CANCELABLE")), keep)._tag).toBe("TaskNotCancelableError")
    const other = messageError(answer(400, status("UNSUPPORTED_OPERATION")), keep)
    expect(other._tag).toBe("A2ARequestError")
    if (other._tag === "A2ARequestError") expect(other.reason).toBe("UNSUPPORTED_OPERATION")
  })
})

describe("Timeout", () => {
  it.effect("the default budget is [5, 900], 905 s in total", () =>
    Effect.gen(function*() {
      const budget = yield* Timeout.toBudget(undefined)
      expect(budget.totalSeconds).toBe(905)
      const pair = yield* Timeout.toBudget([2, 3])
      expect(pair.totalSeconds).toBe(5)
      for (const bad of [0, -1, Number.POSITIVE_INFINITY, Number.NaN]) {
        expect((yield* Effect.flip(Timeout.toBudget(bad))).field).toBe("timeout")
      }
      expect((yield* Effect.flip(Timeout.toBudget([1, 0]))).field).toBe("timeout")
    }))
})
