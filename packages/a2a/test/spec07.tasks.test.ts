// SPEC §7, Task mode: discovery, get, wait, cancel, follow-up turns.
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as A2AClient from "../src/A2AClient.js"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import * as A2AProtocol from "../src/A2AProtocol.js"
import {
  agentUid,
  base,
  client,
  failFor,
  fakeRuntime,
  jsonResponse,
  platform,
  recordSpans,
  resolves,
  runFor,
  runtimeSends,
  session,
  sessionUid,
  simulated,
  simulatedWith
} from "./fixtures.js"

// SPEC §7: wait = get repeatedly, 1 s apart and then 1.5 times longer each time (at most 30 s; a get that
// would come later than 1 s before the deadline comes then, if that is at least 1 s away), until a terminal or
// interrupted state, or the budget ends: then a timeout error that carries the last Task seen and says nothing
// was sent.

const queuelessTaskAgent = (agent: Record<string, unknown>) =>
  simulated({ sessions: [session({ agent: { taskSupport: true, task: { queuedMs: 0 }, ...agent } })] })

/** Creates a Task, then the times (ms after the wait began) of the wait's gets and its outcome. */
const waitFor = (timeout: number, advance: Duration.DurationInput) =>
  Effect.gen(function*() {
    const a2a = yield* client
    const p = yield* platform
    const created = yield* a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" })
    yield* p.clearRequestLog
    const started = (yield* p.requestLog).length
    const outcome = yield* runFor(a2a.waitForA2ATask(sessionUid, created.id, { timeout }), advance)
    const gets = (yield* p.requestLog).slice(started).filter((e) => e.route === "task-get").map((e) => e.atMs)
    const first = gets[0] ?? 0
    return { created, outcome, gets: gets.map((t) => t - first) }
  })

describe("rules: waitForA2ATask's intervals (SPEC §7)", () => {
  it.effect("the interval grows by 1.5 up to 30 s and stays there", () =>
    Effect.gen(function*() {
      const { gets } = yield* waitFor(200, "10 minutes")
      const gaps = gets.slice(1).map((t, i) => Math.round(t - (gets[i] ?? 0)))
      expect(gaps.slice(0, 9)).toEqual([1000, 1500, 2250, 3375, 5063, 7594, 11391, 17086, 25629])
      expect(gaps.slice(9, -1)).toEqual(gaps.slice(9, -1).map(() => 30_000))
      expect(gaps.length).toBeGreaterThan(10)
      // the last wait is shortened to end 1 s before the 200 s budget
      expect(gets.at(-1)).toBe(199_000)
    }).pipe(Effect.provide(queuelessTaskAgent({ workMs: 3_600_000 }))))

  it.effect("the last wait is cut to the budget's end; no get at the deadline; the timeout carries the last Task", () =>
    Effect.gen(function*() {
      const { created, gets, outcome } = yield* waitFor(4, "1 minute")
      // gets at 0, 1 s and 2.5 s; the next (at 4.75 s) would be past the 4 s budget
      expect(gets).toEqual([0, 1000, 2500])
      expect({ ...outcome.error }).toEqual({
        _tag: "A2ATimeoutError",
        agentSessionUid: sessionUid,
        taskId: created.id,
        step: "wait-task",
        limit: "total",
        seconds: 4,
        messageMayHaveBeenSent: false,
        lastTask: expect.objectContaining({
          id: created.id,
          status: expect.objectContaining({ state: "TASK_STATE_WORKING" })
        })
      })
      expect(outcome.millis).toBe(4000)
    }).pipe(Effect.provide(queuelessTaskAgent({ workMs: 600_000 }))))

  it.effect("a get that would come after the budget comes 1 s before its end: a Task done meanwhile is seen", () =>
    Effect.gen(function*() {
      const { gets, outcome } = yield* waitFor(60, "2 minutes")
      // the ninth wait (25.6 s, from 49.3 s) would end past the 60 s budget: the last get is at 59 s
      expect(gets).toEqual([0, 1000, 2500, 4750, 8125, 13187.5, 20781.25, 32171.875, 49257.8125, 59000])
      expect(outcome.value?.status.state).toBe("TASK_STATE_COMPLETED")
      expect(outcome.millis).toBe(59_000)
    }).pipe(Effect.provide(queuelessTaskAgent({ workMs: 55_000 }))))

  it.effect("each wait is reported before it (TaskProgress): the state the get saw and the interval", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const created = yield* a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" })
      const events: Array<A2AProgressEvent> = []
      const progress = A2AProgress.of({ report: (event) => Effect.sync(() => void events.push(event)) })
      const outcome = yield* runFor(
        a2a.waitForA2ATask(` ${sessionUid} `, ` ${created.id} `).pipe(Effect.provideService(A2AProgress, progress)),
        "1 minute"
      )
      expect(outcome.value?.status.state).toBe("TASK_STATE_COMPLETED")
      // gets at 0 (SUBMITTED), 1 s (WORKING), 2.5 s (WORKING), 4.75 s (COMPLETED): no report after the last
      const report = (state: string, retryAfterMs: number) => ({
        _tag: "TaskProgress",
        agentSessionUid: sessionUid,
        taskId: created.id,
        state,
        retryAfterMs
      })
      expect(events).toEqual([
        report("TASK_STATE_SUBMITTED", 1000),
        report("TASK_STATE_WORKING", 1500),
        report("TASK_STATE_WORKING", 2250)
      ])
    }).pipe(Effect.provide(queuelessTaskAgent({ workMs: 4000, task: { queuedMs: 500 } }))))

  it.effect("an interrupted state (INPUT_REQUIRED) ends the wait with that Task", () =>
    Effect.gen(function*() {
      const { outcome } = yield* waitFor(60, "1 minute")
      expect(outcome.error).toBeUndefined()
      expect(outcome.value?.status.state).toBe("TASK_STATE_INPUT_REQUIRED")
    }).pipe(Effect.provide(queuelessTaskAgent({ workMs: 2000, task: { queuedMs: 0, questions: ["Which one?"] } }))))

  it.effect("an interrupted state (AUTH_REQUIRED) ends the wait with that Task", () =>
    Effect.gen(function*() {
      const { outcome } = yield* waitFor(60, "1 minute")
      expect(outcome.error).toBeUndefined()
      expect(outcome.value?.status.state).toBe("TASK_STATE_AUTH_REQUIRED")
      expect(outcome.millis).toBeLessThan(5000)
    }).pipe(Effect.provide(queuelessTaskAgent({ workMs: 2000, task: { queuedMs: 0, outcome: "auth_required" } }))))

  it.effect("a Task already terminal is returned by the first get, without waiting", () =>
    Effect.gen(function*() {
      const { gets, outcome } = yield* waitFor(60, "1 minute")
      expect(gets).toEqual([0])
      expect(outcome.value?.status.state).toBe("TASK_STATE_FAILED")
      expect(outcome.millis).toBe(0)
    }).pipe(Effect.provide(queuelessTaskAgent({ workMs: 0, task: { queuedMs: 0, outcome: "failed" } }))))
})

describe("rules: a Task call's own budget (SPEC §7)", () => {
  it.effect("get and cancel with a stalled runtime end with the total, naming their step; nothing was sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const created = yield* a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" })
      const p = yield* platform
      yield* p.updateSession(sessionUid, (s) => ({ ...s, backend: { ...s.backend, resolveDelay: "forever" } }))
      yield* p.rotateRuntimeToken(sessionUid)
      const { error } = yield* failFor(a2a.getA2ATask(sessionUid, created.id, { timeout: 3 }), "1 minute")
      expect({ ...error }).toMatchObject({
        _tag: "A2ATimeoutError",
        agentSessionUid: sessionUid,
        taskId: created.id,
        limit: "total",
        seconds: 3,
        messageMayHaveBeenSent: false
      })
    }).pipe(Effect.provide(queuelessTaskAgent({ workMs: 600_000 }))))
})

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

  for (const status of [401, 403] as const) {
    type TaskCall = (a2a: A2AClient.Service, id: string) => Effect.Effect<A2AProtocol.Task, object>
    const calls: ReadonlyArray<readonly [string, string, TaskCall]> = [
      ["get", "task-get", (a2a, id) => a2a.getA2ATask(sessionUid, id)],
      ["wait", "task-get", (a2a, id) => a2a.waitForA2ATask(sessionUid, id)],
      ["cancel", "task-cancel", (a2a, id) => a2a.cancelA2ATask(sessionUid, id)]
    ]
    for (const [name, route, call] of calls) {
      it.effect(`task ${name} refreshes once on ${status} like a send, then succeeds with the same Task`, () =>
        Effect.gen(function*() {
          const a2a = yield* client
          const p = yield* platform
          const created = yield* a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" })
          yield* p.rotateRuntimeToken(sessionUid)
          const { value } = yield* runFor(call(a2a, created.id), "10 seconds")
          expect(value?.id).toBe(created.id)
          const statuses = (yield* p.requestLog).filter((e) => e.route === route).map((e) => e.status)
          expect(statuses.slice(0, 2)).toEqual([status, 200])
          expect((yield* resolves).length).toBe(2)
        }).pipe(Effect.provide(simulated({
          sessions: [session({ agent: { taskSupport: true, workMs: 1000 }, token: { staleTokenStatus: status } })]
        }))))
    }
  }
})

const busyTaskAgent = simulated({ sessions: [session({ agent: { taskSupport: true, workMs: 5000 } })] })

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

describe("reading a Task's parts", () => {
  it("partsOf and textOf read the status message, then each artifact, in order", () => {
    const task = {
      id: "t",
      contextId: "c",
      status: { state: "TASK_STATE_COMPLETED", message: { parts: [{ text: "status" }, { data: { n: 1 } }] } },
      artifacts: [
        { artifactId: "a", parts: [{ url: "https://h/r.pdf", mediaType: "application/pdf" }, { text: "first" }] },
        { artifactId: "b", parts: null },
        { artifactId: "c", parts: [{ text: "second" }] }
      ]
    } as const satisfies A2AProtocol.Task
    expect(A2AProtocol.partsOf(task)).toEqual([
      { text: "status" },
      { data: { n: 1 } },
      { url: "https://h/r.pdf", mediaType: "application/pdf" },
      { text: "first" },
      { text: "second" }
    ])
    expect(A2AProtocol.textOf(task)).toEqual(["status", "first", "second"])
    expect(A2AProtocol.partsOf({ id: "u", contextId: "c", status: { state: "TASK_STATE_WORKING" } })).toEqual([])
    const message = { messageId: "m", role: "ROLE_AGENT", parts: [{ data: [] }, { text: "only" }] }
    expect(A2AProtocol.partsOf(message)).toEqual(message.parts)
    expect(A2AProtocol.textOf(message)).toEqual(["only"])
  })
})

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
    }).pipe(Effect.provide(busyTaskAgent)))

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
    }).pipe(Effect.provide(busyTaskAgent)))
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

// SPEC §7: Task mode only when the Agent advertises it, found through the session's `agent_uid` and the
// Agent's `a2a_profile`; a backend answer that breaks that contract is a BackendContractError, and in
// every failure here nothing reaches the runtime.

const sessionUrl = `${base}/api/v1/agent-sessions/${sessionUid}/`
const taskSession = session({ agent: { taskSupport: true } })

const sendTask = Effect.flatMap(
  A2AClient.A2AClient,
  (a2a) => Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", responseKind: "task" }))
)

/** The session detail answered by hand with `json`; everything else by the simulated platform. */
const sessionAnswering = (json: Record<string, unknown>) =>
  simulatedWith(
    { sessions: [taskSession] },
    (request: HttpClientRequest.HttpClientRequest) =>
      request.method === "GET" && request.url === sessionUrl ? { status: 200, body: json } : undefined
  )

describe("rules: the Agent session's agent_uid (SPEC §7)", () => {
  for (
    const [what, json] of [
      ["no agent_uid", { uid: sessionUid }],
      ["agent_uid null", { uid: sessionUid, agent_uid: null }],
      ["agent_uid blank", { uid: sessionUid, agent_uid: "  " }],
      ["agent_uid an object", { uid: sessionUid, agent_uid: { id: 1 } }]
    ] as const
  ) {
    it.effect(`${what} → BackendContractError "the Agent session has no agent_uid"; nothing more asked or sent`, () => {
      const { layer, overridden } = sessionAnswering(json)
      return Effect.gen(function*() {
        const error = yield* sendTask
        expect({ ...error }).toEqual({
          _tag: "BackendContractError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          url: sessionUrl,
          status: 200,
          reason: "the Agent session has no agent_uid"
        })
        expect(error.message).toBe(
          `The backend's answer breaks the contract: the Agent session has no agent_uid (session ${sessionUid})`
        )
        expect(overridden).toEqual([`GET ${sessionUrl}`])
        expect((yield* (yield* platform).requestLog).map((entry) => entry.route)).toEqual([])
      }).pipe(Effect.provide(layer))
    })
  }

  it.effect("a numeric agent_uid is used as its decimal text; a padded one trimmed and path-encoded", () => {
    const profiled = { supported_response_kinds: ["message"] }
    const cases = [[42, "42"], [" a/b ", "a%2Fb"]] as const
    return Effect.forEach(cases, ([given, inPath]) => {
      const { layer, overridden } = simulatedWith(
        { sessions: [taskSession] },
        (request) =>
          request.url === sessionUrl
            ? { status: 200, body: { agent_uid: given } }
            : request.url === `${base}/api/v1/agents/${inPath}/`
            ? { status: 200, body: { uid: given, a2a_profile: profiled } }
            : undefined
      )
      return Effect.gen(function*() {
        const error = yield* sendTask
        expect(overridden).toEqual([`GET ${sessionUrl}`, `GET ${base}/api/v1/agents/${inPath}/`])
        expect({ ...error }).toEqual({
          _tag: "TaskModeNotSupportedError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          agentUid: String(given).trim(),
          supportedResponseKinds: ["message"]
        })
      }).pipe(Effect.provide(layer))
    })
  })
})

describe("rules: the Agent's a2a_profile (SPEC §7)", () => {
  for (
    const [what, profile] of [
      ["supported_response_kinds a string", { supported_response_kinds: "task" }],
      ["no supported_response_kinds", { default_response_kind: "task" }]
    ] as const
  ) {
    it.effect(`${what} → BackendContractError naming the profile; nothing sent`, () =>
      Effect.gen(function*() {
        const error = yield* sendTask
        expect({ ...error }).toEqual({
          _tag: "BackendContractError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          url: `${base}/api/v1/agents/${agentUid}/`,
          status: 200,
          reason: "the Agent's a2a_profile does not match the A2A profile shape"
        })
        expect((yield* (yield* platform).requestLog).map((entry) => [entry.method, entry.path])).toEqual([
          ["GET", `/api/v1/agent-sessions/${sessionUid}/`],
          ["GET", `/api/v1/agents/${agentUid}/`]
        ])
      }).pipe(
        Effect.provide(simulated({ sessions: [session({ agent: { taskSupport: true, profile } })] }))
      ))
  }

  it.effect("a missing profile means message-only: TaskModeNotSupportedError with kinds [\"message\"]", () =>
    Effect.gen(function*() {
      const error = yield* sendTask
      expect({ ...error }).toEqual({
        _tag: "TaskModeNotSupportedError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        agentUid,
        supportedResponseKinds: ["message"]
      })
      expect(error.message).toBe(
        `The Agent does not support Task mode (it supports: message). Nothing was sent (session ${sessionUid})`
      )
      expect(yield* runtimeSends).toEqual([])
    }).pipe(
      Effect.provide(simulated({ sessions: [session({ agent: { taskSupport: true, advertiseProfile: false } })] }))
    ))

  it.effect("an Agent without the a2a_profile key is message-only too (not a contract error)", () => {
    const { layer, overridden } = simulatedWith(
      { sessions: [taskSession] },
      (request) =>
        request.url === `${base}/api/v1/agents/${agentUid}/` ? { status: 200, body: { uid: agentUid } } : undefined
    )
    return Effect.gen(function*() {
      const error = yield* sendTask
      expect({ ...error }).toEqual({
        _tag: "TaskModeNotSupportedError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        agentUid,
        supportedResponseKinds: ["message"]
      })
      expect(overridden).toEqual([`GET ${base}/api/v1/agents/${agentUid}/`])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a caller's profile without task: no discovery, no agentUid, the caller's kinds", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, {
        message: "hi",
        messageId: "m-1",
        responseKind: "task",
        agentProfile: { supported_response_kinds: ["message", "stream"] }
      }))
      expect({ ...error }).toEqual({
        _tag: "TaskModeNotSupportedError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        supportedResponseKinds: ["message", "stream"]
      })
      expect(yield* (yield* platform).requestLog).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [taskSession] }))))

  it.effect("the discovery requests are GETs with the user's token and no body", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", responseKind: "task" })
      const gets = (yield* (yield* platform).requestLog).filter((entry) => entry.method === "GET")
      expect(gets.map((entry) => [entry.url, entry.bodyText, entry.headers["content-type"], entry.tokenLabel])).toEqual(
        [
          [sessionUrl, "", undefined, "user-token#1"],
          [`${base}/api/v1/agents/${agentUid}/`, "", undefined, "user-token#1"]
        ]
      )
    }).pipe(Effect.provide(simulated({ sessions: [taskSession] }))))

  it.effect("discovery runs in span a2a.client.discover_agent with the call's ids; its requests in GET spans", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const { spans, tracer } = yield* recordSpans
      const task = yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", responseKind: "task" })
        .pipe(Effect.withTracer(tracer))
      expect(task.contextId).toBe(sessionUid)
      const [discover, ...more] = spans.filter((span) => span.name === "a2a.client.discover_agent")
      expect(more).toEqual([])
      expect(Object.fromEntries(discover?.attributes ?? [])).toEqual({
        "gen_ai.conversation.id": sessionUid,
        "a2a.message.id": "m-1"
      })
      const gets = spans.filter((span) => span.name === "GET")
      expect(gets.map((span) => span.attributes.get("url.full"))).toEqual([
        sessionUrl,
        `${base}/api/v1/agents/${agentUid}/`
      ])
      expect(gets.map((span) => span.attributes.get("a2a.client.step"))).toEqual(["discover-agent", "discover-agent"])
      expect(gets.map((span) => Option.map(span.parent, (parent) => parent.spanId))).toEqual([
        Option.fromNullable(discover?.spanId),
        Option.fromNullable(discover?.spanId)
      ])
    }).pipe(Effect.provide(simulated({ sessions: [taskSession] }))))
})
