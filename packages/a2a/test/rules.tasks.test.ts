import { describe, expect, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { client, failFor, platform, runFor, session, sessionUid, simulated } from "./fixtures.js"

// SPEC §7: wait = get repeatedly, 1 s apart and then 1.5 times longer each time (at most 30 s, at most what
// is left of the budget), until a terminal or interrupted state, or the budget ends: then a timeout error
// that carries the last Task seen and says nothing was sent.

const taskAgent = (agent: Record<string, unknown>) =>
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
      expect(gaps.slice(9)).toEqual(gaps.slice(9).map(() => 30_000))
      expect(gaps.length).toBeGreaterThan(10)
    }).pipe(Effect.provide(taskAgent({ workMs: 3_600_000 }))))

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
    }).pipe(Effect.provide(taskAgent({ workMs: 600_000 }))))

  it.effect("an interrupted state (INPUT_REQUIRED) ends the wait with that Task", () =>
    Effect.gen(function*() {
      const { outcome } = yield* waitFor(60, "1 minute")
      expect(outcome.error).toBeUndefined()
      expect(outcome.value?.status.state).toBe("TASK_STATE_INPUT_REQUIRED")
    }).pipe(Effect.provide(taskAgent({ workMs: 2000, task: { queuedMs: 0, questions: ["Which one?"] } }))))

  it.effect("a Task already terminal is returned by the first get, without waiting", () =>
    Effect.gen(function*() {
      const { gets, outcome } = yield* waitFor(60, "1 minute")
      expect(gets).toEqual([0])
      expect(outcome.value?.status.state).toBe("TASK_STATE_FAILED")
      expect(outcome.millis).toBe(0)
    }).pipe(Effect.provide(taskAgent({ workMs: 0, task: { queuedMs: 0, outcome: "failed" } }))))
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
    }).pipe(Effect.provide(taskAgent({ workMs: 600_000 }))))
})
