import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { layerTest, SimulatedPlatform } from "../src/index.js"
import {
  admitted,
  cancelTask,
  getTask,
  messageBody,
  OTHER_SESSION,
  rpcError,
  scenario,
  send,
  SESSION,
  taskIdOf
} from "./support.js"

const taskAgent = (task: Record<string, unknown> = {}, workMs = 5000) =>
  scenario({ agent: { taskSupport: true, workMs, task } })

describe("Task mode (SPEC §7)", () => {
  it.effect("a Task goes SUBMITTED → WORKING → COMPLETED over simulated time, with the answer as artifact", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const created = yield* send(access.rpcUrl, access.token, messageBody({ text: "Run it", responseKind: "task" }))
      expect(created.status).toBe(200)
      expect(created.json).toMatchObject({
        task: {
          id: "task-000001",
          contextId: SESSION,
          status: { state: "TASK_STATE_SUBMITTED", timestamp: "1970-01-01T00:00:00Z" },
          history: [{ messageId: "msg-test-0001", role: "ROLE_USER", parts: [{ text: "Run it" }] }]
        }
      })
      const id = yield* taskIdOf(created)

      yield* TestClock.adjust("999 millis")
      expect((yield* getTask(access.rpcUrl, access.token, id)).json).toMatchObject({
        status: { state: "TASK_STATE_SUBMITTED" }
      })
      yield* TestClock.adjust("1 millis")
      const working = yield* getTask(access.rpcUrl, access.token, id)
      // a bare Task, like a real A2A v1 server
      expect(working.json).toMatchObject({
        id,
        status: { state: "TASK_STATE_WORKING", timestamp: "1970-01-01T00:00:01Z" }
      })
      expect(working.json).not.toHaveProperty("artifacts")

      yield* TestClock.adjust("5 seconds")
      const done = yield* getTask(access.rpcUrl, access.token, id)
      expect(done.json).toMatchObject({
        id,
        contextId: SESSION,
        status: { state: "TASK_STATE_COMPLETED", timestamp: "1970-01-01T00:00:06Z" },
        artifacts: [{ artifactId: "artifact-000001", name: "answer", parts: [{ text: "You said: Run it" }] }]
      })
      const counters = yield* Effect.flatMap(SimulatedPlatform.SimulatedPlatform, (platform) => platform.counters)
      expect(counters.taskGets).toBe(3)
      expect(counters.sends[SESSION]).toBe(1)
    }).pipe(Effect.provide(layerTest({ sessions: [taskAgent()] }))))

  it.effect("failed, input-required and rejected outcomes carry a status message", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const access = yield* admitted()
      const outcomeAfterWork = (outcome: "failed" | "input_required" | "rejected", statusMessage?: string) =>
        Effect.gen(function*() {
          yield* platform.updateSession(SESSION, (current) => ({
            ...current,
            agent: {
              ...current.agent,
              task: {
                queuedMs: 1000,
                cancelable: true,
                outcome,
                ...(statusMessage === undefined ? {} : { statusMessage })
              }
            }
          }))
          const id = yield* taskIdOf(yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" })))
          yield* TestClock.adjust("6 seconds")
          return (yield* getTask(access.rpcUrl, access.token, id)).json
        })
      expect(yield* outcomeAfterWork("failed", "Out of memory.")).toMatchObject({
        status: {
          state: "TASK_STATE_FAILED",
          message: { role: "ROLE_AGENT", contextId: SESSION, parts: [{ text: "Out of memory." }] }
        }
      })
      expect(yield* outcomeAfterWork("input_required")).toMatchObject({
        status: { state: "TASK_STATE_INPUT_REQUIRED", message: { parts: [{ text: "More input is needed to go on." }] } }
      })
      expect(yield* outcomeAfterWork("rejected")).toMatchObject({ status: { state: "TASK_STATE_REJECTED" } })
    }).pipe(Effect.provide(layerTest({ sessions: [taskAgent()] }))))

  it.effect("cancel: a working Task is canceled; canceling again is TASK_NOT_CANCELABLE", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const id = yield* taskIdOf(yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" })))
      yield* TestClock.adjust("2 seconds")
      const canceled = yield* cancelTask(access.rpcUrl, access.token, id)
      expect(canceled.status).toBe(200)
      expect(canceled.json).toMatchObject({
        id,
        status: { state: "TASK_STATE_CANCELED", timestamp: "1970-01-01T00:00:02Z" }
      })
      yield* TestClock.adjust("10 minutes")
      expect((yield* getTask(access.rpcUrl, access.token, id)).json).toMatchObject({
        status: { state: "TASK_STATE_CANCELED" }
      })
      const again = yield* cancelTask(access.rpcUrl, access.token, id)
      expect(again.status).toBe(400)
      expect(yield* rpcError(again)).toMatchObject({ status: "FAILED_PRECONDITION", reason: "TASK_NOT_CANCELABLE" })
      const counters = yield* Effect.flatMap(SimulatedPlatform.SimulatedPlatform, (platform) => platform.counters)
      expect(counters.taskCancels).toBe(2)
    }).pipe(Effect.provide(layerTest({ sessions: [taskAgent()] }))))

  it.effect("cancel: a completed Task and a non-cancelable Task are TASK_NOT_CANCELABLE", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const access = yield* admitted()
      const first = yield* taskIdOf(yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" })))
      yield* TestClock.adjust("6 seconds")
      const completed = yield* cancelTask(access.rpcUrl, access.token, first)
      expect(yield* rpcError(completed)).toMatchObject({ reason: "TASK_NOT_CANCELABLE" })
      expect((yield* rpcError(completed)).message).toContain("TASK_STATE_COMPLETED")

      yield* platform.updateSession(SESSION, (current) => ({
        ...current,
        agent: { ...current.agent, task: { ...current.agent.task, cancelable: false } }
      }))
      const second = yield* taskIdOf(yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" })))
      const refused = yield* cancelTask(access.rpcUrl, access.token, second)
      expect(refused.status).toBe(400)
      expect(yield* rpcError(refused)).toMatchObject({ reason: "TASK_NOT_CANCELABLE" })
      yield* TestClock.adjust("6 seconds")
      expect((yield* getTask(access.rpcUrl, access.token, second)).json).toMatchObject({
        status: { state: "TASK_STATE_COMPLETED" }
      })
    }).pipe(Effect.provide(layerTest({ sessions: [taskAgent()] }))))

  it.effect("unknown Task ids, and Tasks of another session, are TASK_NOT_FOUND", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const missing = yield* getTask(access.rpcUrl, access.token, "task-does-not-exist")
      expect(missing.status).toBe(404)
      expect(yield* rpcError(missing)).toMatchObject({ status: "NOT_FOUND", reason: "TASK_NOT_FOUND" })
      const missingCancel = yield* cancelTask(access.rpcUrl, access.token, "task-does-not-exist")
      expect(missingCancel.status).toBe(404)

      const id = yield* taskIdOf(yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" })))
      const other = yield* admitted(OTHER_SESSION)
      const foreign = yield* getTask(other.rpcUrl, other.token, id)
      expect(foreign.status).toBe(404)
      expect(yield* rpcError(foreign)).toMatchObject({ reason: "TASK_NOT_FOUND" })
    }).pipe(Effect.provide(layerTest({
      sessions: [taskAgent(), { ...taskAgent(), sessionUid: OTHER_SESSION }]
    }))))

  it.effect("a job that outlasts the Message limit fails as a Message and completes as a Task", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const direct = yield* Effect.fork(send(access.rpcUrl, access.token))
      yield* TestClock.adjust("90 seconds")
      const limited = yield* Fiber.join(direct)
      expect(limited.status).toBe(504)
      expect(yield* rpcError(limited)).toMatchObject({ reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED" })

      const created = yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" }))
      expect(created.status).toBe(200)
      const id = yield* taskIdOf(created)
      yield* TestClock.adjust("120 seconds")
      expect((yield* getTask(access.rpcUrl, access.token, id)).json).toMatchObject({
        status: { state: "TASK_STATE_WORKING" }
      })
      yield* TestClock.adjust("1 second")
      expect((yield* getTask(access.rpcUrl, access.token, id)).json).toMatchObject({
        status: { state: "TASK_STATE_COMPLETED" },
        artifacts: [{ parts: [{ text: "You said: What can you do?" }] }]
      })
    }).pipe(Effect.provide(layerTest({ sessions: [taskAgent({}, 120_000)] }))))

  it.effect("invalid Task answers: message instead of task, other context, unknown state", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const access = yield* admitted()
      const answerWith = (violation: "message_instead_of_task" | "other_context_id" | "unknown_task_state") =>
        Effect.gen(function*() {
          yield* platform.updateSession(SESSION, (current) => ({
            ...current,
            agent: { ...current.agent, behaviour: { _tag: "Invalid", violation } }
          }))
          return (yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" }))).json
        })
      expect(yield* answerWith("message_instead_of_task")).toMatchObject({ message: { role: "ROLE_AGENT" } })
      expect(yield* answerWith("other_context_id")).toMatchObject({
        task: { contextId: "00000000-0000-4000-8000-0000000000ff" }
      })
      expect(yield* answerWith("unknown_task_state")).toMatchObject({
        task: { status: { state: "TASK_STATE_DAYDREAMING" } }
      })
    }).pipe(Effect.provide(layerTest({ sessions: [taskAgent()] }))))

  it.effect("the platform lists its Tasks as they are now", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const access = yield* admitted()
      yield* send(access.rpcUrl, access.token, messageBody({ responseKind: "task" }))
      yield* TestClock.adjust("3 seconds")
      const tasks = yield* platform.tasks
      expect(tasks).toHaveLength(1)
      expect(tasks[0]).toMatchObject({ id: "task-000001", sessionUid: SESSION, state: "TASK_STATE_WORKING" })
    }).pipe(Effect.provide(layerTest({ sessions: [taskAgent()] }))))
})
