import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as A2AProtocol from "../src/A2AProtocol.js"
import {
  client,
  fakeRuntime,
  jsonResponse,
  platform,
  runFor,
  runtimeSends,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

const taskAgent = simulated({ sessions: [session({ agent: { taskSupport: true, workMs: 5000 } })] })

const profile = { supported_response_kinds: ["message", "task"] }

/** An Agent that works 2 s, then asks each question in turn (INPUT_REQUIRED) before it completes. */
const askingAgent = (questions: ReadonlyArray<string>) =>
  simulated({
    sessions: [session({ agent: { taskSupport: true, workMs: 2000, task: { queuedMs: 0, questions } } })]
  })

/** The text of each message in a Task's history, oldest first. */
const historyTexts = (task: A2AProtocol.Task | undefined) =>
  (task?.history ?? []).map((message) => [message.role, (message.parts ?? []).map((part) => part.text).join("")])

/** `message.taskId` of each `message:send` body the runtime received (`null` when absent). */
const sentTaskIds = Effect.map(runtimeSends, (sends) =>
  sends.map((send) => {
    const body: { message?: { taskId?: string } } = JSON.parse(send.bodyText)
    return body.message?.taskId ?? null
  }))

describe("follow-up turns (SPEC §7)", () => {
  it.effect("sends message.taskId and message.referenceTaskIds in Task mode, with the body otherwise as §2", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* Effect.either(a2a.sendA2AMessage(sessionUid, {
        message: "Blue, please",
        messageId: "msg-follow-up-1",
        responseKind: "task",
        taskId: "  task-42 ",
        referenceTaskIds: ["task-7", "task-8"]
      }))
      const [send] = yield* runtimeSends
      expect(send?.bodyText).toBe(JSON.stringify({
        message: {
          messageId: "msg-follow-up-1",
          role: "ROLE_USER",
          contextId: sessionUid,
          taskId: "task-42",
          referenceTaskIds: ["task-7", "task-8"],
          parts: [{ text: "Blue, please" }]
        },
        configuration: { acceptedOutputModes: ["text/plain"], responseKind: "task" }
      }))
    }).pipe(Effect.provide(taskAgent)))

  it.effect("an answer that is another Task → InvalidA2AResponseError (rule task-id) naming both ids", () => {
    let requests = 0
    return Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(
        a2a.sendA2AMessage(sessionUid, {
          message: "Blue",
          responseKind: "task",
          taskId: "task-42",
          messageId: "msg-follow-up-other",
          agentProfile: profile
        })
      )
      expect(error._tag).toBe("InvalidA2AResponseError")
      if (error._tag !== "InvalidA2AResponseError") return
      expect(error.rule).toBe("task-id")
      expect(error.messageId).toBe("msg-follow-up-other")
      expect(error.message).toContain(
        "the answer to a follow-up turn for Task \"task-42\" is another Task (id \"task-43\")"
      )
      expect(error.message).toContain("it must be the same Task")
      expect(requests).toBe(1)
    }).pipe(
      Effect.provide(fakeRuntime((request) => {
        requests++
        // A runtime that starts a new Task instead of continuing the one the follow-up names.
        return Effect.succeed(jsonResponse(request, 200, {
          task: { id: "task-43", contextId: sessionUid, status: { state: "TASK_STATE_WORKING" } }
        }))
      }))
    )
  })

  it.effect("the same Task answered is returned, typed as a Task without a cast", () => {
    const task = (id: string): A2AProtocol.Task => ({
      id,
      contextId: sessionUid,
      status: { state: "TASK_STATE_COMPLETED" }
    })
    return Effect.gen(function*() {
      const a2a = yield* client
      const answer: A2AProtocol.Task = yield* a2a.sendA2AMessage(sessionUid, {
        message: "Blue",
        responseKind: "task",
        taskId: "task-42",
        agentProfile: profile
      })
      expect(answer).toEqual(task("task-42"))
    }).pipe(
      Effect.provide(fakeRuntime((request) => Effect.succeed(jsonResponse(request, 200, { task: task("task-42") }))))
    )
  })

  it.effect("bad follow-up input is A2AInputError and nothing is sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const cases = [
        [{ taskId: "task-42" }, "taskId", "give responseKind: \"task\" with it"],
        [{ taskId: "task-42", responseKind: "message" as const }, "taskId", "give responseKind: \"task\" with it"],
        [{ taskId: "   ", responseKind: "task" as const }, "taskId", "must not be blank"],
        [{ taskId: "", responseKind: "task" as const }, "taskId", "must not be blank"],
        [{ referenceTaskIds: ["task-7", " "], responseKind: "task" as const }, "referenceTaskIds", "blank Task id"]
      ] as const
      for (const [input, field, reason] of cases) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "Blue", ...input }))
        expect([error._tag, "field" in error ? error.field : undefined]).toEqual(["A2AInputError", field])
        expect(error.message).toContain(reason)
      }
      expect(yield* p.requestLog).toEqual([])
    }).pipe(Effect.provide(taskAgent)))
  it.effect(
    "a Task that asks for input: INPUT_REQUIRED with the question; the follow-up answers the same Task; wait → COMPLETED",
    () =>
      Effect.gen(function*() {
        const a2a = yield* client
        const created = yield* a2a.sendA2AMessage(sessionUid, { message: "Write the report", responseKind: "task" })
        expect(created.status.state).toBe("TASK_STATE_WORKING")

        const asked = yield* runFor(a2a.waitForA2ATask(sessionUid, created.id), "30 seconds")
        expect(asked.error).toBeUndefined()
        expect(asked.value).toMatchObject({
          id: created.id,
          status: {
            state: "TASK_STATE_INPUT_REQUIRED",
            message: { role: "ROLE_AGENT", parts: [{ text: "Which region?" }] }
          }
        })
        expect(asked.millis).toBe(2500)

        const answered: A2AProtocol.Task = yield* a2a.sendA2AMessage(sessionUid, {
          message: "Europe",
          responseKind: "task",
          taskId: created.id
        })
        expect(answered).toMatchObject({ id: created.id, status: { state: "TASK_STATE_WORKING" } })

        const done = yield* runFor(a2a.waitForA2ATask(sessionUid, created.id), "30 seconds")
        expect(done.error).toBeUndefined()
        expect(done.value).toMatchObject({
          id: created.id,
          status: { state: "TASK_STATE_COMPLETED" },
          artifacts: [{ parts: [{ text: "You said: Europe" }] }]
        })
        expect(historyTexts(done.value)).toEqual([
          ["ROLE_USER", "Write the report"],
          ["ROLE_AGENT", "Which region?"],
          ["ROLE_USER", "Europe"]
        ])
        // On the wire: the first turn has no message.taskId, the follow-up carries the Task's id.
        expect(yield* sentTaskIds).toEqual([null, created.id])
      }).pipe(Effect.provide(askingAgent(["Which region?"])))
  )

  it.effect("an Agent that asks twice: two follow-up turns for the same Task, then COMPLETED", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const created = yield* a2a.sendA2AMessage(sessionUid, { message: "Write the report", responseKind: "task" })
      const turns = [["Which region?", "Europe"], ["Which quarter?", "Q3"]] as const
      for (const [question, reply] of turns) {
        const asked = yield* runFor(a2a.waitForA2ATask(sessionUid, created.id), "30 seconds")
        expect(asked.value?.status).toMatchObject({
          state: "TASK_STATE_INPUT_REQUIRED",
          message: { parts: [{ text: question }] }
        })
        const answered = yield* a2a.sendA2AMessage(sessionUid, {
          message: reply,
          responseKind: "task",
          taskId: created.id
        })
        expect([answered.id, answered.status.state]).toEqual([created.id, "TASK_STATE_WORKING"])
      }
      const done = yield* runFor(a2a.waitForA2ATask(sessionUid, created.id), "30 seconds")
      expect(done.value).toMatchObject({
        id: created.id,
        status: { state: "TASK_STATE_COMPLETED" },
        artifacts: [{ parts: [{ text: "You said: Q3" }] }]
      })
      expect(historyTexts(done.value)).toEqual([
        ["ROLE_USER", "Write the report"],
        ["ROLE_AGENT", "Which region?"],
        ["ROLE_USER", "Europe"],
        ["ROLE_AGENT", "Which quarter?"],
        ["ROLE_USER", "Q3"]
      ])
      expect(yield* sentTaskIds).toEqual([null, created.id, created.id])
    }).pipe(Effect.provide(askingAgent(["Which region?", "Which quarter?"]))))

  it.effect("a follow-up for a Task the runtime does not know: A2ARequestError TASK_NOT_FOUND, after the send", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, {
        message: "Europe",
        responseKind: "task",
        taskId: "task-unknown",
        messageId: "msg-follow-up-unknown"
      }))
      expect(error._tag).toBe("A2ARequestError")
      if (error._tag !== "A2ARequestError") return
      expect([error.status, error.reason, error.messageId]).toEqual([404, "TASK_NOT_FOUND", "msg-follow-up-unknown"])
      expect(error.message).toContain("Task task-unknown was not found")
      expect(yield* sentTaskIds).toEqual(["task-unknown"])
    }).pipe(Effect.provide(askingAgent(["Which region?"]))))
})
