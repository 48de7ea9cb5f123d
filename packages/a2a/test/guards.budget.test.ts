import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import type { SendA2AMessageInput } from "../src/A2AClient.js"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import {
  client,
  failFor,
  platform,
  recordSpans,
  resolves,
  runtimeSends,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

// SPEC §5: a budget that runs out while the call still waits for a transient runtime (nothing sent) is
// `AgentRuntimeNotReadyError`, also when it runs out during a re-resolve, and also for a call that joined
// another call's wait instead of leading it.
describe("guards: the budget runs out during a re-resolve after a transient answer", () => {
  it.effect("both calls end AgentRuntimeNotReadyError with their own ids; nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const { spans, tracer } = yield* recordSpans
      const first = yield* Effect.fork(
        a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: 5 }).pipe(
          Effect.withTracer(tracer),
          Effect.flip
        )
      )
      // the first resolve (t = 0) answered `waking`: the session's resolution now sleeps until the retry at 1.5 s
      yield* TestClock.adjust(0)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0])
      // every later resolve stalls
      yield* p.updateSession(sessionUid, (s) => ({ ...s, backend: { ...s.backend, resolveDelay: "forever" } }))
      const joined = yield* Effect.fork(
        Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 4 }))
      )
      yield* TestClock.adjust("1 minute")
      const joinedError = yield* Fiber.join(joined)
      const firstError = yield* Fiber.join(first)
      expect(joinedError).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-b",
        state: "waking",
        retryAfterMs: 1500,
        remainingMs: 0,
        detail: "Waking the runtime."
      })
      expect(firstError).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-a",
        state: "waking",
        retryAfterMs: 1500,
        remainingMs: 0,
        detail: "Waking the runtime."
      })
      // one shared wait: the first resolve and the stalled re-resolve, nothing else
      expect((yield* resolves).map((r) => [r.atMs, r.outcome])).toEqual([[0, "responded"], [1500, "interrupted"]])
      expect(yield* runtimeSends).toEqual([])
      const wait = spans.find((s) => s.name === "a2a.client.await_runtime")
      expect(wait && Object.fromEntries(wait.attributes)).toEqual({
        "gen_ai.conversation.id": sessionUid,
        "a2a.message.id": "m-a",
        "a2a.client.attempt": 1,
        "a2a.client.runtime_state": "waking",
        "a2a.client.retry_after_ms": 1500
      })
      expect(spans.filter((s) => s.name === "a2a.client.await_runtime")).toHaveLength(1)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 1500 } })]
    }))))
})

// SPEC §3: `runtime_presence` is for display: progress events and both waiting errors carry its detail.
describe("guards: a cold start's presence detail reaches progress events and errors", () => {
  // a send that fails, with the runtime-access progress events it reported
  const failWithProgress = (input: SendA2AMessageInput) =>
    Effect.gen(function*() {
      const a2a = yield* client
      const events: Array<A2AProgressEvent> = []
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, input).pipe(
          Effect.provideService(A2AProgress, {
            report: (event) => Effect.sync(() => void events.push(event))
          })
        ),
        "1 minute"
      )
      return { error, millis, progress: events.filter((e) => e._tag === "RuntimeAccessProgress") }
    })

  it.effect("a cold start that ends terminal: presence in every progress event and in the error", () =>
    Effect.gen(function*() {
      const { error, millis, progress } = yield* failWithProgress({ message: "hi", messageId: "m-1" })
      expect(error).toMatchObject({
        _tag: "AgentRuntimeUnavailableError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        state: "update_failed",
        presenceDetail: "The last rollout failed."
      })
      expect(millis).toBe(2000)
      expect(progress).toEqual([
        {
          _tag: "RuntimeAccessProgress",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          state: "waking",
          notice: undefined,
          presencePhase: "waking",
          presenceDetail: "Pulling the image.",
          retryAfterMs: 1000,
          attempt: 1
        },
        {
          _tag: "RuntimeAccessProgress",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          state: "waking",
          notice: undefined,
          presencePhase: "waking",
          presenceDetail: "Pulling the image.",
          retryAfterMs: 1000,
          attempt: 2
        }
      ])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: {
          _tag: "ColdStart",
          phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 2000, detail: "Pulling the image." }],
          then: { _tag: "Terminal", state: "update_failed" }
        }
      })]
    }))))

  it.effect("a cold start that outlasts the budget: the presence detail is the error's detail", () =>
    Effect.gen(function*() {
      const { error, millis, progress } = yield* failWithProgress({ message: "hi", messageId: "m-2", timeout: 3 })
      expect(error).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-2",
        state: "starting",
        retryAfterMs: 2000,
        remainingMs: 1000,
        detail: "Still provisioning."
      })
      // resolves at 0 and 2 s; the retry at 4 s no longer fits the 3 s budget
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 2000])
      expect(millis).toBe(2000)
      expect(progress.map((e) => [e.presencePhase, e.presenceDetail])).toEqual([[
        "provisioning",
        "Still provisioning."
      ]])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: { _tag: "StuckTransient", state: "starting", retryAfterMs: 2000, detail: "Still provisioning." }
      })]
    }))))
})

// SPEC §5: only a call still waiting for the runtime reports AgentRuntimeNotReadyError; a call whose budget
// ends in another step names that step, even while another call of the session waits for a cold start.
describe("guards: a timeout outside the wait names its own step", () => {
  it.effect("Task-mode discovery stalls while another call waits for the runtime: A2ATimeoutError at discover-agent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const waiting = yield* Effect.fork(
        a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: 30 })
      )
      yield* TestClock.adjust(0)
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", responseKind: "task", timeout: 3 }),
        "3 seconds"
      )
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        agentSessionUid: sessionUid,
        messageId: "m-b",
        step: "discover-agent",
        limit: "total",
        seconds: 3,
        messageMayHaveBeenSent: false
      })
      expect(millis).toBe(3000)
      yield* Fiber.interrupt(waiting)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 1500 },
        backend: { discoveryDelay: "forever" },
        agent: { taskSupport: true }
      })]
    }))))
})
