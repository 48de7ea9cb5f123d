import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { A2ASchema, layerTest, type SessionScenario, SimulatedPlatform } from "../src/index.js"
import {
  admitted,
  type Answer,
  cancelTask,
  getTask,
  messageBody,
  OUTPUT_CONTRACT,
  rpcError,
  scenario,
  send,
  SESSION
} from "./support.js"

const issuesOf = <A>(result: Either.Either<A, A2ASchema.A2ASchemaViolation>) =>
  Option.match(Either.getLeft(result), { onNone: () => [], onSome: (violation) => violation.issues })

const fieldsOf = <A>(result: Either.Either<A, A2ASchema.A2ASchemaViolation>) =>
  issuesOf(result).map((issue) => issue.field)

type Body = ReturnType<typeof messageBody>

const withConfiguration = (body: Body, extra: Record<string, unknown>) => ({
  ...body,
  configuration: { ...body.configuration, ...extra }
})

const withMessage = (body: Body, extra: Record<string, unknown>) => ({
  ...body,
  message: { ...body.message, ...extra }
})

describe("A2ASchema (the vendored A2A v1 JSON Schema)", () => {
  it("the request bodies of SPEC §2 conform to Send Message Request (Main Sequence profile)", () => {
    const plain = messageBody()
    expect(A2ASchema.validateSendMessageRequest(plain)).toEqual(Either.right(plain))
    expect(Either.isRight(A2ASchema.validateSendMessageRequest(messageBody({ responseKind: "task" })))).toBe(true)
    expect(Either.isRight(A2ASchema.validateSendMessageRequest(messageBody({ strictDictionary: true })))).toBe(true)
    const withFile = withMessage(plain, {
      parts: [...plain.message.parts, { raw: "JVBERi0xLjQK", filename: "a.pdf", mediaType: "application/pdf" }]
    })
    expect(Either.isRight(A2ASchema.validateSendMessageRequest(withFile))).toBe(true)
    const { configuration: _configuration, ...bare } = plain
    expect(Either.isRight(A2ASchema.validateSendMessageRequest(bare))).toBe(true)
  })

  it("configuration.responseKind is the one non-standard field allowed, and only message or task", () => {
    const body = messageBody()
    expect(fieldsOf(A2ASchema.validateSendMessageRequest(withConfiguration(body, { blocking: true })))).toEqual([
      "configuration.blocking"
    ])
    expect(fieldsOf(A2ASchema.validateSendMessageRequest(withConfiguration(body, { kind: "task" })))).toEqual([
      "configuration.kind"
    ])
    expect(fieldsOf(A2ASchema.validateSendMessageRequest(withConfiguration(body, { responseKind: "stream" }))))
      .toEqual(["configuration.responseKind"])
    expect(fieldsOf(A2ASchema.validateSendMessageRequest({ ...body, responseKind: "message" }))).toEqual([
      "responseKind"
    ])
    expect(fieldsOf(A2ASchema.validateSendMessageRequest(withMessage(body, { responseKind: "message" })))).toEqual([
      "message.responseKind"
    ])
    // standard fields of the configuration stay allowed (the platform refuses returnImmediately on its own)
    expect(Either.isRight(A2ASchema.validateSendMessageRequest(withConfiguration(body, { historyLength: 2 }))))
      .toBe(true)
  })

  it("a violation names the field, the offending value and the rule", () => {
    const body = messageBody()
    const result = A2ASchema.validateSendMessageRequest(
      withMessage(body, { role: "ROLE_REQUESTER", kind: "message", parts: [{ text: "a" }, { raw: "%%%" }] })
    )
    const violation = Option.getOrThrow(Either.getLeft(result))
    expect(violation._tag).toBe("A2ASchemaViolation")
    expect(violation.definition).toBe("Send Message Request")
    expect(violation.issues).toHaveLength(3)
    expect(violation.issues).toEqual(expect.arrayContaining([
      { path: "/message/kind", field: "message.kind", description: "unknown field (not in A2A v1 Message)" },
      {
        path: "/message/parts/1/raw",
        field: "message.parts[1].raw",
        description: "\"%%%\" must match ^[A-Za-z0-9+/]*={0,2}$"
      },
      {
        path: "/message/role",
        field: "message.role",
        description: "\"ROLE_REQUESTER\" matches no allowed form " +
          "(must match ^ROLE_UNSPECIFIED$ | must be one of \"ROLE_USER\", \"ROLE_AGENT\" | must be integer)"
      }
    ]))
    expect(violation.message).toMatch(/^A2A v1 Send Message Request schema violation: message\.\S+: .+ \(and 2 more\)$/)
    expect(fieldsOf(A2ASchema.validateSendMessageRequest("text"))).toEqual(["(root)"])
    expect(fieldsOf(A2ASchema.validateSendMessageRequest({ ...body, metadata: [] }))).toEqual(["metadata"])
    expect(fieldsOf(A2ASchema.validateSendMessageRequest({ ...body, metadata: { [OUTPUT_CONTRACT]: {} } })))
      .toEqual([])
  })

  it("Message and Task: strict by default, unknown fields tolerated on request", () => {
    const message = { messageId: "m-1", role: "ROLE_AGENT", contextId: SESSION, parts: [{ text: "hi" }] }
    expect(A2ASchema.validateMessage(message)).toEqual(Either.right(message))
    const extra = { ...message, "x-extra": 1, parts: [{ text: "hi", "x-part": true }] }
    expect(fieldsOf(A2ASchema.validateMessage(extra))).toEqual(["[\"x-extra\"]", "parts[0][\"x-part\"]"])
    expect(Either.isRight(A2ASchema.validateMessage(extra, { allowUnknownFields: true }))).toBe(true)
    expect(fieldsOf(A2ASchema.validateMessage({ ...message, parts: "hi" }, { allowUnknownFields: true }))).toEqual([
      "parts"
    ])

    const task = {
      id: "task-1",
      contextId: SESSION,
      status: { state: "TASK_STATE_WORKING", timestamp: "2026-11-29T21:00:00Z" }
    }
    expect(Either.isRight(A2ASchema.validateTask(task))).toBe(true)
    expect(fieldsOf(A2ASchema.validateTask({ ...task, status: { ...task.status, state: "TASK_STATE_DAYDREAMING" } })))
      .toEqual(["status.state"])
    expect(issuesOf(A2ASchema.validateTask({ ...task, status: { ...task.status, timestamp: "yesterday" } })))
      .toEqual([{
        path: "/status/timestamp",
        field: "status.timestamp",
        description: "\"yesterday\" must be a date-time string"
      }])
    expect(Either.isRight(A2ASchema.validateSendMessageResponse({ task }))).toBe(true)
    expect(fieldsOf(A2ASchema.validateSendMessageResponse({ message, kind: "message" }))).toEqual(["kind"])
  })

  it("the compiled module loads the bundle from dist/ under plain Node", () => {
    const dist = fileURLToPath(new URL("../dist/A2ASchema.js", import.meta.url))
    expect(existsSync(dist), `${dist} is missing: build first (pnpm exec tsc -b packages/a2a-testing)`).toBe(true)
    const script = `import { validateSendMessageRequest } from ${JSON.stringify(dist)}
const ok = validateSendMessageRequest(${JSON.stringify(messageBody())})
const bad = validateSendMessageRequest({ message: {}, configuration: { blocking: true } })
console.log(JSON.stringify([ok._tag, bad._tag, bad.left.summary]))`
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
    expect(JSON.parse(output)).toEqual([
      "Right",
      "Left",
      "configuration.blocking: unknown field " +
      "(not in A2A v1 Send Message Configuration)"
    ])
  })
})

const platform = SimulatedPlatform.SimulatedPlatform

describe("the simulated runtime checks A2A v1 conformance", () => {
  it.effect("a body that breaks the schema → 400 INVALID_ARGUMENT naming the violation, logged as schemaViolation", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const body = messageBody()
      // fields the platform's own checks would let through: only the schema catches them
      const unknownConfiguration = yield* send(
        access.rpcUrl,
        access.token,
        withConfiguration(body, { pushNotification: { url: "https://x.test" } })
      )
      expect(unknownConfiguration.status).toBe(400)
      const error = yield* rpcError(unknownConfiguration)
      expect(error.status).toBe("INVALID_ARGUMENT")
      expect(error.message).toBe(
        "Invalid request: A2A v1 Send Message Request schema violation: configuration.pushNotification: " +
          "unknown field (not in A2A v1 Send Message Configuration)"
      )
      expect(unknownConfiguration.json).toMatchObject({
        error: {
          details: [{
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            fieldViolations: [{ field: "configuration.pushNotification" }]
          }]
        }
      })
      const wrongType = yield* send(access.rpcUrl, access.token, withMessage(body, { taskId: 7 }))
      expect(wrongType.status).toBe(400)
      expect((yield* rpcError(wrongType)).message).toContain("message.taskId: 7 must be string")
      const topLevel = yield* send(access.rpcUrl, access.token, { ...body, "x-debug": true })
      expect((yield* rpcError(topLevel)).message).toContain("[\"x-debug\"]: unknown field")

      const ok = yield* send(access.rpcUrl, access.token, body)
      expect(ok.status).toBe(200)
      // the platform's own finding is added when it says more
      const internal = yield* send(access.rpcUrl, access.token, withMessage(body, { role: "ROLE_RESPONDER" }))
      expect((yield* rpcError(internal)).message).toMatch(
        /^Invalid request: A2A v1 Send Message Request schema violation: message\.role: .*; message\.role: ROLE_RESPONDER is an internal Main Sequence direction/
      )

      // recorded whatever the answer: here the token is rejected before the body is looked at
      const rejected = yield* send(access.rpcUrl, "msim-runtime-forged", withConfiguration(body, { blocking: false }))
      expect(rejected.status).toBe(401)

      const log = (yield* Effect.flatMap(platform, (service) => service.requestLog)).filter((entry) =>
        entry.route === "message-send"
      )
      expect(log.map((entry) => [entry.status, entry.schemaViolation])).toEqual([
        [
          400,
          "A2A v1 Send Message Request schema violation: configuration.pushNotification: unknown field " +
          "(not in A2A v1 Send Message Configuration)"
        ],
        [400, "A2A v1 Send Message Request schema violation: message.taskId: 7 must be string"],
        [
          400,
          "A2A v1 Send Message Request schema violation: [\"x-debug\"]: unknown field (not in A2A v1 Send Message Request)"
        ],
        [200, null],
        [400, expect.stringContaining("message.role")],
        [401, expect.stringContaining("configuration.blocking: unknown field")]
      ])
      const resolves = (yield* Effect.flatMap(platform, (service) => service.requestLog)).filter((entry) =>
        entry.route === "resolve-runtime-access"
      )
      expect(resolves.map((entry) => entry.schemaViolation)).toEqual([null])
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("a non-JSON body is logged as not JSON", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      expect((yield* send(access.rpcUrl, access.token, "{not json")).status).toBe(400)
      const log = yield* Effect.flatMap(platform, (service) => service.requestLog)
      expect(log.at(-1)).toMatchObject({ route: "message-send", schemaViolation: "the body is not JSON" })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("self-check: every valid Message and Task the simulation answers conforms to A2A v1 (strict)", () =>
    Effect.gen(function*() {
      const service = yield* platform
      const answers: Array<readonly [string, "send" | "task", Answer]> = []
      const sendAs = (label: string, body: unknown) =>
        Effect.gen(function*() {
          const access = yield* admitted()
          const answer = yield* send(access.rpcUrl, access.token, body)
          expect(answer.status, `${label}: ${answer.text}`).toBe(200)
          answers.push([label, "send", answer])
          return answer
        })
      const setAgent = (agent: NonNullable<SessionScenario.SessionScenarioInput["agent"]>) =>
        service.updateSession(SESSION, (current) => ({ ...current, agent: { ...current.agent, ...agent } }))

      const body = messageBody({ text: "Check me" })
      yield* sendAs("echo", body)
      yield* sendAs(
        "echo with attachments",
        withMessage(body, {
          parts: [
            ...body.message.parts,
            { raw: "JVBERi0xLjQK", filename: "a.pdf", mediaType: "application/pdf" },
            { url: "https://files.test/b.pdf", filename: "b.pdf", mediaType: "application/pdf" },
            { data: { rows: [1, 2] }, mediaType: "application/json" }
          ]
        })
      )
      for (const parts of ["both", "data", "text"] as const) {
        yield* setAgent({ dictionary: { parts } })
        yield* sendAs(`strict dictionary (${parts})`, messageBody({ strictDictionary: true }))
      }
      yield* setAgent({
        reply: { _tag: "Text", text: "Fixed" },
        behaviour: { _tag: "Answer", trickle: { chunks: 3, gapMs: 0 } }
      })
      yield* sendAs("fixed text, trickled", body)

      // Task mode: every state, with and without status messages
      const task = (label: string, script: NonNullable<SessionScenario.SessionScenarioInput["agent"]>["task"]) =>
        Effect.gen(function*() {
          yield* setAgent({ taskSupport: true, workMs: 2000, task: script, behaviour: { _tag: "Answer" } })
          const created = yield* sendAs(`${label}: created`, messageBody({ text: label, responseKind: "task" }))
          const id = (yield* Schema.decodeUnknown(Schema.Struct({ task: Schema.Struct({ id: Schema.String }) }))(
            created.json
          )).task.id
          const access = yield* admitted()
          for (const step of ["submitted", "working", "done"]) {
            answers.push([`${label}: ${step}`, "task", yield* getTask(access.rpcUrl, access.token, id)])
            yield* TestClock.adjust("1500 millis")
          }
          return { id, access }
        })
      yield* task("completed", { queuedMs: 1000 })
      for (const outcome of ["failed", "input_required", "auth_required", "rejected"] as const) {
        yield* task(outcome, { outcome })
        yield* task(`${outcome} with a status message`, { outcome, statusMessage: `Outcome: ${outcome}` })
      }
      const { access, id } = yield* task("canceled", { queuedMs: 60_000 })
      answers.push(["canceled", "task", yield* cancelTask(access.rpcUrl, access.token, id)])
      answers.push(["canceled, later", "task", yield* getTask(access.rpcUrl, access.token, id)])

      // a slow Agent, answered before the limit
      yield* setAgent({ taskSupport: false, workMs: 30_000 })
      const slow = yield* Effect.fork(sendAs("slow", body))
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.join(slow)

      for (const [label, kind, answer] of answers) {
        expect(answer.status, label).toBe(200)
        const checked = kind === "send"
          ? A2ASchema.validateSendMessageResponse(answer.json)
          : A2ASchema.validateTask(answer.json)
        expect(Either.getLeft(checked).pipe(Option.map((violation) => violation.message)), label).toEqual(
          Option.none()
        )
      }
      const log = (yield* service.requestLog).filter((entry) => entry.target === "runtime")
      expect(log.length).toBe(answers.length)
      for (const entry of log) {
        expect([entry.status, entry.schemaViolation, entry.answerSchemaViolation], entry.path).toEqual([
          200,
          null,
          null
        ])
      }
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("deliberately non-standard answers are exempt, and the log says how they break the schema", () =>
    Effect.gen(function*() {
      const service = yield* platform
      const access = yield* admitted()
      const extra = yield* send(access.rpcUrl, access.token)
      // unknown fields a client must preserve (SPEC §4): outside the strict schema, inside the tolerant one
      expect(Either.isLeft(A2ASchema.validateSendMessageResponse(extra.json))).toBe(true)
      expect(Either.isRight(A2ASchema.validateSendMessageResponse(extra.json, { allowUnknownFields: true }))).toBe(true)
      const invalid = yield* send(access.rpcUrl, access.token)
      expect(invalid.status).toBe(200)
      const log = (yield* service.requestLog).filter((entry) => entry.route === "message-send")
      expect(log.map((entry) => entry.answerSchemaViolation)).toEqual([
        expect.stringMatching(
          /^A2A v1 Send Message Response schema violation: \["x-sim-envelope-extra"\]: unknown field/
        ),
        expect.stringContaining("message.role: \"ROLE_REQUESTER\" matches no allowed form")
      ])
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({
        agent: {
          script: [
            { _tag: "Answer", extraFields: true },
            { _tag: "Invalid", violation: "role_requester" }
          ]
        }
      })]
    }))))
})
