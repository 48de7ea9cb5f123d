import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import { describe, expect, it } from "@effect/vitest"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
import type * as A2AError from "../src/A2AError.js"
import * as A2AProgress from "../src/A2AProgress.js"
import type { ClientEnv } from "../src/internal/clientEnv.js"
import { makeClientEnv } from "../src/internal/clientEnv.js"
import { currentConnectPhase } from "../src/internal/connectPhase.js"
import { sendMessage } from "../src/internal/pipeline.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import * as Timeout from "../src/Timeout.js"
import {
  client,
  failFor,
  leaveWaitThenWake,
  platform,
  resolves,
  runFor,
  runtimeSends,
  sendBodiesConform,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

// cold start: 4 phases of 1.5 s, each answered with retry_after_ms 1500 → resolves at 0, 1.5, 3, 4.5 s, ready at 6 s
const waking1500 = { state: "waking", retryAfterMs: 1500, durationMs: 1500 } as const
const slowColdStart = session({
  access: { _tag: "ColdStart", phases: [waking1500, waking1500, waking1500, waking1500] }
})

/** The client on the simulated platform with the given cache service. */
const withCache = (
  cache: Layer.Layer<RuntimeAccessCache.RuntimeAccessCache>,
  sessions: ReadonlyArray<ReturnType<typeof session>>
) => {
  const simulation = Layer.merge(layerTest({ sessions }), cache)
  return A2AClient.layer({
    backendUrl: SimulatedPlatform.defaultBaseUrl,
    accessToken: SimulatedPlatform.defaultUserAccessToken
  }).pipe(
    Layer.provide(Timeout.layerInstantConnect),
    Layer.provideMerge(simulation),
    Layer.merge(Layer.provide(sendBodiesConform, simulation)),
    Layer.orDie
  )
}

/** The client's environment itself on the simulated platform, so a test can see its per-session registry. */
const withClientEnv = <A, E>(
  sessions: ReadonlyArray<ReturnType<typeof session>>,
  use: (env: ClientEnv) => Effect.Effect<A, E, SimulatedPlatform.SimulatedPlatform>
) =>
  Effect.scoped(Effect.flatMap(
    makeClientEnv({
      backendUrl: SimulatedPlatform.defaultBaseUrl,
      accessToken: SimulatedPlatform.defaultUserAccessToken
    }, A2AClient.defaultMaxResponseBytes),
    use
  )).pipe(
    Effect.provide(Timeout.layerInstantConnect),
    Effect.provide(Layer.merge(layerTest({ sessions }), RuntimeAccessCache.layerMemory))
  )

/** The client after one send (m-1 at 0, its access cached) and a rotation of the runtime token: the cached one is now rejected. */
const sentOnceThenTokenRotated = Effect.gen(function*() {
  const a2a = yield* client
  expect((yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-1" }), "1 second")).error)
    .toBeUndefined()
  yield* (yield* platform).rotateRuntimeToken(sessionUid)
  return a2a
})

const otherSessionUid = "1c2701a1-e777-4cfe-8437-b94025f00070"
const uidOf = (i: number) => `2d2701a1-e777-4cfe-8437-${i.toString().padStart(12, "0")}`

const stuckWaking = session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 1500 } })

// SPEC §1.3/§6: the session's one resolution is the client's; each waiting call leaves it by its own budget.
describe("the session's resolution belongs to the client", () => {
  it.effect("the call that started it is interrupted: the others wait on the same resolution, no resolve more", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const first = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      yield* TestClock.adjust(0)
      const joined = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }))
      // resolves at 0 and 1.5 s; the wait asked for the next at 3 s
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.interrupt(first)
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(joined)).role).toBe("ROLE_AGENT")
      // no resolve at 2 s when the first call went: the second went on with the same wait
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500, 6000])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-b", 6000]])
    }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))

  it.effect("a call that leaves while others wait keeps the session's state for them: a later call joins the same resolution", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const first = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      // the 1 s call leaves at 0 (the next resolve, at 1.5 s, misses its deadline); the first still waits
      const short = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 1 }),
        "1 second"
      )
      expect(short).toMatchObject({ millis: 0, error: { _tag: "AgentRuntimeNotReadyError", messageId: "m-b" } })
      yield* TestClock.adjust("1 second")
      // at 2 s a new call joins the wait under way instead of starting a resolution of its own
      const later = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "c", messageId: "m-c" }))
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(first)).role).toBe("ROLE_AGENT")
      expect((yield* Fiber.join(later)).role).toBe("ROLE_AGENT")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500, 6000])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-a", 6000], ["m-c", 6000]])
    }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))

  it.effect("a call that joins mid-wait leaves at once when the next resolve is past its own deadline", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const first = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      yield* TestClock.adjust(0)
      const second = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }))
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.interrupt(first)
      // the wait's next resolve is at 3 s; a 0.5 s budget ends at 2.5 s
      const late = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "c", messageId: "m-c", timeout: 0.5 }),
        "1 second"
      )
      expect(late).toMatchObject({
        millis: 0,
        error: { _tag: "AgentRuntimeNotReadyError", messageId: "m-c", state: "waking", remainingMs: 500 }
      })
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(second)).role).toBe("ROLE_AGENT")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500, 6000])
    }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))

  it.effect("its last call leaves by its budget: it stops (no resolve after that), a later call starts anew at once", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // resolves at 0 and 1.5 s; the retry at 3 s does not fit the 2 s budget
      const first = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: 2 }),
        "2 seconds"
      )
      expect(first).toMatchObject({ millis: 1500, error: { _tag: "AgentRuntimeNotReadyError", remainingMs: 500 } })
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500])
      // nothing polls for nobody
      yield* TestClock.adjust("1 minute")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500])
      const p = yield* platform
      yield* p.updateSession(sessionUid, (s) => ({ ...s, access: { _tag: "Ready" } }))
      // a 1 s budget: the new call resolves at once, without the old wait
      const second = yield* runFor(
        a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 1 }),
        "1 second"
      )
      expect(second).toMatchObject({ error: undefined, millis: 0 })
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 62000])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status])).toEqual([["m-b", 62000, 200]])
    }).pipe(Effect.provide(simulated({ sessions: [stuckWaking] }))))

  it.effect("its last call is interrupted during the wait: it stops, no resolve after that", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const callA = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      const callB = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }))
      yield* TestClock.adjust("2 seconds")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500])
      yield* Fiber.interrupt(callA)
      // one call still waits: the resolution goes on
      yield* TestClock.adjust("1 second")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000])
      yield* Fiber.interrupt(callB)
      yield* TestClock.adjust("1 minute")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [stuckWaking] }))))

  it.effect("its last call times out during a resolve that hangs: the resolve is abandoned, none follows", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: 2 }),
        "1 minute"
      )
      expect(error).toMatchObject({ _tag: "A2ATimeoutError", step: "resolve-runtime-access", limit: "total" })
      expect(millis).toBe(2000)
      yield* TestClock.adjust("10 minutes")
      expect(yield* resolves).toHaveLength(1)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session({ backend: { resolveDelay: 600_000 } })] }))))

  it.effect("calls with budgets of 1, 4 and 10 s on one waking session: each leaves when the next resolve misses its deadline", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const outcomes = yield* runFor(
        Effect.all(
          [1, 4, 10].map((timeout) =>
            Effect.either(a2a.sendA2AMessage(sessionUid, { message: "x", messageId: `m-${timeout}`, timeout }))
          ),
          { concurrency: "unbounded" }
        ),
        "1 minute"
      )
      const [one, four, ten] = outcomes.value ?? []
      // resolves at 0, 1.5, 3, 4.5, 6 s (admitted); the 1 s call leaves at 0 (next at 1.5), the 4 s one at 3 s (next at 4.5)
      expect(one).toMatchObject({
        _tag: "Left",
        left: { _tag: "AgentRuntimeNotReadyError", messageId: "m-1", remainingMs: 1000 }
      })
      expect(four).toMatchObject({
        _tag: "Left",
        left: { _tag: "AgentRuntimeNotReadyError", messageId: "m-4", remainingMs: 1000 }
      })
      expect(ten?._tag).toBe("Right")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500, 6000])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-10", 6000]])
    }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))

  it.effect("every waiting call gets the RuntimeAccessProgress of the wait it is in, with its own ids", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const progress: Record<string, Array<[string | undefined, number]>> = { "m-a": [], "m-b": [] }
      const send = (messageId: "m-a" | "m-b") =>
        a2a.sendA2AMessage(sessionUid, { message: "x", messageId }).pipe(
          Effect.provideService(A2AProgress.A2AProgress, {
            report: (event) =>
              Effect.sync(() => {
                if (event._tag === "RuntimeAccessProgress") progress[messageId]?.push([event.messageId, event.attempt])
              })
          })
        )
      const first = yield* Effect.fork(send("m-a"))
      // the second call joins after the first transient answer: it is told of the waits from then on
      yield* TestClock.adjust("1 second")
      const second = yield* Effect.fork(send("m-b"))
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      expect(progress["m-a"]).toEqual([["m-a", 1], ["m-a", 2], ["m-a", 3], ["m-a", 4]])
      expect(progress["m-b"]).toEqual([["m-b", 2], ["m-b", 3], ["m-b", 4]])
    }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))

  it.effect("with a store that answers later, a new short call is not sent away by a wait that ended", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const first = yield* leaveWaitThenWake("2 seconds")
      expect(first.error).toMatchObject({ _tag: "AgentRuntimeNotReadyError", messageId: "m-a" })
      // the old wait would retry at about 3 s; this call's budget ends at 2.5 s, and the store takes a while
      const second = yield* runFor(
        a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 0.5 }),
        "1 second"
      )
      expect(second.error).toBeUndefined()
      expect((yield* resolves).map((r) => r.outcome)).toHaveLength(3)
      expect((yield* runtimeSends).map((s) => [s.messageId, s.status])).toEqual([["m-b", 200]])
    }).pipe(Effect.provide(withCache(
      Layer.effect(
        RuntimeAccessCache.RuntimeAccessCache,
        Effect.flatMap(
          RuntimeAccessCache.makeMemoryStore,
          (store) => RuntimeAccessCache.make({ ...store, get: (key) => Effect.delay(store.get(key), "1 millis") })
        )
      ),
      [stuckWaking]
    ))))
})

const threeColdSends = Effect.gen(function*() {
  const a2a = yield* client
  const sends = Effect.forEach(
    ["m-1", "m-2", "m-3"],
    (messageId) => a2a.sendA2AMessage(sessionUid, { message: "hi", messageId }),
    { concurrency: "unbounded" }
  )
  const { error, value } = yield* runFor(sends, "1 second")
  expect(error).toBeUndefined()
  return value?.map((answer) => answer.role)
})

// SPEC §6 / issue 17: what the calls to a session share lives from the first call in flight to the last.
describe("per-session state lives only while a call to that session is in flight", () => {
  it.effect("one entry per session with calls in flight, none after the last call (answered, failed, interrupted)", () =>
    withClientEnv(
      [slowColdStart, { ...session({ backend: { resolveDelay: 100 } }), sessionUid: otherSessionUid }],
      (env) =>
        Effect.gen(function*() {
          const send = (uid: string, messageId: string, timeout?: number) =>
            sendMessage(env, uid, { message: "x", messageId, ...(timeout === undefined ? {} : { timeout }) })
          const interrupted = yield* Effect.fork(send(sessionUid, "m-1"))
          const answered = yield* Effect.fork(send(sessionUid, "m-2"))
          const short = yield* Effect.fork(Effect.either(send(sessionUid, "m-3", 1)))
          const other = yield* Effect.fork(send(otherSessionUid, "m-4"))
          yield* TestClock.adjust(0)
          expect(env.sessions.size()).toBe(2)
          yield* TestClock.adjust("200 millis")
          // the other session answered; its entry is gone
          yield* Fiber.join(other)
          expect(env.sessions.size()).toBe(1)
          expect(yield* Fiber.join(short)).toMatchObject({ _tag: "Left", left: { _tag: "AgentRuntimeNotReadyError" } })
          yield* Fiber.interrupt(interrupted)
          expect(env.sessions.size()).toBe(1)
          yield* TestClock.adjust("10 seconds")
          yield* Fiber.join(answered)
          expect(env.sessions.size()).toBe(0)
          expect(yield* FiberSet.size(env.resolutions)).toBe(0)
        })
    ))

  it.effect("300 distinct sessions, one send each: nothing is kept for them but their cache entries", () =>
    withClientEnv(
      Array.from({ length: 300 }, (_, i) => ({ ...session(), sessionUid: uidOf(i) })),
      (env) =>
        Effect.gen(function*() {
          const answers = yield* runFor(
            Effect.forEach(
              Array.from({ length: 300 }, (_, i) => i),
              (i) => sendMessage(env, uidOf(i), { message: "x" }),
              { concurrency: 50 }
            ),
            "1 minute"
          )
          expect(answers.value).toHaveLength(300)
          expect(env.sessions.size()).toBe(0)
          expect(yield* FiberSet.size(env.resolutions)).toBe(0)
        })
    ))
})

// The cache is storage: the client's per-session resolution is the one single flight.
describe("a custom RuntimeAccessCache is storage only", () => {
  it.effect("three cold sends resolve once and set once; a rejected token is invalidated, the fresh one set", () => {
    const calls: Array<string> = []
    const recording = Layer.effect(
      RuntimeAccessCache.RuntimeAccessCache,
      Effect.map(
        Effect.flatMap(RuntimeAccessCache.makeMemoryStore, RuntimeAccessCache.make),
        (inner) =>
          RuntimeAccessCache.RuntimeAccessCache.of({
            get: (key) => Effect.zipRight(Effect.sync(() => calls.push("get")), inner.get(key)),
            set: (key, access) => Effect.zipRight(Effect.sync(() => calls.push("set")), inner.set(key, access)),
            invalidate: (key) => Effect.zipRight(Effect.sync(() => calls.push("invalidate")), inner.invalidate(key))
          })
      )
    )
    return Effect.gen(function*() {
      expect(yield* threeColdSends).toEqual(["ROLE_AGENT", "ROLE_AGENT", "ROLE_AGENT"])
      expect(yield* resolves).toHaveLength(1)
      expect(calls.filter((c) => c === "set")).toHaveLength(1)
      const p = yield* platform
      yield* p.rotateRuntimeToken(sessionUid)
      calls.length = 0
      const a2a = yield* client
      const again = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "again", messageId: "m-4" }), "1 second")
      expect(again.error).toBeUndefined()
      expect(calls.filter((c) => c !== "get")).toEqual(["invalidate", "set"])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.status])).toEqual([
        ["m-1", 200],
        ["m-2", 200],
        ["m-3", 200],
        ["m-4", 401],
        ["m-4", 200]
      ])
      expect(yield* resolves).toHaveLength(2)
    }).pipe(Effect.provide(withCache(recording, [session({ backend: { resolveDelay: 100 } })])))
  })
})

// SPEC §6: no call sends a token the runtime already rejected for the session, even when the store still
// hands it back (a store that cannot remove an entry: a shared store that failed, another process's write).
describe("rejected tokens, with a store that keeps a rejected entry", () => {
  const sticky = Layer.effect(
    RuntimeAccessCache.RuntimeAccessCache,
    Effect.flatMap(
      RuntimeAccessCache.makeMemoryStore,
      (store) => RuntimeAccessCache.make({ ...store, remove: () => Effect.void })
    )
  )

  it.effect("the refresh after a 401 resolves fresh instead of resending the rejected token it read back", () =>
    Effect.gen(function*() {
      const a2a = yield* sentOnceThenTokenRotated
      const again = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-2" }), "1 second")
      expect(again.error).toBeUndefined()
      expect((yield* runtimeSends).map((s) => [s.messageId, s.status])).toEqual([["m-1", 200], ["m-2", 401], [
        "m-2",
        200
      ]])
      expect(yield* resolves).toHaveLength(2)
    }).pipe(Effect.provide(withCache(sticky, [session()]))))
})

// SPEC §5: a phase limit that ends the session's resolution while it waits for a transient runtime is each
// waiting call's own AgentRuntimeNotReadyError, with its own time left.
describe("the session's resolution cut by its phase limit during a transient wait", () => {
  it.effect("each waiting call: AgentRuntimeNotReadyError naming the read limit, with its own messageId and remainingMs", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const send = (messageId: string, timeout: Timeout.Timeout) =>
        Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout })))
      const short = yield* send("m-short", [5, 1])
      const long = yield* send("m-long", [9, 1])
      // the first resolve (t = 0) answered waking, retry at 500 ms; that one never answers
      yield* TestClock.adjust(0)
      yield* p.updateSession(sessionUid, (s) => ({ ...s, backend: { resolveDelay: 600_000 } }))
      // the re-resolve at 500 ms gets no head within read (1 s): the resolution ends at 1.5 s
      yield* TestClock.adjust("1500 millis")
      const errors = [yield* Fiber.join(short), yield* Fiber.join(long)]
      expect(errors.map((error) => ({ ...error }))).toMatchObject([
        {
          _tag: "AgentRuntimeNotReadyError",
          messageId: "m-short",
          remainingMs: 6000 - 1500,
          limit: "read",
          seconds: 1
        },
        {
          _tag: "AgentRuntimeNotReadyError",
          messageId: "m-long",
          remainingMs: 10_000 - 1500,
          limit: "read",
          seconds: 1
        }
      ])
      // the message names the limit, not a retry that would not fit
      expect(errors[0]?.message).toMatch(
        /^The Agent runtime is still waking, and the backend's next answer about it did not come within the 1 s read limit\. Nothing was sent/
      )
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 500])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 500 } })]
    }))))
})

// SPEC §5: a phase limit of the shared resolve that runs out at a waiting call's own deadline ends that call
// with its total, as its own budget would have: each waiting call holds the resolve to its own limits.
describe("the session's resolution cut by its phase limit at another call's deadline", () => {
  it.effect("the call that started it: the read limit; the call whose total ends then: its total", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const send = (messageId: string, timeout: Timeout.Timeout) =>
        Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout })))
      // Both join before the resolve starts: its read limit and the joiner's total end at the same instant.
      const starter = yield* send("m-starter", [5, 1])
      const joiner = yield* send("m-joiner", 1)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(starter)).toMatchObject({
        _tag: "A2ATimeoutError",
        messageId: "m-starter",
        limit: "read"
      })
      expect(yield* Fiber.join(joiner)).toMatchObject({
        _tag: "A2ATimeoutError",
        messageId: "m-joiner",
        limit: "total",
        seconds: 1
      })
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0])
    }).pipe(Effect.provide(simulated({ sessions: [session({ backend: { resolveDelay: 600_000 } })] }))))
})

/**
 * The client over an HTTP layer that behaves as the Node layer with a backend that stops accepting connections
 * after `answered` resolves (which the simulated platform answers): undici's connect timeout at the request's
 * connect limit, else no end. `limits` records each resolve's connect limit by path.
 */
const neverConnecting = (answered: number, sessions: ReadonlyArray<ReturnType<typeof session>> = []) => {
  const limits: Record<string, Array<number | undefined>> = {}
  let resolvesSeen = 0
  const http = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (simulated) =>
      HttpClient.make((request, url, _signal, fiber) => {
        const phase = fiber.getFiberRef(currentConnectPhase)
        ;(limits[url.pathname] ??= []).push(
          Option.isSome(phase.limit) ? Duration.toSeconds(phase.limit.value) : undefined
        )
        if (resolvesSeen++ < answered) {
          return Effect.zipRight(Effect.sync(() => phase.onConnected()), simulated.execute(request))
        }
        const timeout = Object.assign(new Error("Connect Timeout Error"), { code: "UND_ERR_CONNECT_TIMEOUT" })
        return Option.isNone(phase.limit) ? Effect.never : Effect.zipRight(
          Effect.sleep(phase.limit.value),
          Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: timeout }))
        )
      }))
  )
  return { layer: clientOver(http, sessions), limits }
}

/** The client on the simulated platform, its requests through `http` (which passes on what it does not answer). */
const clientOver = (
  http: Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient>,
  sessions: ReadonlyArray<ReturnType<typeof session>>
) =>
  A2AClient.layer({
    backendUrl: SimulatedPlatform.defaultBaseUrl,
    accessToken: SimulatedPlatform.defaultUserAccessToken
  }).pipe(
    Layer.provide(http),
    Layer.provideMerge(Layer.merge(layerTest({ sessions }), RuntimeAccessCache.layerMemory)),
    Layer.orDie
  )

// SPEC §5/§6: the resolution belongs to the client: a call's phase limits bound that call only, whichever call
// started the resolution; each waiting call holds the shared resolve to its own limits.
describe("the session's resolution under the phase limits of each waiting call", () => {
  const slowResolve = simulated({ sessions: [session({ backend: { resolveDelay: 2000 } })] })
  const send = (a2a: A2AClient.Service, messageId: string, timeout?: Timeout.Timeout) =>
    Effect.fork(Effect.either(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout })))

  for (const [name, other] of [["the default budget", undefined], ["a total of 30 s", 30]] as const) {
    it.effect(`a call with a 0.5 s read limit leaves by it; another with ${name} joined to it is sent`, () =>
      Effect.gen(function*() {
        const a2a = yield* client
        const short = yield* send(a2a, "m-short", [0.5, 0.5])
        const patient = yield* send(a2a, "m-patient", other)
        yield* TestClock.adjust("500 millis")
        expect(Either.flip(yield* Fiber.join(short))).toMatchObject(
          Either.right({ _tag: "A2ATimeoutError", messageId: "m-short", limit: "read", seconds: 0.5 })
        )
        yield* TestClock.adjust("2 seconds")
        expect(Either.map(yield* Fiber.join(patient), (answer) => answer.role)).toEqual(Either.right("ROLE_AGENT"))
        expect((yield* resolves).map((r) => r.atMs)).toEqual([0])
        expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-patient", 2000]])
      }).pipe(Effect.provide(slowResolve)))
  }

  it.effect("a call that joins a resolution started by a patient call leaves by its own read limit", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const patient = yield* send(a2a, "m-patient")
      yield* TestClock.adjust("1 second")
      const short = yield* send(a2a, "m-short", [0.5, 0.25])
      yield* TestClock.adjust("250 millis")
      // the shared resolve's connection was up at 0: its head was due within 0.25 s of that for this call
      expect(Either.flip(yield* Fiber.join(short))).toMatchObject(
        Either.right({ _tag: "A2ATimeoutError", messageId: "m-short", limit: "read", seconds: 0.25 })
      )
      yield* TestClock.adjust("1 second")
      expect(Either.isRight(yield* Fiber.join(patient))).toBe(true)
    }).pipe(Effect.provide(slowResolve)))

  it.effect("a resolve that never connects: each waiting call leaves by its own connect limit, a longer one resolves again", () => {
    const { layer, limits } = neverConnecting(0)
    const resolveLimits = (uid: string) => limits[`/api/v1/agent-sessions/${uid}/resolve-runtime-access/`]
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const sendFor = (uid: string, timeout: Timeout.Timeout) =>
        Effect.fork(Effect.flip(a2a.sendA2AMessage(uid, { message: "x", timeout })))
      // both from the start: the resolve connects within 3 s; each call then leaves with its own limit
      const [b1, a1] = [yield* sendFor(uidOf(1), [3, 10]), yield* sendFor(uidOf(1), [1, 10])]
      // a call of a total only joins a resolve under way within 1 s: it resolves again without a limit
      const a2 = yield* sendFor(uidOf(2), [1, 10])
      // a call with a longer limit joins; the one that started the resolve leaves before it fails
      const a3 = yield* sendFor(uidOf(3), [1, 10])
      yield* TestClock.adjust("200 millis")
      const b2 = yield* sendFor(uidOf(2), 5)
      const b3 = yield* sendFor(uidOf(3), [3, 10])
      yield* TestClock.adjust("300 millis")
      yield* Fiber.interrupt(a3)
      yield* TestClock.adjust("500 millis")
      const connect = (seconds: number) => ({ _tag: "A2ATimeoutError", limit: "connect", seconds })
      expect(yield* Fiber.join(a2)).toMatchObject(connect(1))
      yield* TestClock.adjust("2 seconds")
      expect([yield* Fiber.join(a1), yield* Fiber.join(b1)]).toMatchObject([connect(1), connect(3)])
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(b3)).toMatchObject(connect(3))
      yield* TestClock.adjust("1200 millis")
      expect(yield* Fiber.join(b2)).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", seconds: 5 })
      expect([resolveLimits(uidOf(1)), resolveLimits(uidOf(2)), resolveLimits(uidOf(3))]).toEqual([
        [3],
        [1, undefined],
        [1, 3]
      ])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a re-resolve during a cold start that gets no connection: each call's own AgentRuntimeNotReadyError, naming its connect limit", () => {
    const { layer } = neverConnecting(1, [
      session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 500 } })
    ])
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const sendFor = (messageId: string, timeout: Timeout.Timeout) =>
        Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout })))
      const one = yield* sendFor("m-1", [1, 10])
      const three = yield* sendFor("m-3", [3, 10])
      // the first resolve answers waking (retry in 0.5 s); the next connects within 3 s, or never
      yield* TestClock.adjust("3500 millis")
      expect([{ ...(yield* Fiber.join(one)) }, { ...(yield* Fiber.join(three)) }]).toMatchObject([
        {
          _tag: "AgentRuntimeNotReadyError",
          messageId: "m-1",
          remainingMs: 11_000 - 3500,
          limit: "connect",
          seconds: 1
        },
        {
          _tag: "AgentRuntimeNotReadyError",
          messageId: "m-3",
          remainingMs: 13_000 - 3500,
          limit: "connect",
          seconds: 3
        }
      ])
    }).pipe(Effect.provide(layer))
  })
})

// SPEC §6: the resolutions live in the client's scope; once it is closed, a call that needs one ends at once.
describe("a client whose scope is closed", () => {
  it.effect("a call that needs a resolution ends interrupted at once, not at its deadline; so does the next one", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(simulated({ sessions: [slowColdStart] }), scope)
      yield* Scope.close(scope, Exit.void)
      const a2a = Context.get(context, A2AClient.A2AClient)
      for (const messageId of ["m-1", "m-2"]) {
        const fiber = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout: 60 }))
        yield* TestClock.adjust("1 second")
        expect(Option.map(yield* Fiber.poll(fiber), Exit.isInterrupted)).toEqual(Option.some(true))
      }
    }))
})

// SPEC §6: each call's own progress service is its own: one that stalls or fails holds up or fails only its call.
describe("the progress of a shared wait, reported on each waiting call's own fiber", () => {
  for (
    const [name, report, expected] of [
      ["stalls", Effect.never, "ROLE_AGENT"],
      ["dies", Effect.dieMessage("the progress sink crashed"), "Die"]
    ] as const
  ) {
    it.effect(`a call whose progress service ${name}: the other call waiting with it is sent at the ready time`, () =>
      Effect.gen(function*() {
        const a2a = yield* client
        const withSink = yield* Effect.fork(
          a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-sink" }).pipe(
            Effect.provideService(A2AProgress.A2AProgress, {
              report: (event) => event._tag === "RuntimeAccessProgress" ? report : Effect.void
            }),
            Effect.exit
          )
        )
        const plain = yield* Effect.fork(
          a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-plain", timeout: 30 })
        )
        yield* TestClock.adjust("10 seconds")
        expect((yield* Fiber.join(plain)).role).toBe("ROLE_AGENT")
        expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500, 6000])
        const exit = yield* Fiber.join(withSink)
        expect(Exit.isSuccess(exit) ? exit.value.role : Cause.isDie(exit.cause) ? "Die" : "other").toBe(expected)
      }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))
  }
})

// SPEC §1.5/§6: a token the runtime rejected is not sent again by a call in flight, unless the backend hands it
// out again afterwards: the backend's word is newer, so a call that gets it from the resolution sends it.
describe("a rejected token the backend hands out again", () => {
  it.effect("a call that joined the fresh resolution sends the re-issued token at once, no resolve more", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      // resolve at 0 (answered at 100 ms), send at 100 ms: the token is cached
      expect((yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "w", messageId: "m-w" }), "1 second")).error)
        .toBeUndefined()
      // the runtime rejects every token for a while; the backend keeps the token it issued (not revoked)
      yield* p.updateSession(sessionUid, (s) => ({ ...s, token: { ...s.token, rejectAll: 401 } }))
      const a = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      // m-a: 401 at 1 s, its fresh resolve starts at 1 s (answered at 1.1 s)
      yield* TestClock.adjust("50 millis")
      yield* p.updateSession(sessionUid, (s) => ({ ...s, token: { ...s.token, rejectAll: undefined } }))
      // m-b finds no cached access and joins that resolution
      const b = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }))
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(a)).role).toBe("ROLE_AGENT")
      expect((yield* Fiber.join(b)).role).toBe("ROLE_AGENT")
      const sends = (yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status, s.tokenLabel])
      const token = sends[0]?.[3]
      expect(sends).toEqual([
        ["m-w", 100, 200, token],
        ["m-a", 1000, 401, token],
        ["m-a", 1100, 200, token],
        ["m-b", 1100, 200, token]
      ])
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000])
    }).pipe(Effect.provide(simulated({ sessions: [session({ backend: { resolveDelay: 100 } })] }))))
})

// SPEC §10: an error of the shared resolution reaches each waiting call as its own: its ids and whether its own
// message may have been sent.
describe("an error of the shared resolution", () => {
  it.effect("a resolve the connection drops: each waiting call's own messageMayHaveBeenSent", () => {
    let resolves = 0
    const dropped = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (simulated) =>
        HttpClient.make((request, url) => {
          if (!url.pathname.endsWith("/resolve-runtime-access/") || resolves++ === 0) return simulated.execute(request)
          const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })
          return Effect.zipRight(
            Effect.sleep("100 millis"),
            Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: reset }))
          )
        }))
    )
    return Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      expect((yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "w", messageId: "m-w" }), "1 second")).error)
        .toBeUndefined()
      yield* p.updateSession(sessionUid, (s) => ({ ...s, token: { ...s.token, rejectAll: 401 } }))
      // m-a: sent and rejected, then its fresh resolve; m-b finds no usable access and joins it
      const a = yield* Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" })))
      yield* TestClock.adjust("50 millis")
      const b = yield* Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" })))
      yield* TestClock.adjust("1 second")
      const fieldsOf = (error: A2AError.A2AError) => ({
        _tag: error._tag,
        messageId: Reflect.get(error, "messageId"),
        step: Reflect.get(error, "step"),
        messageMayHaveBeenSent: Reflect.get(error, "messageMayHaveBeenSent")
      })
      const shared = { _tag: "A2ATransportError", step: "resolve-runtime-access" }
      expect(fieldsOf(yield* Fiber.join(a))).toEqual({ ...shared, messageId: "m-a", messageMayHaveBeenSent: true })
      expect(fieldsOf(yield* Fiber.join(b))).toEqual({ ...shared, messageId: "m-b", messageMayHaveBeenSent: false })
      expect((yield* runtimeSends).map((s) => [s.messageId, s.status])).toEqual([["m-w", 200], ["m-a", 401]])
    }).pipe(Effect.provide(clientOver(dropped, [session()])))
  })
})

// A cache across the network: it reads its entries when asked and answers 10 ms later; a read cut short takes
// 5 ms more to cancel (a cache of the user's own, so no store share cuts it loose). Writes and removals are at once.
const lateAnswers = Layer.effect(
  RuntimeAccessCache.RuntimeAccessCache,
  Effect.map(
    Effect.flatMap(RuntimeAccessCache.makeMemoryStore, RuntimeAccessCache.make),
    (cache): RuntimeAccessCache.Service => ({
      ...cache,
      get: (key, deadlineMillis) =>
        Effect.zipLeft(
          cache.get(key, deadlineMillis),
          Effect.onInterrupt(Effect.sleep("10 millis"), () => Effect.sleep("5 millis"))
        )
    })
  )
)

// SPEC §6: a resolution looks at the cache once more before it resolves, so a call whose read missed while
// another resolution was about to cache access does not resolve again; after a runtime 401 it does not look
// (SPEC §1.5: fresh access), so the refresh resolves at once.
describe("the cache once more at the start of a resolution, with a store that answers later", () => {
  it.effect("a call whose read missed just before another resolution cached access uses that access", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // m-a: cache read at 0 (miss, answered at 10 ms), its resolution's read at 10 ms (miss), resolve at 20 ms
      const a = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      yield* TestClock.adjust("15 millis")
      // m-b: read at 15 ms (miss, answered at 25 ms, after m-a's resolution ended): it starts a resolution of
      // its own, whose read at 25 ms finds m-a's access
      const b = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }))
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(a)).role).toBe("ROLE_AGENT")
      expect((yield* Fiber.join(b)).role).toBe("ROLE_AGENT")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([20])
      const sends = (yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status, s.tokenLabel])
      expect(sends).toEqual([["m-a", 20, 200, sends[0]?.[3]], ["m-b", 35, 200, sends[0]?.[3]]])
    }).pipe(Effect.provide(withCache(lateAnswers, [session()]))))

  it.effect("the refresh after a 401 resolves as soon as the rejected access is dropped, without reading the cache again", () =>
    Effect.gen(function*() {
      const a2a = yield* sentOnceThenTokenRotated
      // m-2: read at 1 s (hit), 401 at 1.01 s; the drop reads at 1.01 s, the replacement check at 1.02 s (a
      // miss, answered at 1.03 s): the fresh resolve goes out then
      const again = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-2" }), "1 second")
      expect(again.error).toBeUndefined()
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status])).toEqual([
        ["m-1", 20, 200],
        ["m-2", 1010, 401],
        ["m-2", 1030, 200]
      ])
      expect((yield* resolves).map((r) => r.atMs)).toEqual([20, 1030])
    }).pipe(Effect.provide(withCache(lateAnswers, [session()]))))
})

// SPEC §6: the session's resolution stops when its last call leaves; a call that comes while the stopped one is
// still ending starts a new one, and that one stays the session's: later calls join it.
describe("a new resolution while the stopped one is still ending", () => {
  it.effect("the old one's end neither takes the new one off the session nor hands its outcome to the new calls", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // m-l: read 0–10 ms (miss), starts the resolution, whose read runs from 10 ms
      const leaving = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "l", messageId: "m-l" }))
      yield* TestClock.adjust("8 millis")
      // m-c: read 8–18 ms (miss)
      const c = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "c", messageId: "m-c" }))
      yield* TestClock.adjust("7 millis")
      // m-l goes at 15 ms: the resolution stops; its read takes until 20 ms to cancel
      yield* Fiber.interruptFork(leaving)
      yield* TestClock.adjust("6 millis")
      // m-c started a new resolution at 18 ms (read 18–28 ms, resolve at 28 ms, answered at 128 ms); the old
      // one ended at 20 ms. m-d: read 21–31 ms (miss), then joins the new resolution
      const d = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "d", messageId: "m-d" }))
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(c)).role).toBe("ROLE_AGENT")
      expect((yield* Fiber.join(d)).role).toBe("ROLE_AGENT")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([28])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status])).toEqual([
        ["m-c", 128, 200],
        ["m-d", 128, 200]
      ])
    }).pipe(Effect.provide(withCache(lateAnswers, [session({ backend: { resolveDelay: 100 } })]))))
})

// SPEC §1.5/§6: a token the runtime rejected stays refused while a call to the session is in flight, also after
// the refresh admitted another one.
describe("a rejected token after the refresh admitted another", () => {
  // a store across the network whose reads take `latency` ms (the test slows one read down)
  let latency = 10
  const slowReads = Layer.effect(
    RuntimeAccessCache.RuntimeAccessCache,
    Effect.flatMap(
      RuntimeAccessCache.makeMemoryStore,
      (store) =>
        RuntimeAccessCache.make({
          ...store,
          get: (key) => Effect.zipLeft(store.get(key), Effect.suspend(() => Effect.sleep(latency)))
        })
    )
  )

  it.effect("a call that read the token before it was rejected, answered after the refresh, does not send it", () =>
    Effect.gen(function*() {
      const a2a = yield* sentOnceThenTokenRotated
      // m-y: reads the old token at 1 s, 401 at 1.01 s, refreshed at 1.03 s
      const y = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "y", messageId: "m-y" }))
      yield* TestClock.adjust("5 millis")
      // m-x: reads the old token at 1.005 s, its read answered at 1.105 s
      latency = 100
      const x = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "x", messageId: "m-x" }))
      yield* TestClock.adjust(0)
      latency = 10
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(y)).role).toBe("ROLE_AGENT")
      expect((yield* Fiber.join(x)).role).toBe("ROLE_AGENT")
      const sends = (yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status, s.tokenLabel])
      const [old, fresh] = [sends[0]?.[3], sends[2]?.[3]]
      expect(old).not.toBe(fresh)
      // m-x never sends the old token: it refuses what it read and takes what the refresh admitted (1.105 s)
      expect(sends).toEqual([
        ["m-1", 20, 200, old],
        ["m-y", 1010, 401, old],
        ["m-y", 1030, 200, fresh],
        ["m-x", 1105, 200, fresh]
      ])
      expect((yield* resolves).map((r) => r.atMs)).toEqual([20, 1030])
    }).pipe(Effect.provide(withCache(slowReads, [session()]))))
})
