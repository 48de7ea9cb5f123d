import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { DemoSessions, layerTest, SimulatedPlatform } from "../src/index.js"
import {
  admitted,
  getTask,
  messageBody,
  OTHER_SESSION,
  rpcError,
  scenario,
  send,
  SESSION,
  taskIdOf
} from "./support.js"

/** A follow-up turn body: a Task-mode send whose `message.taskId` names the Task. */
const followUpBody = (taskId: string, text: string, messageId: string, responseKind: "task" | "message" = "task") => {
  const body = messageBody({ text, messageId, responseKind })
  return { ...body, message: { ...body.message, taskId } }
}

const askingAgent = (questions: ReadonlyArray<string>, workMs = 2000) =>
  scenario({ agent: { taskSupport: true, workMs, task: { queuedMs: 0, questions } } })

describe("follow-up turns on interrupted Tasks (SPEC §7)", () => {
  it.effect("WORKING → INPUT_REQUIRED with the question; it stays there; the follow-up goes on to COMPLETED", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const created = yield* send(access.rpcUrl, access.token, messageBody({ text: "Deploy it", responseKind: "task" }))
      expect(created.json).toMatchObject({ task: { status: { state: "TASK_STATE_WORKING" } } })
      const id = yield* taskIdOf(created)

      yield* TestClock.adjust("2 seconds")
      const asking = {
        id,
        status: {
          state: "TASK_STATE_INPUT_REQUIRED",
          timestamp: "1970-01-01T00:00:02Z",
          message: { role: "ROLE_AGENT", contextId: SESSION, parts: [{ text: "Which region?" }] }
        }
      }
      expect((yield* getTask(access.rpcUrl, access.token, id)).json).toMatchObject(asking)
      // nothing but a follow-up moves it on
      yield* TestClock.adjust("50 minutes")
      const stillAsking = yield* getTask(access.rpcUrl, access.token, id)
      expect(stillAsking.json).toMatchObject(asking)
      expect(stillAsking.json).not.toHaveProperty("artifacts")

      const answered = yield* send(access.rpcUrl, access.token, followUpBody(id, "eu-west", "msg-test-0002"))
      expect(answered.status).toBe(200)
      expect(answered.json).toMatchObject({ task: { id, contextId: SESSION, status: { state: "TASK_STATE_WORKING" } } })
      expect(answered.json).not.toHaveProperty("task.status.message")

      yield* TestClock.adjust("2 seconds")
      const done = yield* getTask(access.rpcUrl, access.token, id)
      expect(done.json).toEqual({
        id,
        contextId: SESSION,
        status: { state: "TASK_STATE_COMPLETED", timestamp: "1970-01-01T00:50:04Z" },
        artifacts: [{ artifactId: "artifact-000001", name: "answer", parts: [{ text: "You said: eu-west" }] }],
        history: [
          expect.objectContaining({ messageId: "msg-test-0001", role: "ROLE_USER", parts: [{ text: "Deploy it" }] }),
          { messageId: "msg-agent-000001", role: "ROLE_AGENT", contextId: SESSION, parts: [{ text: "Which region?" }] },
          expect.objectContaining({ messageId: "msg-test-0002", taskId: id, parts: [{ text: "eu-west" }] })
        ]
      })
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const log = yield* platform.requestLog
      expect(log.filter((entry) => entry.route === "message-send").map((entry) => entry.answerSchemaViolation))
        .toEqual([null, null])
    }).pipe(Effect.provide(layerTest({ sessions: [askingAgent(["Which region?"])] }))))

  it.effect("an Agent that asks twice takes two follow-ups before it completes", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const id = yield* taskIdOf(yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" })))
      const stateNow = Effect.map(getTask(access.rpcUrl, access.token, id), (answer) => answer.json)

      yield* TestClock.adjust("1 second")
      expect(yield* stateNow).toMatchObject({
        status: { state: "TASK_STATE_INPUT_REQUIRED", message: { parts: [{ text: "Which region?" }] } }
      })
      yield* send(access.rpcUrl, access.token, followUpBody(id, "eu-west", "msg-test-0002"))
      yield* TestClock.adjust("999 millis")
      expect(yield* stateNow).toMatchObject({ status: { state: "TASK_STATE_WORKING" } })
      yield* TestClock.adjust("1 millis")
      expect(yield* stateNow).toMatchObject({
        status: { state: "TASK_STATE_INPUT_REQUIRED", message: { parts: [{ text: "How many replicas?" }] } }
      })
      yield* TestClock.adjust("10 minutes")
      expect(yield* stateNow).toMatchObject({ status: { state: "TASK_STATE_INPUT_REQUIRED" } })

      yield* send(access.rpcUrl, access.token, followUpBody(id, "3", "msg-test-0003"))
      yield* TestClock.adjust("1 second")
      expect(yield* stateNow).toMatchObject({
        status: { state: "TASK_STATE_COMPLETED" },
        artifacts: [{ parts: [{ text: "You said: 3" }] }]
      })
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      expect((yield* platform.tasks).map((task) => task.state)).toEqual(["TASK_STATE_COMPLETED"])
    }).pipe(Effect.provide(layerTest({ sessions: [askingAgent(["Which region?", "How many replicas?"], 1000)] }))))

  it.effect("a follow-up for an unknown Task, or another session's, is 404 TASK_NOT_FOUND", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const missing = yield* send(
        access.rpcUrl,
        access.token,
        followUpBody("task-does-not-exist", "hi", "msg-test-0002")
      )
      expect(missing.status).toBe(404)
      expect(yield* rpcError(missing)).toMatchObject({ code: 404, status: "NOT_FOUND", reason: "TASK_NOT_FOUND" })

      const other = yield* admitted(OTHER_SESSION)
      const id = yield* taskIdOf(
        yield* send(other.rpcUrl, other.token, messageBody({ contextId: OTHER_SESSION, responseKind: "task" }))
      )
      const foreign = yield* send(access.rpcUrl, access.token, followUpBody(id, "hi", "msg-test-0003"))
      expect(foreign.status).toBe(404)
      expect(yield* rpcError(foreign)).toMatchObject({ reason: "TASK_NOT_FOUND" })
    }).pipe(Effect.provide(layerTest({
      sessions: [askingAgent(["Which region?"]), { ...askingAgent(["Which region?"]), sessionUid: OTHER_SESSION }]
    }))))

  it.effect("a follow-up for a terminal Task is 400 FAILED_PRECONDITION UNSUPPORTED_OPERATION, as the official server answers", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const id = yield* taskIdOf(yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" })))
      yield* TestClock.adjust("2 seconds")
      const refused = yield* send(access.rpcUrl, access.token, followUpBody(id, "more", "msg-test-0002"))
      expect(refused.status).toBe(400)
      expect(yield* rpcError(refused)).toMatchObject({
        status: "FAILED_PRECONDITION",
        reason: "UNSUPPORTED_OPERATION",
        message: `Task ${id} is in a terminal state (TASK_STATE_COMPLETED) and cannot be modified.`
      })
      expect((yield* getTask(access.rpcUrl, access.token, id)).json).toMatchObject({
        status: { state: "TASK_STATE_COMPLETED" },
        history: [{ messageId: "msg-test-0001" }]
      })
    }).pipe(Effect.provide(layerTest({ sessions: [askingAgent([])] }))))

  it.effect("a follow-up must be a Task-mode send: responseKind \"message\" with a taskId is 400 INVALID_ARGUMENT", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const id = yield* taskIdOf(yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" })))
      yield* TestClock.adjust("2 seconds")
      const refused = yield* send(access.rpcUrl, access.token, followUpBody(id, "eu", "msg-test-0002", "message"))
      expect(refused.status).toBe(400)
      expect(yield* rpcError(refused)).toMatchObject({
        status: "INVALID_ARGUMENT",
        message: "Invalid request: configuration.responseKind: must be \"task\" for a follow-up turn (message.taskId)"
      })
      expect((yield* getTask(access.rpcUrl, access.token, id)).json).toMatchObject({
        status: { state: "TASK_STATE_INPUT_REQUIRED" }
      })
    }).pipe(Effect.provide(layerTest({ sessions: [askingAgent(["Which region?"])] }))))
})

describe("the inputRequired demo session (TestClock)", () => {
  it.effect("asks its question after 1 s, waits, and completes 1 s after the follow-up", () =>
    Effect.gen(function*() {
      const uid = DemoSessions.demoSessionUids.inputRequired
      const access = yield* admitted(uid)
      const created = yield* send(
        access.rpcUrl,
        access.token,
        messageBody({ text: "Write the quarterly report", contextId: uid, responseKind: "task" })
      )
      const id = yield* taskIdOf(created)
      expect(created.json).toMatchObject({ task: { status: { state: "TASK_STATE_WORKING" } } })
      yield* TestClock.adjust("1 second")
      expect((yield* getTask(access.rpcUrl, access.token, id)).json).toMatchObject({
        status: {
          state: "TASK_STATE_INPUT_REQUIRED",
          message: { parts: [{ text: DemoSessions.demoInputRequiredQuestion }] }
        }
      })
      const body = messageBody({ text: "EMEA", messageId: "msg-test-0002", contextId: uid, responseKind: "task" })
      const answered = yield* send(access.rpcUrl, access.token, { ...body, message: { ...body.message, taskId: id } })
      expect(answered.json).toMatchObject({ task: { id, status: { state: "TASK_STATE_WORKING" } } })
      yield* TestClock.adjust("1 second")
      expect((yield* getTask(access.rpcUrl, access.token, id)).json).toMatchObject({
        status: { state: "TASK_STATE_COMPLETED" },
        artifacts: [{ parts: [{ text: "Report ready for: EMEA" }] }]
      })
    }).pipe(Effect.provide(layerTest({ sessions: DemoSessions.demoSessions }))))
})
