import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as A2AProtocol from "../src/A2AProtocol.js"
import {
  client,
  fakeRuntime,
  jsonResponse,
  platform,
  runtimeSends,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

const taskAgent = simulated({ sessions: [session({ agent: { taskSupport: true, workMs: 5000 } })] })

const profile = { supported_response_kinds: ["message", "task"] }

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
    let sends = 0
    return Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(
        a2a.sendA2AMessage(sessionUid, {
          message: "Blue",
          responseKind: "task",
          taskId: "task-42",
          agentProfile: profile
        })
      )
      expect(error._tag).toBe("InvalidA2AResponseError")
      if (error._tag !== "InvalidA2AResponseError") return
      expect(error.rule).toBe("task-id")
      expect(error.messageId).toBeDefined()
      expect(error.message).toContain(
        "the answer to a follow-up turn for Task \"task-42\" is another Task (id \"task-99\")"
      )
      expect(error.message).toContain("it must be the same Task")
      expect(sends).toBe(1)
    }).pipe(
      Effect.provide(fakeRuntime((request) => {
        sends++
        return Effect.succeed(jsonResponse(request, 200, {
          task: { id: "task-99", contextId: sessionUid, status: { state: "TASK_STATE_WORKING" } }
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
})
