// SPEC §5, the budget: the total, the phase limits, what a timeout or a transport failure says was sent.
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
import type { SendA2AMessageInput } from "../src/A2AClient.js"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import type * as Timeout from "../src/Timeout.js"
import {
  client,
  failFor,
  fakeRuntime,
  jsonResponse,
  platform,
  recordSpans,
  resolves,
  runFor,
  runtimeSends,
  sendUrl,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

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

  it.effect("a next retry that fits with a millisecond to spare is waited for: the runtime ready then gets the send", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // resolves at 0 and 1 s answer waking; the one at 2 s, 1 ms before the 2.001 s budget ends, admits
      const { error, millis } = yield* runFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", timeout: 2.001 }),
        "1 minute"
      )
      expect(error).toBeUndefined()
      expect(millis).toBe(2000)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000, 2000])
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(simulated({
      sessions: [
        session({ access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 2000 }] } })
      ]
    }))))

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

// SPEC §5: a budget that runs out while the call still waits for a transient runtime (nothing sent) is
// `AgentRuntimeNotReadyError`, also when it runs out during a re-resolve, and also for a call that joined
// another call's wait instead of leading it.
describe("the budget runs out during a re-resolve after a transient answer", () => {
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
describe("a cold start's presence detail reaches progress events and errors", () => {
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
describe("a timeout outside the wait names its own step", () => {
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

const failure = (code: string | undefined) =>
  code === undefined ? new Error("boom") : Object.assign(new Error(code), { code })

const transport = (request: HttpClientRequest.HttpClientRequest, cause: unknown) =>
  Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause }))

const sendOnce = Effect.flatMap(
  client,
  (a2a) => Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", timeout: [5, 10] }))
)

describe("messageMayHaveBeenSent after a transport failure", () => {
  for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]) {
    it.effect(`${code}: the request never left → false, and the message says nothing about a send`, () =>
      Effect.gen(function*() {
        const error = yield* sendOnce
        expect(error).toMatchObject({ _tag: "A2ATransportError", step: "send-message", messageMayHaveBeenSent: false })
        expect(error.message).toContain(code)
        expect(error.message).not.toContain("may already have reached")
      }).pipe(Effect.provide(fakeRuntime((request) => transport(request, failure(code))))))
  }

  it.effect("a refusal by every address of the host (AggregateError) never left → false", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: false })
    }).pipe(Effect.provide(fakeRuntime((request) =>
      transport(request, new AggregateError([failure("ECONNREFUSED"), failure("ECONNREFUSED")]))
    ))))

  it.effect("undici's connect timeout → A2ATimeoutError with the connect limit, nothing sent", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        limit: "connect",
        seconds: 5,
        messageMayHaveBeenSent: false
      })
      expect(error.message).not.toContain("may already have reached")
    }).pipe(Effect.provide(fakeRuntime((request) => transport(request, failure("UND_ERR_CONNECT_TIMEOUT"))))))

  for (const code of ["ECONNRESET", "EPIPE", undefined]) {
    it.effect(`${code ?? "no error code"}: the request may have been written → true`, () =>
      Effect.gen(function*() {
        const error = yield* sendOnce
        expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: true })
        expect(error.message).toContain("may already have reached the runtime")
      }).pipe(Effect.provide(fakeRuntime((request) => transport(request, failure(code))))))
  }

  it.effect("a refused resend after a runtime 401 is still true: the first send was written", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: true })
    }).pipe(Effect.provide(fakeRuntime((request, n) =>
      n === 0
        ? Effect.succeed(jsonResponse(request, 401, { error: { code: 401, message: "expired" } }))
        : transport(request, failure("ECONNREFUSED"))
    ))))

  it.effect("on the simulated platform: an unreachable external runtime (ECONNREFUSED) → false", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", step: "send-message", messageMayHaveBeenSent: false })
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session({ rpcUrl: "http://127.0.0.1:9/runtime/" })] }))))

  it.effect("on the simulated platform: a connection dropped after the request (ECONNRESET) → true", () =>
    Effect.gen(function*() {
      const error = yield* sendOnce
      expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: true })
    }).pipe(Effect.provide(
      simulated({ sessions: [session({ agent: { behaviour: { _tag: "ConnectionFailure" } } })] })
    )))
})

// SPEC §5 / §10: a failed connection is A2ATransportError naming the step, method, URL and the failure's
// kind and code (never request text); only a failure of the connect phase, on every address tried, proves
// that nothing left (messageMayHaveBeenSent false); undici's connect timeout is the connect limit.

const coded = (code: string) => Object.assign(new Error(`connect ${code}`), { code })

/** The error of one send whose runtime request fails with `error(request)`. */
const failingWith = (
  error: (request: HttpClientRequest.HttpClientRequest) => HttpClientError.HttpClientError,
  timeout: Timeout.Timeout = [5, 10]
) =>
  Effect.flatMap(
    A2AClient.A2AClient,
    (a2a) => Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", timeout }))
  ).pipe(
    // `cause` is the error's own text field, not enumerable on the Error
    Effect.map((e) => ({ ...e, cause: "cause" in e && typeof e.cause === "string" ? e.cause : undefined })),
    Effect.provide(fakeRuntime((request) => Effect.fail(error(request))))
  )

const transportFailure = (cause: unknown) => (request: HttpClientRequest.HttpClientRequest) =>
  new HttpClientError.RequestError({ request, reason: "Transport", cause })

const transportError = (messageMayHaveBeenSent: boolean, cause: string | undefined) => ({
  _tag: "A2ATransportError",
  agentSessionUid: sessionUid,
  messageId: "m-1",
  method: "POST",
  url: sendUrl,
  step: "send-message",
  messageMayHaveBeenSent,
  ...(cause === undefined ? {} : { cause }),
  // the failure's code, when it has one, is also a field of its own ("<kind> <code>" in `cause`)
  ...(cause?.split(" ")[1] === undefined ? {} : { code: cause.split(" ")[1] })
})

describe("rules: which transport failures prove the request never left (SPEC §5)", () => {
  it.effect("a refused connection: never left, the cause is the kind and the code", () =>
    Effect.gen(function*() {
      expect(yield* failingWith(transportFailure(coded("ECONNREFUSED")))).toEqual(
        transportError(false, "Transport ECONNREFUSED")
      )
    }))

  it.effect("the cause names where the connection failed: through a proxy, the proxy's address, not the URL's", () =>
    Effect.gen(function*() {
      const at = (code: string, fields: object) => Object.assign(coded(code), fields)
      const causeOf = (cause: unknown) => Effect.map(failingWith(transportFailure(cause)), (error) => error.cause)
      expect(yield* causeOf(at("ECONNREFUSED", { address: "127.0.0.1", port: 3128 })))
        .toBe("Transport ECONNREFUSED at 127.0.0.1:3128")
      expect(yield* causeOf(at("ENOTFOUND", { hostname: "proxy.corp.test" })))
        .toBe("Transport ENOTFOUND at proxy.corp.test")
      expect(yield* causeOf(at("EHOSTUNREACH", { address: "10.0.0.1" }))).toBe("Transport EHOSTUNREACH at 10.0.0.1")
      // each address once, IPv6 in brackets
      const attempts = [
        at("ECONNREFUSED", { address: "::1", port: 9 }),
        at("ECONNREFUSED", { address: "127.0.0.1", port: 9 }),
        at("ECONNREFUSED", { address: "127.0.0.1", port: 9 })
      ]
      expect(yield* causeOf(Object.assign(new AggregateError(attempts), { code: "ECONNREFUSED" })))
        .toBe("Transport ECONNREFUSED at [::1]:9, 127.0.0.1:9")
      // a port that is no number, a hostname beside an address: the address alone
      expect(yield* causeOf(at("ECONNRESET", { address: "127.0.0.1", port: "9", hostname: "h.test" })))
        .toBe("Transport ECONNRESET at 127.0.0.1")
      expect(yield* causeOf(at("ECONNRESET", { address: 7, hostname: 8 }))).toBe("Transport ECONNRESET")
    }))

  it.effect("an AggregateError where one address refused and another reset: it may have left", () =>
    Effect.gen(function*() {
      expect(
        yield* failingWith(transportFailure(new AggregateError([coded("ECONNREFUSED"), coded("ECONNRESET")])))
      ).toEqual(transportError(true, "Transport"))
      expect(
        yield* failingWith(transportFailure(new AggregateError([coded("ENETUNREACH"), coded("EHOSTUNREACH")])))
      ).toEqual(transportError(false, "Transport"))
    }))

  it.effect("an AggregateError without attempts is judged by its own code", () =>
    Effect.gen(function*() {
      expect(yield* failingWith(transportFailure(Object.assign(new AggregateError([]), { code: "ENOTFOUND" }))))
        .toEqual(
          transportError(false, "Transport ENOTFOUND")
        )
      expect(yield* failingWith(transportFailure(new AggregateError([])))).toEqual(transportError(true, "Transport"))
    }))

  it.effect("a failure that is not of the transport (an invalid URL, an encoding error): it may have left", () =>
    Effect.gen(function*() {
      expect(
        yield* failingWith((request) =>
          new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: coded("ECONNREFUSED") })
        )
      ).toEqual(transportError(true, "InvalidUrl ECONNREFUSED"))
      expect(yield* failingWith((request) => new HttpClientError.RequestError({ request, reason: "Encode" })))
        .toEqual(transportError(true, "Encode"))
    }))

  it.effect("undici's connect timeout: the connect limit with a pair, a transport error with a total budget", () =>
    Effect.gen(function*() {
      expect(yield* failingWith(transportFailure(coded("UND_ERR_CONNECT_TIMEOUT")), [2, 10])).toEqual({
        _tag: "A2ATimeoutError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        step: "send-message",
        limit: "connect",
        seconds: 2,
        messageMayHaveBeenSent: false
      })
      expect(yield* failingWith(transportFailure(coded("UND_ERR_CONNECT_TIMEOUT")), 30)).toEqual(
        transportError(false, "Transport UND_ERR_CONNECT_TIMEOUT")
      )
    }))
})

describe("rules: trace propagation from the exchange's own span", () => {
  it.effect("the runtime request carries a traceparent of its a2a.http span; none with propagation off", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(Effect.withTracer(tracer))
      const post = spans.find((span) =>
        span.name === "POST" && span.attributes.get("a2a.client.step") === "send-message"
      )
      const [send] = yield* runtimeSends
      expect(send?.headers["traceparent"]).toBe(`00-${post?.traceId}-${post?.spanId}-01`)
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-2" }).pipe(
        Effect.locally(HttpClient.currentTracerPropagation, false)
      )
      const [, second] = yield* runtimeSends
      expect(second?.messageId).toBe("m-2")
      expect(second?.headers["traceparent"]).toBeUndefined()
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

describe("read bounds the wait for the response head (SPEC §5)", () => {
  it.effect("[2, 0.4]: a runtime that accepts the message and never answers ends the call after 0.4 s, the read limit", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: [2, 0.4] }),
        "1 minute"
      )
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        step: "send-message",
        limit: "read",
        seconds: 0.4,
        messageMayHaveBeenSent: true
      })
      expect(error.message).toContain("0.4 s read limit ran out during send-message")
      expect(millis).toBe(400)
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { behaviour: { _tag: "Stall" } } })] }))))

  it.effect("a generic HttpClient that cannot tell the phases apart falls back to connect + read for the head", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: [2, 0.4] }),
        "1 minute"
      )
      // connect + read is the whole budget here, so the budget is what ends the call
      expect(error).toMatchObject({ _tag: "A2ATimeoutError", step: "send-message", limit: "total", seconds: 2.4 })
      expect(millis).toBe(2400)
    }).pipe(Effect.provide(
      A2AClient.layer({
        backendUrl: SimulatedPlatform.defaultBaseUrl,
        accessToken: SimulatedPlatform.defaultUserAccessToken
      }).pipe(
        Layer.provide(Layer.merge(
          layerTest({ sessions: [session({ agent: { behaviour: { _tag: "Stall" } } })] }),
          RuntimeAccessCache.layerMemory
        )),
        Layer.orDie
      )
    )))
})
