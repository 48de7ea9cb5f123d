import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as A2AClient from "../src/A2AClient.js"
import { clientOf, fakeRuntime, sessionUid } from "./fixtures.js"

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
