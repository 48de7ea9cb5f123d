import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { layerTest, type SessionScenario, SimulatedPlatform } from "../src/index.js"
import {
  a2aHeaders,
  admitted,
  BASE,
  exchange,
  messageBody,
  OTHER_SESSION,
  OUTPUT_CONTRACT,
  rpcError,
  scenario,
  send,
  sendRequest,
  SERVICE,
  SESSION
} from "./support.js"

const platform = SimulatedPlatform.SimulatedPlatform

describe("message:send answers (SPEC §4)", () => {
  it.effect("the echo Agent answers a valid ROLE_AGENT message in the session context", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const answer = yield* send(access.rpcUrl, access.token, messageBody({ text: "Hello there" }))
      expect(answer.status).toBe(200)
      expect(answer.headers["content-type"]).toBe("application/a2a+json")
      expect(answer.headers["a2a-extensions"]).toBe("https://mainsequence.ai/a2a/extensions/response-kind/v1")
      expect(answer.json).toEqual({
        message: {
          messageId: "msg-agent-000001",
          role: "ROLE_AGENT",
          contextId: SESSION,
          parts: [{ text: "You said: Hello there" }]
        }
      })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("attachments are listed in the echo", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const body = messageBody({ text: "Read this" })
      const withFile = {
        ...body,
        message: {
          ...body.message,
          parts: [...body.message.parts, { raw: "JVBERi0xLjQK", filename: "a.pdf", mediaType: "application/pdf" }]
        }
      }
      const answer = yield* send(access.rpcUrl, access.token, withFile)
      expect(answer.json).toMatchObject({
        message: { parts: [{ text: "You said: Read this [attachments: a.pdf (application/pdf, 9 bytes)]" }] }
      })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("the output-contract metadata gets a strict dictionary as data and JSON text", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const answer = yield* send(
        access.rpcUrl,
        access.token,
        messageBody({ text: "Keys ok, answer", strictDictionary: true })
      )
      expect(answer.json).toMatchObject({
        message: {
          role: "ROLE_AGENT",
          parts: [
            { data: { ok: true, answer: "You said: Keys ok, answer" }, mediaType: "application/json" },
            { text: "{\"ok\":true,\"answer\":\"You said: Keys ok, answer\"}", mediaType: "application/json" }
          ]
        }
      })
      const platformService = yield* platform
      yield* platformService.updateSession(SESSION, (current) => ({
        ...current,
        agent: { ...current.agent, dictionary: { value: { total: 3 }, parts: "data" } }
      }))
      const dataOnly = yield* send(access.rpcUrl, access.token, messageBody({ strictDictionary: true }))
      expect(dataOnly.json).toMatchObject({ message: { parts: [{ data: { total: 3 } }] } })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("an answer with unknown fields everywhere a client must keep them", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const answer = yield* send(access.rpcUrl, access.token)
      expect(answer.json).toMatchObject({
        "x-sim-envelope-extra": { kept: true },
        message: {
          role: "ROLE_AGENT",
          contextId: SESSION,
          "x-sim-message-extra": { kept: true, number: 42 },
          extensions: [
            "https://mainsequence.ai/a2a/extensions/response-kind/v1",
            "https://example.test/a2a/extensions/unknown/v1"
          ],
          metadata: { "x-sim-metadata": { nested: [1, { deep: true }] } },
          parts: [
            {
              text: "You said: What can you do?",
              "x-sim-part-extra": { kept: true },
              metadata: { "sim.partIndex": 0 }
            },
            { data: { table: [["a", 1], ["b", 2]] } },
            { url: "https://files.sim.mainsequence.test/report.pdf", filename: "report.pdf" },
            { raw: "JVBERi0xLjQK", filename: "tiny.pdf", mediaType: "application/pdf" }
          ]
        }
      })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ agent: { behaviour: { _tag: "Answer", extraFields: true } } })]
    }))))

  const invalidCases: ReadonlyArray<readonly [SessionScenario.InvalidAnswer, (json: unknown) => void]> = [
    ["role_user", (json) => expect(json).toMatchObject({ message: { role: "ROLE_USER" } })],
    ["role_requester", (json) => expect(json).toMatchObject({ message: { role: "ROLE_REQUESTER" } })],
    ["role_responder", (json) => expect(json).toMatchObject({ message: { role: "ROLE_RESPONDER" } })],
    ["missing_role", (json) => expect(json).not.toHaveProperty("message.role")],
    ["blank_message_id", (json) => expect(json).toMatchObject({ message: { messageId: "  " } })],
    ["empty_parts", (json) => expect(json).toMatchObject({ message: { parts: [] } })],
    ["missing_parts", (json) => expect(json).not.toHaveProperty("message.parts")],
    [
      "other_context_id",
      (json) => expect(json).toMatchObject({ message: { contextId: "00000000-0000-4000-8000-0000000000ff" } })
    ],
    [
      "task_instead_of_message",
      (json) => expect(json).toMatchObject({ task: { contextId: SESSION, status: { state: "TASK_STATE_SUBMITTED" } } })
    ],
    [
      "unknown_task_state",
      (json) => expect(json).toMatchObject({ task: { status: { state: "TASK_STATE_DAYDREAMING" } } })
    ],
    ["not_an_object", (json) => expect(json).toEqual(["not", "an", "object"])]
  ]

  for (const [violation, check] of invalidCases) {
    it.effect(`invalid answer: ${violation}`, () =>
      Effect.gen(function*() {
        const access = yield* admitted()
        const answer = yield* send(access.rpcUrl, access.token)
        expect(answer.status).toBe(200)
        check(answer.json)
      }).pipe(Effect.provide(layerTest({
        sessions: [scenario({ agent: { behaviour: { _tag: "Invalid", violation } } })]
      }))))
  }

  it.effect("error answers: gateway HTML, 503, custom google.rpc, non-JSON, empty 200, in script order", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const next = () => send(access.rpcUrl, access.token)

      const gateway = yield* next()
      expect(gateway.status).toBe(502)
      expect(gateway.headers["content-type"]).toContain("text/html")
      expect(gateway.text).toContain("502 Bad Gateway")

      const gateway504 = yield* next()
      expect(gateway504.status).toBe(504)
      expect(gateway504.json).toBeUndefined()

      const unavailable = yield* next()
      expect(unavailable.status).toBe(503)
      expect(yield* rpcError(unavailable)).toMatchObject({ code: 503, status: "UNAVAILABLE" })

      const custom = yield* next()
      expect(custom.status).toBe(504)
      expect(yield* rpcError(custom)).toMatchObject({ code: 504, status: "DEADLINE_EXCEEDED", reason: "UPSTREAM_SLOW" })
      expect(custom.json).toMatchObject({ error: { details: [{ domain: "example.com" }] } })

      const html = yield* next()
      expect(html.status).toBe(200)
      expect(html.headers["content-type"]).toContain("text/html")
      expect(html.json).toBeUndefined()

      const empty = yield* next()
      expect(empty.status).toBe(200)
      expect(empty.text).toBe("")

      // the script has run out: the default behaviour answers
      expect((yield* next()).json).toMatchObject({ message: { role: "ROLE_AGENT" } })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({
        agent: {
          script: [
            { _tag: "GatewayError", status: 502 },
            { _tag: "GatewayError", status: 504 },
            { _tag: "Unavailable" },
            {
              _tag: "RpcError",
              httpStatus: 504,
              status: "DEADLINE_EXCEEDED",
              message: "slow",
              reason: "UPSTREAM_SLOW",
              domain: "example.com"
            },
            { _tag: "NonJson" },
            { _tag: "EmptyOk" }
          ]
        }
      })]
    }))))

  it.effect("a connection failure is a transport RequestError; so is a host that is not the platform's", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const dropped = yield* send(access.rpcUrl, access.token).pipe(Effect.flip)
      expect(dropped._tag).toBe("RequestError")
      expect(dropped).toMatchObject({ reason: "Transport" })
      const derived = yield* send(`https://${SERVICE}.coding-agent.main-sequence.app/`, access.token).pipe(Effect.flip)
      expect(derived).toMatchObject({ _tag: "RequestError", reason: "Transport" })
      expect(derived.message).toContain("ENOTFOUND")
      const log = yield* Effect.flatMap(platform, (service) => service.requestLog)
      expect(log.map((entry) => [entry.target, entry.outcome])).toEqual([
        ["backend", "responded"],
        ["runtime", "connection-failed"],
        ["unknown", "connection-failed"]
      ])
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ agent: { behaviour: { _tag: "ConnectionFailure" } } })]
    }))))
})

describe("Answer.nullFields (proto-JSON null = not set, SPEC §4)", () => {
  it.effect("a Message answer carries null for the optional fields it leaves out", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const answer = yield* send(access.rpcUrl, access.token)
      expect(answer.json).toMatchObject({
        message: {
          role: "ROLE_AGENT",
          taskId: null,
          metadata: null,
          extensions: null,
          referenceTaskIds: null,
          parts: [{ metadata: null }]
        }
      })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ agent: { behaviour: { _tag: "Answer", nullFields: true } } })]
    }))))
})

describe("timing under TestClock", () => {
  it.effect("a slow Agent answers after its work", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const fiber = yield* Effect.fork(send(access.rpcUrl, access.token))
      yield* TestClock.adjust("29999 millis")
      expect(yield* Fiber.poll(fiber)).toMatchObject({ _tag: "None" })
      yield* TestClock.adjust("1 millis")
      expect((yield* Fiber.join(fiber)).status).toBe(200)
      const log = yield* Effect.flatMap(platform, (service) => service.requestLog)
      expect(log[1]).toMatchObject({ route: "message-send", atMs: 0, respondedAtMs: 30_000, status: 200 })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ agent: { workMs: 30_000 } })] }))))

  it.effect("work beyond the Message limit is answered at exactly 90 s with MESSAGE_RESPONSE_LIMIT_EXCEEDED", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const fiber = yield* Effect.fork(send(access.rpcUrl, access.token))
      yield* TestClock.adjust("89999 millis")
      expect(yield* Fiber.poll(fiber)).toMatchObject({ _tag: "None" })
      yield* TestClock.adjust("1 millis")
      const answer = yield* Fiber.join(fiber)
      expect(answer.status).toBe(504)
      expect(answer.headers["content-type"]).toBe("application/a2a+json")
      expect(answer.json).toEqual({
        error: {
          code: 504,
          status: "DEADLINE_EXCEEDED",
          message: "The Agent did not answer the Message within 90 seconds. Use Task mode for longer work.",
          details: [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
            domain: "mainsequence.ai",
            metadata: { limitSeconds: "90" }
          }]
        }
      })
      const log = yield* Effect.flatMap(platform, (service) => service.requestLog)
      expect(log[1]?.respondedAtMs).toBe(90_000)
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ agent: { workMs: 120_000 } })] }))))

  it.effect("work of exactly 90 s still answers", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const fiber = yield* Effect.fork(send(access.rpcUrl, access.token))
      yield* TestClock.adjust("90 seconds")
      expect((yield* Fiber.join(fiber)).status).toBe(200)
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ agent: { workMs: 90_000 } })] }))))

  it.effect("a trickled body arrives chunk by chunk, gapMs apart", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(sendRequest(access.rpcUrl, access.token, messageBody()))
      expect(response.status).toBe(200)
      const chunks: Array<{ readonly atMs: number; readonly bytes: number }> = []
      const reader = yield* Effect.fork(
        Stream.runForEach(response.stream, (chunk) =>
          Effect.map(Clock.currentTimeMillis, (atMs) => {
            chunks.push({ atMs, bytes: chunk.length })
          }))
      )
      yield* TestClock.adjust("2999 millis")
      expect(yield* Fiber.poll(reader)).toMatchObject({ _tag: "None" })
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(reader)
      expect(chunks.map((chunk) => chunk.atMs)).toEqual([0, 1000, 2000, 3000])
      expect(chunks.reduce((sum, chunk) => sum + chunk.bytes, 0)).toBe(Number(response.headers["content-length"]))
      const log = yield* Effect.flatMap(platform, (service) => service.requestLog)
      expect(log[1]).toMatchObject({ respondedAtMs: 0, bodyOutcome: "complete", bodyEndedAtMs: 3000 })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 4, gapMs: 1000 } } } })]
    }))))

  it.effect("a stalled head never comes; a timeout interrupts the simulated work", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const fiber = yield* Effect.fork(send(access.rpcUrl, access.token).pipe(Effect.timeout("10 minutes")))
      yield* TestClock.adjust("10 minutes")
      expect((yield* Fiber.join(fiber).pipe(Effect.flip))._tag).toBe("TimeoutException")
      const log = yield* Effect.flatMap(platform, (service) => service.requestLog)
      expect(log[1]).toMatchObject({ outcome: "interrupted", status: null, respondedAtMs: null })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ agent: { behaviour: { _tag: "Stall" } } })] }))))

  it.effect("a reader that gives up on a trickled body stops the body stream", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const fiber = yield* Effect.fork(send(access.rpcUrl, access.token).pipe(Effect.timeout("3500 millis")))
      yield* TestClock.adjust("3500 millis")
      expect((yield* Fiber.join(fiber).pipe(Effect.flip))._tag).toBe("TimeoutException")
      yield* TestClock.adjust("1 minute")
      const log = yield* Effect.flatMap(platform, (service) => service.requestLog)
      expect(log[1]).toMatchObject({ status: 200, outcome: "responded", bodyOutcome: "aborted", bodyEndedAtMs: 3500 })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 10, gapMs: 1000 } } } })]
    }))))

  it.effect("a body that stalls after the head", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(sendRequest(access.rpcUrl, access.token, messageBody()))
      expect(response.status).toBe(200)
      const fiber = yield* Effect.fork(response.text.pipe(Effect.timeout("1 minute")))
      yield* TestClock.adjust("1 minute")
      expect((yield* Fiber.join(fiber).pipe(Effect.flip))._tag).toBe("TimeoutException")
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ agent: { behaviour: { _tag: "Stall", afterHead: true } } })]
    }))))

  it.effect("a timeout interrupts a slow Agent's work", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const fiber = yield* Effect.fork(send(access.rpcUrl, access.token).pipe(Effect.timeout("10 seconds")))
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(fiber).pipe(Effect.flip))._tag).toBe("TimeoutException")
      yield* TestClock.adjust("1 minute")
      const log = yield* Effect.flatMap(platform, (service) => service.requestLog)
      expect(log[1]).toMatchObject({ outcome: "interrupted", status: null })
      // the interrupted turn did not produce an answer: the next one is the first agent message
      const next = yield* Effect.fork(send(access.rpcUrl, access.token))
      yield* TestClock.adjust("30 seconds")
      expect((yield* Fiber.join(next)).json).toMatchObject({ message: { messageId: "msg-agent-000001" } })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ agent: { workMs: 30_000 } })] }))))
})

describe("runtime request checks", () => {
  it.effect("A2A-Version, Content-Type, Accept and bearer token are checked", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const noVersion = yield* send(access.rpcUrl, access.token, messageBody(), { "a2a-version": null })
      expect(noVersion.status).toBe(400)
      expect(yield* rpcError(noVersion)).toMatchObject({
        status: "FAILED_PRECONDITION",
        reason: "VERSION_NOT_SUPPORTED"
      })
      const oldVersion = yield* send(access.rpcUrl, access.token, messageBody(), { "a2a-version": "0.3" })
      expect((yield* rpcError(oldVersion)).message).toContain("0.3 is not supported")

      const json = yield* send(access.rpcUrl, access.token, messageBody(), { "content-type": "application/json" })
      expect(json.status).toBe(415)
      expect(yield* rpcError(json)).toMatchObject({ reason: "CONTENT_TYPE_NOT_SUPPORTED" })

      const accept = yield* send(access.rpcUrl, access.token, messageBody(), { accept: "text/html" })
      expect(accept.status).toBe(406)

      const anonymous = yield* send(access.rpcUrl, access.token, messageBody(), { authorization: null })
      expect(anonymous.status).toBe(401)
      expect(anonymous.headers["www-authenticate"]).toContain("Bearer")
      expect(yield* rpcError(anonymous)).toMatchObject({ status: "UNAUTHENTICATED" })

      const forged = yield* send(access.rpcUrl, "msim-runtime-forged", messageBody())
      expect(forged.status).toBe(401)

      const counters = yield* Effect.flatMap(platform, (service) => service.counters)
      expect(counters.sends[SESSION]).toBe(6)
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  const bodyCases: ReadonlyArray<readonly [string, (body: ReturnType<typeof messageBody>) => unknown, string]> = [
    ["not JSON", () => "{not json", "(body)"],
    ["no message", () => ({ configuration: {} }), "message"],
    ["role user (v0.3 spelling)", (body) => ({ ...body, message: { ...body.message, role: "user" } }), "message.role"],
    ["internal role", (body) => ({ ...body, message: { ...body.message, role: "ROLE_REQUESTER" } }), "message.role"],
    ["blank messageId", (body) => ({ ...body, message: { ...body.message, messageId: " " } }), "message.messageId"],
    [
      "malformed messageId",
      (body) => ({ ...body, message: { ...body.message, messageId: "msg with spaces" } }),
      "message.messageId"
    ],
    ["other contextId", (body) => ({ ...body, message: { ...body.message, contextId: "x" } }), "message.contextId"],
    ["empty parts", (body) => ({ ...body, message: { ...body.message, parts: [] } }), "message.parts"],
    ["blank text", (body) => ({ ...body, message: { ...body.message, parts: [{ text: "  " }] } }), "message.parts"],
    [
      "bad base64",
      (body) => ({ ...body, message: { ...body.message, parts: [...body.message.parts, { raw: "%%%" }] } }),
      "message.parts[1].raw"
    ],
    ["v0.3 kind", (body) => ({ ...body, message: { ...body.message, kind: "message" } }), "message.kind"],
    [
      "blocking",
      (body) => ({ ...body, configuration: { ...body.configuration, blocking: true } }),
      "configuration.blocking"
    ],
    [
      "unknown responseKind",
      (body) => ({ ...body, configuration: { ...body.configuration, responseKind: "stream" } }),
      "configuration.responseKind"
    ],
    [
      "bad output contract",
      (body) => ({ ...body, metadata: { [OUTPUT_CONTRACT]: { response_format: { type: "dictionary" } } } }),
      `metadata["${OUTPUT_CONTRACT}"].response_format`
    ],
    [
      "jsonRepairAttempts 0",
      (body) => ({
        ...body,
        metadata: {
          [OUTPUT_CONTRACT]: { response_format: { type: "dictionary", strict: true }, jsonRepairAttempts: 0 }
        }
      }),
      `metadata["${OUTPUT_CONTRACT}"].jsonRepairAttempts`
    ]
  ]

  for (const [name, make, field] of bodyCases) {
    it.effect(`a request body with ${name} → 400 INVALID_ARGUMENT on ${field}`, () =>
      Effect.gen(function*() {
        const access = yield* admitted()
        const answer = yield* send(access.rpcUrl, access.token, make(messageBody()))
        expect(answer.status).toBe(400)
        expect(answer.json).toMatchObject({
          error: {
            code: 400,
            status: "INVALID_ARGUMENT",
            details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field }] }]
          }
        })
      }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))
  }

  it.effect("the internal-role refusal names the role", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const body = messageBody()
      const answer = yield* send(access.rpcUrl, access.token, {
        ...body,
        message: { ...body.message, role: "ROLE_RESPONDER" }
      })
      expect((yield* rpcError(answer)).message).toContain("ROLE_RESPONDER is an internal Main Sequence direction")
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("Task mode needs the extension header and an Agent that supports Tasks", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const noExtension = yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" }), {
        "a2a-extensions": null
      })
      expect(noExtension.status).toBe(400)
      const unsupported = yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" }))
      expect(unsupported.status).toBe(400)
      expect(yield* rpcError(unsupported)).toMatchObject({ reason: "UNSUPPORTED_OPERATION" })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("unknown runtime paths: a wrongly joined path is 404, an unknown service has no gateway route", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      // joining without trimming the trailing slash of rpc_url
      const doubled = yield* exchange(
        HttpClientRequest.post(`${access.rpcUrl}/api/a2a/v1/message:send`, { headers: a2aHeaders(access.token) }).pipe(
          HttpClientRequest.bodyUnsafeJson(messageBody())
        )
      )
      expect(doubled.status).toBe(404)
      expect(yield* rpcError(doubled)).toMatchObject({ status: "NOT_FOUND" })
      const otherService = yield* send(`${BASE}/runtimes/00000000-0000-4000-8000-000000000000/`, access.token)
      expect(otherService.status).toBe(404)
      expect(otherService.headers["content-type"]).toContain("text/html")
      const get = yield* Effect.flatMap(HttpClient.HttpClient, (client) =>
        client.execute(
          HttpClientRequest.get(`${access.rpcUrl}api/a2a/v1/message:send`)
        ))
      expect(get.status).toBe(405)
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("a runtime that is down is answered by the gateway with 503", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      yield* Effect.flatMap(platform, (service) =>
        service.updateSession(SESSION, (current) => ({
          ...current,
          access: { _tag: "Terminal", state: "update_required" }
        })))
      const answer = yield* send(access.rpcUrl, access.token)
      expect(answer.status).toBe(503)
      expect(answer.text).toContain("no healthy upstream")
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))
})

describe("runtime tokens", () => {
  it.effect("only the latest token is accepted: after a rotation the old one gets 401", () =>
    Effect.gen(function*() {
      const service = yield* platform
      const first = yield* admitted()
      expect((yield* send(first.rpcUrl, first.token)).status).toBe(200)
      const label = yield* service.rotateRuntimeToken(SESSION)
      expect(label).toBe("runtime-token#2")
      const stale = yield* send(first.rpcUrl, first.token)
      expect(stale.status).toBe(401)
      expect((yield* rpcError(stale)).message).toContain("superseded")
      const fresh = yield* admitted()
      expect(fresh.token).not.toBe(first.token)
      expect((yield* send(fresh.rpcUrl, fresh.token)).status).toBe(200)
      const sends = (yield* service.requestLog).filter((entry) => entry.route === "message-send")
      expect(sends.map((entry) => [entry.tokenLabel, entry.status])).toEqual([
        ["runtime-token#1", 200],
        ["runtime-token#1", 401],
        ["runtime-token#2", 200]
      ])
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("stale tokens can get 403 instead", () =>
    Effect.gen(function*() {
      const first = yield* admitted()
      yield* Effect.flatMap(platform, (service) => service.rotateRuntimeToken(SESSION))
      const stale = yield* send(first.rpcUrl, first.token)
      expect(stale.status).toBe(403)
      expect(yield* rpcError(stale)).toMatchObject({ status: "PERMISSION_DENIED" })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ token: { staleTokenStatus: 403 } })] }))))

  it.effect("rejectFirstSends revokes the token: the resend with a freshly resolved token passes", () =>
    Effect.gen(function*() {
      const first = yield* admitted()
      const rejected = yield* send(first.rpcUrl, first.token)
      expect(rejected.status).toBe(401)
      const again = yield* admitted()
      expect(again.token).not.toBe(first.token)
      expect((yield* send(again.rpcUrl, again.token)).status).toBe(200)
      const sends = (yield* Effect.flatMap(platform, (service) => service.requestLog))
        .filter((entry) => entry.route === "message-send")
      expect(sends.map((entry) => entry.tokenLabel)).toEqual(["runtime-token#1", "runtime-token#2"])
      // identical bytes, same messageId
      expect(sends[0]?.bodyText).toBe(sends[1]?.bodyText)
      expect(sends.map((entry) => entry.messageId)).toEqual(["msg-test-0001", "msg-test-0001"])
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ token: { rejectFirstSends: 1 } })] }))))

  it.effect("rejectAll refuses every token", () =>
    Effect.gen(function*() {
      const first = yield* admitted()
      expect((yield* send(first.rpcUrl, first.token)).status).toBe(403)
      const again = yield* admitted()
      expect((yield* send(again.rpcUrl, again.token)).status).toBe(403)
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ token: { rejectAll: 403 } })] }))))

  it.effect("an expired token gets 401", () =>
    Effect.gen(function*() {
      const first = yield* admitted()
      expect(first.expiresAt).toBe("1970-01-01T00:02:00Z")
      yield* TestClock.adjust("119 seconds")
      expect((yield* send(first.rpcUrl, first.token)).status).toBe(200)
      yield* TestClock.adjust("1 second")
      const expired = yield* send(first.rpcUrl, first.token)
      expect(expired.status).toBe(401)
      expect((yield* rpcError(expired)).message).toContain("expired")
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ token: { ttlSeconds: 120 } })] }))))

  it.effect("a token of one session is not accepted for another session's context", () =>
    Effect.gen(function*() {
      const first = yield* admitted()
      const answer = yield* send(
        first.rpcUrl,
        first.token,
        messageBody({ contextId: OTHER_SESSION })
      )
      expect(answer.status).toBe(400)
      expect(answer.json).toMatchObject({ error: { details: [{ fieldViolations: [{ field: "message.contextId" }] }] } })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario(), scenario({ sessionUid: OTHER_SESSION })]
    }))))
})
