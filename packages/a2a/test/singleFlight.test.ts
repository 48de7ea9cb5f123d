import { describe, expect, it } from "@effect/vitest"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
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

/** A memory cache whose other operations `getOrResolve` is built from by `override`. */
const customCache = (
  override: (inner: RuntimeAccessCache.Service) => RuntimeAccessCache.Service["getOrResolve"]
): Layer.Layer<RuntimeAccessCache.RuntimeAccessCache> =>
  Layer.effect(
    RuntimeAccessCache.RuntimeAccessCache,
    Effect.map(
      Effect.flatMap(RuntimeAccessCache.makeMemoryStore, RuntimeAccessCache.make),
      (inner) => RuntimeAccessCache.RuntimeAccessCache.of({ ...inner, getOrResolve: override(inner) })
    )
  )

// SPEC §6: one resolution per session at a time, each call's own budget deciding when it leaves or takes over.
describe("single flight: the session's one shared resolution", () => {
  it.effect("a leader interrupted during the wait hands it over: the joined call resumes it when the platform asked", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const leader = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      yield* TestClock.adjust(0)
      const joined = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }))
      // resolves at 0 and 1.5 s; the wait asked for the next at 3 s
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.interrupt(leader)
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(joined)).role).toBe("ROLE_AGENT")
      // no resolve at 2 s when the leader went: the joined call went on with the same wait
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500, 6000])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-b", 6000]])
    }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))

  it.effect("a call that joins a wait taken over leaves at once when that wait's next retry is past its deadline", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const leader = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      yield* TestClock.adjust(0)
      const joined = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }))
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.interrupt(leader)
      // the joined call now leads the wait, whose next retry is at 3 s; a 0.5 s budget ends at 2.5 s
      const late = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "c", messageId: "m-c", timeout: 0.5 }),
        "1 second"
      )
      expect(late).toMatchObject({
        millis: 0,
        error: { _tag: "AgentRuntimeNotReadyError", messageId: "m-c", state: "waking", remainingMs: 500 }
      })
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(joined)).role).toBe("ROLE_AGENT")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500, 6000])
    }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))

  it.effect("a new call whose budget ends before an abandoned wait's retry resolves at once, without that wait", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // resolves at 0 and 1.5 s; the retry at 3 s does not fit the 2 s budget: the wait is left there
      const first = yield* leaveWaitThenWake("1500 millis")
      expect(first.error).toMatchObject({ _tag: "AgentRuntimeNotReadyError", messageId: "m-a" })
      // a 1 s budget ends at 2.5 s, before the left wait's 3 s: the new call leads its own resolution
      const second = yield* runFor(
        a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 1 }),
        "1 second"
      )
      expect(second.error).toBeUndefined()
      expect(second.millis).toBe(0)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 1500])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status])).toEqual([["m-b", 1500, 200]])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 1500 } })]
    }))))

  it.effect("with a store that answers later, a new short call is not sent away by an abandoned wait", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const first = yield* leaveWaitThenWake("2 seconds")
      expect(first.error).toMatchObject({ _tag: "AgentRuntimeNotReadyError", messageId: "m-a" })
      // the left wait retries at about 3 s; this call's budget ends at 2.5 s, and the store takes a while
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
      [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 1500 } })]
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

// A user-supplied cache service is the client's cache in full: its `getOrResolve` is the single flight.
describe("single flight: a custom RuntimeAccessCache", () => {
  it.effect("every cold send and the refresh after a 401 go through its getOrResolve; its single flight resolves once", () => {
    const calls: Array<boolean> = []
    const recording = customCache((inner) => (key, resolve, options) =>
      Effect.zipRight(Effect.sync(() => calls.push(options?.fresh === true)), inner.getOrResolve(key, resolve, options))
    )
    return Effect.gen(function*() {
      expect(yield* threeColdSends).toEqual(["ROLE_AGENT", "ROLE_AGENT", "ROLE_AGENT"])
      expect(calls).toEqual([false, false, false])
      expect(yield* resolves).toHaveLength(1)
      // a cached access does not ask it; a rejected one asks it for fresh access
      const p = yield* platform
      yield* p.rotateRuntimeToken(sessionUid)
      const a2a = yield* client
      const again = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "again", messageId: "m-4" }), "1 second")
      expect(again.error).toBeUndefined()
      expect(calls).toEqual([false, false, false, true])
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

  it.effect("one without single flight: the client keeps none of its own (three cold sends, three resolves)", () => {
    const eachResolves = customCache((inner) => (key, resolve) =>
      Effect.flatMap(
        inner.get(key),
        Option.match({ onSome: Effect.succeed, onNone: () => Effect.tap(resolve, (access) => inner.set(key, access)) })
      )
    )
    return Effect.gen(function*() {
      expect(yield* threeColdSends).toEqual(["ROLE_AGENT", "ROLE_AGENT", "ROLE_AGENT"])
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 0, 0])
    }).pipe(Effect.provide(withCache(eachResolves, [session({ backend: { resolveDelay: 100 } })])))
  })
})
