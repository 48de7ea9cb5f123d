// SPEC §2, the request body: the exact bytes on the wire.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { SendA2AMessageInput } from "../src/A2AClient.js"
import * as Node from "../src/node.js"
import { client, clientOf, platform, runtimeSends, serviceUid, session, sessionUid, simulated } from "./fixtures.js"
import { type Seen, serve } from "./recordingServer.js"

// SPEC §4: the one request that carries the message is `POST {rpc_url}/api/a2a/v1/message:send` — rpc_url
// kept with its path, trailing `/` trimmed — with the exact bytes of SPEC §2 and the A2A v1 headers; the
// Task helpers use `GET …/tasks/{id}` and `POST …/tasks/{id}:cancel` with `{}` (§7). Asserted on the
// simulated runtime and over a real socket through the Node layer.

const body = (messageId: string) =>
  JSON.stringify({
    message: { messageId, role: "ROLE_USER", contextId: sessionUid, parts: [{ text: "hi" }] },
    configuration: { acceptedOutputModes: ["text/plain"], responseKind: "message" }
  })

describe("rules: the send on the wire (simulated runtime)", () => {
  it.scoped("POST {rpc_url}/api/a2a/v1/message:send with the A2A headers and the exact bytes", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" })
      const [send, ...more] = yield* runtimeSends
      expect(more).toEqual([])
      expect({
        method: send?.method,
        url: send?.url,
        bodyText: send?.bodyText,
        headers: {
          "content-type": send?.headers["content-type"],
          accept: send?.headers["accept"],
          "a2a-extensions": send?.headers["a2a-extensions"],
          "a2a-version": send?.headers["a2a-version"]
        },
        tokenLabel: send?.tokenLabel?.startsWith("runtime")
      }).toEqual({
        method: "POST",
        url: `https://platform.sim.mainsequence.test/runtimes/${serviceUid}/api/a2a/v1/message:send`,
        bodyText: body("m-1"),
        headers: {
          "content-type": "application/a2a+json",
          accept: "application/a2a+json",
          "a2a-extensions": "https://mainsequence.ai/a2a/extensions/response-kind/v1",
          "a2a-version": "1.0"
        },
        tokenLabel: true
      })
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

const lineOf = (seen: Seen) => `${seen.method} ${seen.url}`

/**
 * A backend and runtime in one server on 127.0.0.1: the resolve route admits with `rpc_url`
 * `{origin}/rt/svc-1/` (a path the client must keep), the runtime answers a Message or a Task.
 */
const platformServer = serve((req, res) => {
  const line = `${req.method} ${req.url}`
  const origin = `http://${req.headers.host}`
  const json = (status: number, value: unknown, type = "application/json") => {
    res.writeHead(status, { "content-type": type })
    res.end(JSON.stringify(value))
  }
  const task = { id: "t 1", contextId: sessionUid, status: { state: "TASK_STATE_CANCELED" } }
  if (line === `POST /api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`) {
    return json(200, {
      mode: "token",
      rpc_url: `${origin}/rt/svc-1/`,
      token: "runtime-secret",
      expires_at: null,
      runtime_interaction: { state: "ready", can_submit: true, retry_after_ms: null }
    })
  }
  if (line === "POST /rt/svc-1/api/a2a/v1/message:send") {
    return json(200, {
      message: { messageId: "a-1", role: "ROLE_AGENT", contextId: sessionUid, parts: [{ text: "ok" }] }
    }, "application/a2a+json")
  }
  if (line === "GET /rt/svc-1/api/a2a/v1/tasks/t%201" || line === "POST /rt/svc-1/api/a2a/v1/tasks/t%201:cancel") {
    return json(200, task, "application/a2a+json")
  }
  return json(404, { error: { code: 404, message: `no route ${line}` } })
})

describe("rules: the requests on the wire (real socket, Node layer)", () => {
  it.scopedLive("resolve, then the send to rpc_url's own path with the exact bytes and headers", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* platformServer
      const a2a = yield* clientOf(Node.layer({ backendUrl: `${url}/`, accessToken: Redacted.make("user-secret") }))
      const answer = yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" })
      expect(answer.parts).toEqual([{ text: "ok" }])
      expect(seen.map(lineOf)).toEqual([
        `POST /api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`,
        "POST /rt/svc-1/api/a2a/v1/message:send"
      ])
      const [resolve, send] = seen
      expect([resolve?.body.toString(), resolve?.headers["content-type"], resolve?.headers["authorization"]]).toEqual([
        "{}",
        "application/json",
        "Bearer user-secret"
      ])
      expect(send?.body.toString()).toBe(body("m-1"))
      expect({
        authorization: send?.headers["authorization"],
        "content-type": send?.headers["content-type"],
        "content-length": send?.headers["content-length"],
        accept: send?.headers["accept"],
        "a2a-extensions": send?.headers["a2a-extensions"],
        "a2a-version": send?.headers["a2a-version"]
      }).toEqual({
        authorization: "Bearer runtime-secret",
        "content-type": "application/a2a+json",
        "content-length": String(Buffer.byteLength(body("m-1"))),
        accept: "application/a2a+json",
        "a2a-extensions": "https://mainsequence.ai/a2a/extensions/response-kind/v1",
        "a2a-version": "1.0"
      })
    }))

  it.scopedLive("get and cancel task: GET …/tasks/{id} (percent-encoded) and POST …/tasks/{id}:cancel with {}", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* platformServer
      const a2a = yield* clientOf(Node.layer({ backendUrl: url, accessToken: Redacted.make("user-secret") }))
      const got = yield* a2a.getA2ATask(sessionUid, "t 1")
      const canceled = yield* a2a.cancelA2ATask(sessionUid, "t 1")
      expect([got.id, canceled.status.state]).toEqual(["t 1", "TASK_STATE_CANCELED"])
      // the access resolved for the get is reused from the cache for the cancel
      expect(seen.map(lineOf)).toEqual([
        `POST /api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`,
        "GET /rt/svc-1/api/a2a/v1/tasks/t%201",
        "POST /rt/svc-1/api/a2a/v1/tasks/t%201:cancel"
      ])
      expect([seen[1]?.body.toString(), seen[1]?.headers["content-type"]]).toEqual(["", undefined])
      expect([seen[2]?.body.toString(), seen[2]?.headers["content-type"], seen[2]?.headers["authorization"]]).toEqual([
        "{}",
        "application/a2a+json",
        "Bearer runtime-secret"
      ])
    }))
})

const contract = "https://mainsequence.ai/a2a/extensions/output-contract/v1"

// SPEC §2, §9: the body on the wire, byte for byte; bad input is a clear error and nothing is sent.
describe("request input", () => {
  it.effect("an explicit responseKind \"message\" sends the default body, byte for byte", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", responseKind: "message" })
      expect((yield* runtimeSends).map((s) => s.bodyText)).toEqual([
        JSON.stringify({
          message: { messageId: "m-1", role: "ROLE_USER", contextId: sessionUid, parts: [{ text: "hi" }] },
          configuration: { acceptedOutputModes: ["text/plain"], responseKind: "message" }
        })
      ])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("jsonRepairAttempts 1 is allowed and sent as given", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, {
        message: "hi",
        messageId: "m-1",
        strictDictionary: true,
        jsonRepairAttempts: 1
      })
      expect((yield* runtimeSends).map((s) => s.bodyText)).toEqual([
        JSON.stringify({
          message: { messageId: "m-1", role: "ROLE_USER", contextId: sessionUid, parts: [{ text: "hi" }] },
          configuration: { acceptedOutputModes: ["application/json"], responseKind: "message" },
          metadata: { [contract]: { response_format: { type: "dictionary", strict: true }, jsonRepairAttempts: 1 } }
        })
      ])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a '/' in messageId, and non-string inputs from JavaScript callers: A2AInputError, no request", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      // what an untyped JavaScript caller can pass
      const untyped = (input: Record<string, unknown>) => input as unknown as SendA2AMessageInput
      const cases: ReadonlyArray<readonly [SendA2AMessageInput, string]> = [
        [{ message: "hi", messageId: "a/b" }, "messageId"],
        [untyped({ message: "hi", messageId: 42 }), "messageId"],
        [untyped({ message: 42 }), "message"],
        [untyped({ message: "hi", responseKind: 1 }), "responseKind"],
        [untyped({ message: "hi", strictDictionary: true, jsonRepairAttempts: "3" }), "jsonRepairAttempts"]
      ]
      for (const [input, field] of cases) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, input))
        expect([input, error]).toMatchObject([input, { _tag: "A2AInputError", field }])
      }
      expect(yield* p.requestLog).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})
