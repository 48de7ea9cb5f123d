import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as A2AProtocol from "../src/A2AProtocol.js"
import { client, failFor, platform, runFor, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const taskAgent = (agent: Record<string, unknown> = {}) =>
  simulated({ sessions: [session({ agent: { taskSupport: true, workMs: 5000, ...agent } })] })

describe("Task mode", () => {
  it.effect("discovers Task support, sends responseKind task and returns the Task", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const task = yield* a2a.sendA2AMessage(sessionUid, { message: "long job", responseKind: "task" })
      expect(task.contextId).toBe(sessionUid)
      expect(A2AProtocol.isTerminal(task)).toBe(false)
      const routes = (yield* p.requestLog).map((e) => e.route)
      expect(routes).toEqual(["session-detail", "agent-detail", "resolve-runtime-access", "message-send"])
      expect(JSON.parse((yield* runtimeSends)[0]?.bodyText ?? "").configuration.responseKind).toBe("task")
    }).pipe(Effect.provide(taskAgent())))

  it.effect("a caller-supplied profile skips discovery; direct Messages never discover", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      yield* a2a.sendA2AMessage(sessionUid, {
        message: "job",
        responseKind: "task",
        agentProfile: { supported_response_kinds: ["message", "task"] }
      })
      const direct = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "direct" }), "10 seconds")
      expect(direct.value?.role).toBe("ROLE_AGENT")
      expect((yield* p.counters).discoveryCalls).toBe(0)
    }).pipe(Effect.provide(taskAgent())))

  it.effect("an Agent without Task support → TaskModeNotSupportedError, nothing sent to the runtime", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" }))
      expect(error._tag).toBe("TaskModeNotSupportedError")
      expect((yield* p.requestLog).filter((e) => e.target === "runtime")).toEqual([])
      expect((yield* p.counters).resolveCalls[sessionUid]).toBe(0)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a missing a2a_profile means message-only", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" }))
      expect(error._tag).toBe("TaskModeNotSupportedError")
    }).pipe(Effect.provide(taskAgent({ advertiseProfile: false }))))

  it.effect("discovery counts against the budget", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task", timeout: 3 }),
        "1 minute"
      )
      expect(error).toMatchObject({ _tag: "A2ATimeoutError", step: "discover-agent", messageMayHaveBeenSent: false })
      expect(millis).toBe(3000)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { taskSupport: true }, backend: { discoveryDelay: "forever" } })]
    }))))

  it.effect("get, wait (growing interval) and the final state", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const created = yield* a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" })
      const got = yield* a2a.getA2ATask(sessionUid, created.id)
      expect(got.id).toBe(created.id)
      yield* p.clearRequestLog
      const result = yield* runFor(a2a.waitForA2ATask(sessionUid, created.id), "1 minute")
      expect(result.error).toBeUndefined()
      expect(result.value?.status.state).toBe("TASK_STATE_COMPLETED")
      const gets = (yield* p.requestLog).filter((e) => e.route === "task-get").map((e) => e.atMs)
      const gaps = gets.slice(1).map((t, i) => t - (gets[i] ?? 0))
      expect(gaps).toEqual([1000, 1500, 2250, 3375])
      expect(gets.at(-1)).toBeGreaterThanOrEqual(6000)
    }).pipe(Effect.provide(taskAgent())))

  it.effect("wait ends with the budget: A2ATimeoutError carrying the last Task", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const created = yield* a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" })
      const { error, millis } = yield* failFor(a2a.waitForA2ATask(sessionUid, created.id, { timeout: 4 }), "1 minute")
      expect(error._tag).toBe("A2ATimeoutError")
      if (error._tag === "A2ATimeoutError") {
        expect(error.taskId).toBe(created.id)
        expect(error.lastTask).toMatchObject({ id: created.id, status: { state: "TASK_STATE_WORKING" } })
      }
      expect(millis).toBe(4000)
    }).pipe(Effect.provide(taskAgent({ workMs: 600_000 }))))

  it.effect("cancel, and cancel of a task that cannot be canceled", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const created = yield* a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" })
      const canceled = yield* a2a.cancelA2ATask(sessionUid, created.id)
      expect(canceled.status.state).toBe("TASK_STATE_CANCELED")
      const cancel = (yield* p.requestLog).find((e) => e.route === "task-cancel")
      expect(cancel).toMatchObject({ method: "POST", bodyText: "{}" })
      expect(cancel?.path.endsWith(`/api/a2a/v1/tasks/${created.id}:cancel`)).toBe(true)
      const again = yield* Effect.flip(a2a.cancelA2ATask(sessionUid, created.id))
      expect(again._tag).toBe("TaskNotCancelableError")
    }).pipe(Effect.provide(taskAgent())))

  it.effect("an unknown task is TaskNotFoundError; the id is percent-encoded", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const error = yield* Effect.flip(a2a.getA2ATask(sessionUid, "no such/task"))
      expect(error._tag).toBe("TaskNotFoundError")
      const get = (yield* p.requestLog).find((e) => e.route === "task-get")
      expect(get?.path.endsWith("/api/a2a/v1/tasks/no%20such%2Ftask")).toBe(true)
    }).pipe(Effect.provide(taskAgent())))

  it.effect("invalid Task answers are rejected with their own rules", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const cases = [
        ["unknown_task_state", "task-state"],
        ["blank_task_id", "task-id"],
        ["other_context_id", "context-id"],
        ["message_instead_of_task", "response-kind"]
      ] as const
      for (const [violation, rule] of cases) {
        yield* p.updateSession(
          sessionUid,
          (s) => ({ ...s, agent: { ...s.agent, behaviour: { _tag: "Invalid", violation } } })
        )
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" }))
        expect([violation, error._tag, "rule" in error ? error.rule : undefined]).toEqual([
          violation,
          "InvalidA2AResponseError",
          rule
        ])
      }
    }).pipe(Effect.provide(taskAgent())))

  it.effect("task calls refresh once on 401 like a send", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const created = yield* a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" })
      yield* p.rotateRuntimeToken(sessionUid)
      const got = yield* a2a.getA2ATask(sessionUid, created.id)
      expect(got.id).toBe(created.id)
      expect((yield* p.requestLog).filter((e) => e.route === "task-get").map((e) => e.status)).toEqual([401, 200])
    }).pipe(Effect.provide(taskAgent())))
})
