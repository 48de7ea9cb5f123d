import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
import type * as Timeout from "../src/Timeout.js"
import { client, failFor, fakeRuntime, resolves, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

// SPEC §5: the total budget (a number, or connect + read of a pair) covers the whole call; a phase limit
// of a pair bounds the head and the gaps between chunks; what the timeout becomes says which step was
// under way, which limit ran out (with its seconds) and whether the message may have been sent.

/** A runtime whose answer head never comes (a generic HttpClient: it never says it connected). */
const silentRuntime = fakeRuntime(() => Effect.never)

/** A runtime that sends the head and one chunk, then nothing more. */
const stalledBody = fakeRuntime((request) =>
  Effect.succeed(
    HttpClientResponse.fromWeb(
      request,
      new Response(
        Stream.toReadableStream(
          Stream.concat(Stream.make(new TextEncoder().encode("{\"message\":")), Stream.never)
        ),
        { status: 200, headers: { "content-type": "application/a2a+json" } }
      )
    )
  )
)

const sendWith = (timeout: Timeout.Timeout) =>
  Effect.flatMap(
    A2AClient.A2AClient,
    (a2a) => failFor(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", timeout }), "1 hour")
  )

const timedOut = (step: string, limit: string, seconds: number) => ({
  _tag: "A2ATimeoutError",
  agentSessionUid: sessionUid,
  messageId: "m-1",
  step,
  limit,
  seconds,
  messageMayHaveBeenSent: true
})

describe("rules: which limit ends a silent runtime (SPEC §5)", () => {
  it.effect("a pair with a client that never says it connected: the head may take connect + read, the total", () =>
    Effect.gen(function*() {
      // the head's deadline (connect + read from the request) is the total's own: reported as the total
      const { error, millis } = yield* sendWith([2, 3])
      expect({ ...error }).toEqual({ ...timedOut("send-message", "total", 5), lastTask: undefined, taskId: undefined })
      expect(error.message).toBe(
        `The call's 5 s budget ran out during send-message; the message may already have reached the runtime and is not sent again (session ${sessionUid})`
      )
      expect(millis).toBe(5000)
    }).pipe(Effect.provide(silentRuntime)))

  it.effect("the total counts from the call's own start, whatever the clock reads then", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hour")
      const { error, millis } = yield* sendWith(4)
      expect({ ...error }).toEqual(timedOut("send-message", "total", 4))
      expect(millis).toBe(4000)
    }).pipe(Effect.provide(silentRuntime)))

  it.effect("a number is the total budget alone: the head waits the whole of it", () =>
    Effect.gen(function*() {
      const { error, millis } = yield* sendWith(4)
      expect({ ...error }).toEqual(timedOut("send-message", "total", 4))
      expect(error.message).toBe(
        `The call's 4 s budget ran out during send-message; the message may already have reached the runtime and is not sent again (session ${sessionUid})`
      )
      expect(millis).toBe(4000)
    }).pipe(Effect.provide(silentRuntime)))

  it.effect("a body that stops after its first chunk: the read limit, with read's seconds, in read-response", () =>
    Effect.gen(function*() {
      const { error, millis } = yield* sendWith([2, 3])
      expect({ ...error }).toEqual(timedOut("read-response", "read", 3))
      expect(millis).toBe(3000)
    }).pipe(Effect.provide(stalledBody)))

  it.effect("the same stall under a total budget shorter than read is the total", () =>
    Effect.gen(function*() {
      const { error, millis } = yield* sendWith(1.5)
      expect({ ...error }).toEqual(timedOut("read-response", "total", 1.5))
      expect(millis).toBe(1500)
    }).pipe(Effect.provide(stalledBody)))
})

describe("rules: running out while waiting for a transient runtime (SPEC §1.3, §5)", () => {
  const waking = session({
    access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 1000, detail: "Waking the runtime." }
  })

  it.effect("the next retry no longer fits: AgentRuntimeNotReadyError at once, with the time left; nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", timeout: 2.5 }),
        "1 minute"
      )
      expect({ ...error }).toEqual({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        state: "waking",
        retryAfterMs: 1000,
        remainingMs: 500,
        detail: "Waking the runtime."
      })
      // resolves at 0, 1 s and 2 s; the one at 3 s would not fit the 2.5 s budget
      expect(millis).toBe(2000)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000, 2000])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [waking] }))))

  it.effect("a call that joins the wait with a deadline before the next resolve leaves by it; the leader goes on", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const leader = yield* Effect.fork(
        Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: 10 }))
      )
      yield* TestClock.adjust(100)
      const joined = yield* Effect.fork(
        Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 0.5 }))
      )
      yield* TestClock.adjust(1000)
      const joinedError = yield* Fiber.join(joined)
      expect({ ...joinedError }).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-b",
        state: "waking",
        retryAfterMs: 1000
      })
      yield* TestClock.adjust("1 minute")
      const leaderError = yield* Fiber.join(leader)
      expect({ ...leaderError }).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        messageId: "m-a",
        state: "waking"
      })
      // the joined call never resolved on its own: one resolve per second for the leader only
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [waking] }))))
})
