// SPEC §6, the runtime-access cache on the simulated platform.
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import {
  client,
  fakePlatform,
  jsonResponse,
  platform,
  readyAccessForTests,
  resolves,
  runFor,
  runtimeSends,
  sendBodiesConform,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

describe("runtime-access cache on the simulated platform", () => {
  it.effect("keeps admitted access until expires_at − 30 s", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "1" })
      yield* TestClock.adjust("89999 millis")
      yield* a2a.sendA2AMessage(sessionUid, { message: "2" })
      expect(yield* resolves).toHaveLength(1)
      yield* TestClock.adjust("1 millis")
      yield* a2a.sendA2AMessage(sessionUid, { message: "3" })
      expect(yield* resolves).toHaveLength(2)
      expect((yield* runtimeSends).map((s) => s.status)).toEqual([200, 200, 200])
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { ttlSeconds: 120 } })] }))))

  it.effect("without expires_at keeps access for 60 s", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "1" })
      yield* TestClock.adjust("59999 millis")
      yield* a2a.sendA2AMessage(sessionUid, { message: "2" })
      expect(yield* resolves).toHaveLength(1)
      yield* TestClock.adjust("1 millis")
      yield* a2a.sendA2AMessage(sessionUid, { message: "3" })
      expect(yield* resolves).toHaveLength(2)
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { ttlSeconds: null } })] }))))

  it.effect("never holds blocked access: each call after a blocked answer resolves again", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      expect((yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "1" })))._tag).toBe(
        "AgentRuntimeUnavailableError"
      )
      expect((yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "2" })))._tag).toBe(
        "AgentRuntimeUnavailableError"
      )
      expect(yield* resolves).toHaveLength(2)
      yield* p.updateSession(sessionUid, (s) => ({ ...s, access: { _tag: "Ready" } }))
      yield* a2a.sendA2AMessage(sessionUid, { message: "3" })
      expect(yield* resolves).toHaveLength(3)
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "Terminal", state: "update_required" } })]
    }))))

  it.effect("50 concurrent sends to one cold session share exactly one resolve sequence", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const result = yield* runFor(
        Effect.all(
          Array.from({ length: 50 }, (_, i) => a2a.sendA2AMessage(sessionUid, { message: `m${i}` })),
          { concurrency: "unbounded" }
        ),
        "1 minute"
      )
      expect(result.error).toBeUndefined()
      expect(result.value).toHaveLength(50)
      // one sequence: waking at 0 and 1 s, starting at 2 s, ready at 3 s
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000, 2000, 3000])
      const sends = yield* runtimeSends
      expect(sends).toHaveLength(50)
      expect(new Set(sends.map((s) => s.tokenLabel)).size).toBe(1)
      expect(sends.every((s) => s.atMs === 3000)).toBe(true)
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: {
          _tag: "ColdStart",
          phases: [
            { state: "waking", retryAfterMs: 1000, durationMs: 2000 },
            { state: "starting", retryAfterMs: 1000, durationMs: 1000 }
          ]
        }
      })]
    }))))

  it.effect("concurrent calls sharing a failed resolution each report their own message id", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const result = yield* runFor(
        Effect.all(
          ["m-a", "m-b", "m-c"].map((messageId) =>
            Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout: 5 }))
          ),
          { concurrency: "unbounded" }
        ),
        "1 minute"
      )
      expect(result.value?.map((e) => [e._tag, "messageId" in e ? e.messageId : undefined])).toEqual([
        ["AgentRuntimeNotReadyError", "m-a"],
        ["AgentRuntimeNotReadyError", "m-b"],
        ["AgentRuntimeNotReadyError", "m-c"]
      ])
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 2000, 4000])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 2000 } })]
    }))))

  it.effect("a call that joined another call's cold-start wait and runs out of budget → AgentRuntimeNotReadyError", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const result = yield* runFor(
        Effect.all([
          Effect.either(a2a.sendA2AMessage(sessionUid, { message: "first", messageId: "m-long", timeout: 20 })),
          // joins the session's resolution, with a budget that ends during the wait
          Effect.zipRight(
            Effect.yieldNow(),
            Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "second", messageId: "m-short", timeout: 3 }))
          )
        ], { concurrency: "unbounded" }),
        "1 minute"
      )
      const [first, second] = result.value ?? []
      expect(second).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        messageId: "m-short",
        state: "waking",
        retryAfterMs: 1000
      })
      expect(second?.message).toContain("Nothing was sent")
      expect(first?._tag).toBe("Right")
      // one resolve sequence, led by the long call; only its message was sent
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000, 2000, 3000, 4000, 5000])
      expect((yield* runtimeSends).map((s) => s.messageId)).toEqual(["m-long"])
    }).pipe(Effect.provide(simulated({
      sessions: [
        session({ access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 5000 }] } })
      ]
    }))))

  // cold start: 4 phases of 1.5 s, each answered with retry_after_ms 1500 → resolves at 0, 1.5, 3, 4.5 s, ready at 6 s
  const waking1500 = { state: "waking", retryAfterMs: 1500, durationMs: 1500 } as const
  const slowColdStart = session({
    access: {
      _tag: "ColdStart",
      phases: [waking1500, waking1500, waking1500, waking1500]
    }
  })
  // what the platform sees from one call with budget enough to lead the whole wait alone
  const longCallResolves = [0, 1500, 3000, 4500, 6000]

  /** A call's outcome and the simulated millis it took. */
  const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.map(Effect.timed(Effect.either(effect)), ([took, outcome]) => ({ ms: Duration.toMillis(took), outcome }))

  it.effect("a call whose budget no longer fits fails alone; a call whose budget fits waits on in the same wait", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const result = yield* runFor(
        Effect.all([
          timed(a2a.sendA2AMessage(sessionUid, { message: "first", messageId: "m-3s", timeout: 3 })),
          // joins the session's wait
          Effect.zipRight(
            Effect.yieldNow(),
            timed(a2a.sendA2AMessage(sessionUid, { message: "second", messageId: "m-20s", timeout: 20 }))
          )
        ], { concurrency: "unbounded" }),
        "1 minute"
      )
      const [first, second] = result.value ?? []
      // at 1.5 s the next retry (3 s) no longer fits the 3 s budget
      expect(first).toMatchObject({
        ms: 1500,
        outcome: {
          _tag: "Left",
          left: {
            _tag: "AgentRuntimeNotReadyError",
            messageId: "m-3s",
            state: "waking",
            retryAfterMs: 1500,
            remainingMs: 1500
          }
        }
      })
      expect(second).toMatchObject({ ms: 6000, outcome: { _tag: "Right", right: { role: "ROLE_AGENT" } } })
      // the wait went on at 3 s, as the platform asked, not at once when the short call left
      expect((yield* resolves).map((r) => r.atMs)).toEqual(longCallResolves)
      const sends = yield* runtimeSends
      expect(sends.map((s) => [s.messageId, s.atMs])).toEqual([["m-20s", 6000]])
    }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))

  it.effect("calls sharing one cold-start wait each fail or succeed by their own budget (2 s, 5 s, 30 s)", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const send = (seconds: number) =>
        timed(a2a.sendA2AMessage(sessionUid, { message: "x", messageId: `m-${seconds}s`, timeout: seconds }))
      const result = yield* runFor(
        // the 2 s call leads; the 5 s call must leave the wait by itself whichever of the others leads it then
        Effect.all(
          [send(2), Effect.zipRight(Effect.yieldNow(), send(30)), Effect.zipRight(Effect.yieldNow(), send(5))],
          {
            concurrency: "unbounded"
          }
        ),
        "1 minute"
      )
      const [short, long, medium] = result.value ?? []
      const notReady = (messageId: string, remainingMs: number) => ({
        _tag: "Left",
        left: { _tag: "AgentRuntimeNotReadyError", messageId, retryAfterMs: 1500, remainingMs }
      })
      // each fails at the first answer whose next retry does not fit its own budget
      expect(short).toMatchObject({ ms: 1500, outcome: notReady("m-2s", 500) })
      expect(medium).toMatchObject({ ms: 4500, outcome: notReady("m-5s", 500) })
      expect(long).toMatchObject({ ms: 6000, outcome: { _tag: "Right", right: { role: "ROLE_AGENT" } } })
      expect((yield* resolves).map((r) => r.atMs)).toEqual(longCallResolves)
      expect((yield* runtimeSends).map((s) => s.messageId)).toEqual(["m-30s"])
    }).pipe(Effect.provide(simulated({ sessions: [slowColdStart] }))))

  it.effect("a username-scoped cache serves repeated sends from one resolve", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "1" })
      yield* a2a.sendA2AMessage(sessionUid, { message: "2" })
      expect(yield* resolves).toHaveLength(1)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }, { username: "alice" }))))
})

describe("RuntimeAccessCache.layerStore", () => {
  const stalled: RuntimeAccessCache.RuntimeAccessStore = {
    get: () => Effect.never,
    set: () => Effect.never,
    remove: () => Effect.never
  }
  type Client = A2AClient.A2AClient["Type"]
  const calls: ReadonlyArray<readonly [string, (a2a: Client) => Effect.Effect<unknown, unknown>, object]> = [
    ["a send", (a2a: Client) => a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: 10 }), { error: undefined }],
    [
      "a Task get",
      (a2a: Client) => a2a.getA2ATask(sessionUid, "task-1", { timeout: 10 }),
      // it reached the runtime, which knows no such Task
      { error: { _tag: "TaskNotFoundError" } }
    ]
  ]
  for (const [name, call, outcome] of calls) {
    it.effect(`${name} over a stalled store: each operation a miss after a tenth of the time left, never a failure`, () => {
      const simulation = layerTest({ sessions: [session()] })
      const layer = A2AClient.layer({
        backendUrl: SimulatedPlatform.defaultBaseUrl,
        accessToken: SimulatedPlatform.defaultUserAccessToken
      }).pipe(Layer.provideMerge(Layer.merge(simulation, RuntimeAccessCache.layerStore(stalled))), Layer.orDie)
      return Effect.gen(function*() {
        const result = yield* runFor(Effect.flatMap(A2AClient.A2AClient, call), "10 seconds")
        // the lookup 1 s of 10, the resolution's second look 0.9 s of 9, its write 0.81 s of 8.1
        expect(result.millis).toBe(2710)
        expect({ error: result.error }).toMatchObject(outcome)
        expect(yield* resolves).toHaveLength(1)
      }).pipe(Effect.provide(layer))
    })
  }

  it.effect("the resolution's write to a stalled store costs each waiting call no more than its own share", () => {
    const writeStalls: RuntimeAccessCache.RuntimeAccessStore = {
      get: () => Effect.succeedNone,
      set: () => Effect.never,
      remove: () => Effect.never
    }
    const waking = session({
      access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 1000 }] }
    })
    const layer = A2AClient.layer({
      backendUrl: SimulatedPlatform.defaultBaseUrl,
      accessToken: SimulatedPlatform.defaultUserAccessToken
    }).pipe(
      Layer.provideMerge(Layer.merge(layerTest({ sessions: [waking] }), RuntimeAccessCache.layerStore(writeStalls)))
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const timed = (messageId: string, timeout: number) =>
        Effect.map(
          Effect.timed(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout })),
          ([took]) => [messageId, Duration.toMillis(took)]
        )
      // the 100 s call starts the resolution, the 4 s call joins it; admitted at 1 s, the write given 0.3 s
      const result = yield* runFor(
        Effect.all([timed("m-100s", 100), Effect.zipRight(Effect.yieldNow(), timed("m-4s", 4))], {
          concurrency: "unbounded"
        }),
        "2 minutes"
      )
      expect(result.value).toEqual([["m-100s", 1300], ["m-4s", 1300]])
    }).pipe(Effect.provide(layer))
  })

  // Every operation answers after 50 ms; a read answers what the store held when it started.
  const slowStore = (): RuntimeAccessCache.RuntimeAccessStore => {
    const entries = new Map<string, RuntimeAccessCache.CachedRuntimeAccess>()
    return {
      get: (key) => Effect.delay(Effect.succeed(Option.fromNullable(entries.get(key))), "50 millis"),
      set: (key, access) => Effect.delay(Effect.sync(() => void entries.set(key, access)), "50 millis"),
      remove: (key) => Effect.delay(Effect.sync(() => void entries.delete(key)), "50 millis")
    }
  }

  it.effect("concurrent calls whose token was rejected share one fresh resolve over a slow shared store too", () => {
    const layer = A2AClient.layer({
      backendUrl: SimulatedPlatform.defaultBaseUrl,
      accessToken: SimulatedPlatform.defaultUserAccessToken
    }).pipe(
      Layer.provideMerge(Layer.merge(layerTest({ sessions: [session()] }), RuntimeAccessCache.layerStore(slowStore())))
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "warm" }), "1 second")
      yield* (yield* platform).rotateRuntimeToken(sessionUid)
      // m-b reads the store after m-a's fresh resolve admitted, before its write landed
      const later = Effect.delay(a2a.sendA2AMessage(sessionUid, { message: "x", messageId: "m-b" }), "60 millis")
      const result = yield* runFor(
        Effect.all([a2a.sendA2AMessage(sessionUid, { message: "x", messageId: "m-a" }), later], {
          concurrency: "unbounded"
        }),
        "1 second"
      )
      expect(result.error).toBeUndefined()
      expect(yield* resolves).toHaveLength(2)
      // m-b never sends the token m-a saw rejected
      expect((yield* runtimeSends).map((s) => s.status)).toEqual([200, 401, 200, 200])
    }).pipe(Effect.provide(layer))
  })

  // The backend admits `t-1`, `t-2`, … in turn (the n-th valid `validSeconds(n)` past the 30 s skew, else without
  // `expires_at`); the runtime answers the n-th request with `runtime`. The store answers at once unless given.
  const tokensInTurn = (
    runtime: (
      request: HttpClientRequest.HttpClientRequest,
      n: number
    ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>,
    options: {
      readonly store?: RuntimeAccessCache.RuntimeAccessStore
      readonly validSeconds?: (n: number) => number
    } = {}
  ) => {
    const entries = new Map<string, RuntimeAccessCache.CachedRuntimeAccess>()
    const seen = { resolves: 0, tokens: new Array<string | undefined>() }
    const answer = (request: HttpClientRequest.HttpClientRequest) => {
      if (request.url.startsWith("https://runtime.example/")) {
        seen.tokens.push(request.headers.authorization?.replace("Bearer ", ""))
        return runtime(request, seen.tokens.length)
      }
      seen.resolves += 1
      const n = seen.resolves
      return Effect.map(Clock.currentTimeMillis, (now) =>
        jsonResponse(request, 200, {
          ...readyAccessForTests,
          token: `t-${n}`,
          expires_at: options.validSeconds === undefined
            ? null
            : new Date(now + RuntimeAccessCache.expirySkewMillis + options.validSeconds(n) * 1000).toISOString()
        }))
    }
    const store: RuntimeAccessCache.RuntimeAccessStore = options.store ?? {
      get: (key) => Effect.sync(() => Option.fromNullable(entries.get(key))),
      set: (key, access) => Effect.sync(() => void entries.set(key, access)),
      remove: (key) => Effect.sync(() => void entries.delete(key))
    }
    const layer = A2AClient.layer({ backendUrl: "https://backend.example", accessToken: Redacted.make("user-token") })
      .pipe(
        Layer.provide(
          Layer.merge(
            Layer.succeed(HttpClient.HttpClient, HttpClient.make(answer)),
            RuntimeAccessCache.layerStore(store)
          )
        )
      )
    // What another process does: it stores `token` as the session's access.
    const storeFromAnotherProcess = (token: string) => {
      for (const [key, access] of entries) entries.set(key, { ...access, token: Redacted.make(token) })
    }
    return { layer, seen, entries, storeFromAnotherProcess }
  }
  const agentAnswer = (request: HttpClientRequest.HttpClientRequest) =>
    Effect.succeed(jsonResponse(request, 200, {
      message: { role: "ROLE_AGENT", messageId: "a-1", contextId: sessionUid, parts: [{ text: "ok" }] }
    }))
  const refused = (request: HttpClientRequest.HttpClientRequest) =>
    Effect.fail(
      new HttpClientError.RequestError({
        request,
        reason: "Transport",
        cause: Object.assign(new Error("ECONNREFUSED"), { code: "ECONNREFUSED" })
      })
    )
  const rejects = (request: HttpClientRequest.HttpClientRequest) => Effect.succeed(jsonResponse(request, 401, {}))
  const rotatedOut = (request: HttpClientRequest.HttpClientRequest) =>
    /t-1|t-other/.test(request.headers.authorization ?? "")
  // `first` sent at once and `second` after `gap`: their outcomes once `advance` has passed
  const sendStaggered = (
    a2a: Client,
    [first, second]: readonly [string, string],
    gap: Duration.DurationInput,
    advance: Duration.DurationInput
  ) => {
    const send = (messageId: string) => Effect.either(a2a.sendA2AMessage(sessionUid, { message: "x", messageId }))
    const both = Effect.all([send(first), Effect.delay(send(second), gap)], { concurrency: "unbounded" })
    return Effect.map(runFor(both, advance), ({ value }) => value)
  }
  // m-long (the runtime's first request, answered after 10 s) holds the session's state with t-1; after 1 s
  // another process stores t-other, and `during` runs
  const whileAnotherProcessStores = <A, E>(
    platform: ReturnType<typeof tokensInTurn>,
    during: (a2a: Client) => Effect.Effect<A, E>
  ) =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const long = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "long", messageId: "m-long" }))
      yield* TestClock.adjust("1 second")
      platform.storeFromAnotherProcess("t-other")
      const result = yield* during(a2a)
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(long)
      return result
    }).pipe(Effect.provide(platform.layer))

  it.effect("a call whose token was rejected never takes fresh access whose runtime another call found unreachable", () => {
    const platform = tokensInTurn(
      (request, n) => n === 2 ? rejects(request) : n === 3 ? refused(request) : agentAnswer(request),
      { store: slowStore() }
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "warm" }), "1 second")
      // m-b refuses the rejected t-1 it read at 110 ms and resolves t-2, unreachable at 160 ms; m-a, refused at
      // 50 ms, looks for fresh access from 200 ms on
      expect(yield* sendStaggered(a2a, ["m-a", "m-b"], "60 millis", "1 second")).toMatchObject([
        { right: { role: "ROLE_AGENT" } },
        { left: { _tag: "A2ATransportError", messageId: "m-b" } }
      ])
      expect(platform.seen.tokens).toEqual(["t-1", "t-1", "t-2", "t-3"])
    }).pipe(Effect.provide(platform.layer))
  })

  it.effect("a call refused after another call found the runtime unreachable resolves afresh", () => {
    // m-long holds t-1 and the session; m-c's t-other is refused at 2 s, m-d's t-other unreachable at 1.5 s
    const platform = tokensInTurn((request, n) =>
      n === 1
        ? Effect.delay(agentAnswer(request), "10 seconds")
        : n === 2
        ? Effect.delay(rejects(request), "1 second")
        : n === 3
        ? refused(request)
        : agentAnswer(request)
    )
    return whileAnotherProcessStores(platform, (a2a) =>
      Effect.gen(function*() {
        expect(yield* sendStaggered(a2a, ["m-c", "m-d"], "500 millis", "2 seconds")).toMatchObject([
          { right: { role: "ROLE_AGENT" } },
          { left: { _tag: "A2ATransportError", messageId: "m-d" } }
        ])
        expect(platform.seen.tokens).toEqual(["t-1", "t-other", "t-other", "t-2"])
      }))
  })

  it.effect("a call refused with another process's token resolves afresh, never falling back to an older access", () => {
    // after m-long's request the runtime refuses t-1 and t-other
    const platform = tokensInTurn((request, n) =>
      n === 1
        ? Effect.delay(agentAnswer(request), "10 seconds")
        : rotatedOut(request)
        ? rejects(request)
        : agentAnswer(request)
    )
    return whileAnotherProcessStores(platform, (a2a) =>
      Effect.gen(function*() {
        const result = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "x", messageId: "m-c" }), "1 second")
        expect(result.value).toMatchObject({ role: "ROLE_AGENT" })
        expect(platform.seen.tokens).toEqual(["t-1", "t-other", "t-2"])
      }))
  })

  it.effect("a Task wait refused on a later get resolves afresh, never falling back to what its first get used", () => {
    const task = (state: string) => ({ id: "task-1", contextId: sessionUid, status: { state } })
    // the first get (t-1) finds the Task working; then the runtime refuses t-1 and t-other
    const platform = tokensInTurn((request, n) =>
      n === 1
        ? Effect.succeed(jsonResponse(request, 200, task("TASK_STATE_WORKING")))
        : rotatedOut(request)
        ? rejects(request)
        : Effect.succeed(jsonResponse(request, 200, task("TASK_STATE_COMPLETED")))
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const wait = yield* Effect.fork(a2a.waitForA2ATask(sessionUid, "task-1"))
      yield* TestClock.adjust("500 millis")
      platform.storeFromAnotherProcess("t-other")
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(wait)).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" } })
      expect(platform.seen.tokens).toEqual(["t-1", "t-other", "t-2"])
    }).pipe(Effect.provide(platform.layer))
  })

  it.effect("fresh access that expired before a refused call looks for it is not taken", () => {
    // m-c's t-other is refused at exactly 1.5 s, when m-a's t-2 (admitted at 0.5 s, valid 1 s) expires
    const platform = tokensInTurn(
      (request, n) => n === 2 ? Effect.delay(rejects(request), "1500 millis") : agentAnswer(request),
      { validSeconds: (n) => n === 2 ? 1 : 3600 }
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "warm" }), "1 second")
      platform.storeFromAnotherProcess("t-other")
      const c = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "x", messageId: "m-c" }))
      yield* TestClock.adjust("500 millis")
      platform.entries.clear()
      yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "y", messageId: "m-a" }))
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(c)).role).toBe("ROLE_AGENT")
      expect(platform.seen.tokens).toEqual(["t-1", "t-other", "t-2", "t-3"])
    }).pipe(Effect.provide(platform.layer))
  })

  it.effect("persists admitted access through the store, removes it on a runtime 401, never stores blocked access", () =>
    Effect.gen(function*() {
      const entries = new Map<string, RuntimeAccessCache.CachedRuntimeAccess>()
      const calls: Array<string> = []
      const store: RuntimeAccessCache.RuntimeAccessStore = {
        get: (key) => Effect.sync(() => Option.fromNullable(entries.get(key))),
        set: (key, access) => Effect.sync(() => void (calls.push("set"), entries.set(key, access))),
        remove: (key) => Effect.sync(() => void (calls.push("remove"), entries.delete(key)))
      }
      const simulation = layerTest({ sessions: [session({ token: { rejectFirstSends: 1 } })] })
      const layer = A2AClient.layer({
        backendUrl: SimulatedPlatform.defaultBaseUrl,
        accessToken: SimulatedPlatform.defaultUserAccessToken
      }).pipe(
        Layer.provideMerge(Layer.merge(simulation, RuntimeAccessCache.layerStore(store))),
        Layer.merge(Layer.provide(sendBodiesConform, simulation)),
        Layer.orDie
      )
      yield* Effect.gen(function*() {
        const a2a = yield* A2AClient.A2AClient
        const platform = yield* SimulatedPlatform.SimulatedPlatform
        yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
        expect(calls).toEqual(["set", "remove", "set"])
        const [key, stored] = [...entries][0] ?? []
        expect(key).toMatch(/^[0-9a-f]{64}$/)
        expect(key).not.toContain(sessionUid)
        expect(Redacted.isRedacted(stored?.token)).toBe(true)
        expect(JSON.stringify(stored)).not.toContain(Redacted.value(SimulatedPlatform.defaultUserAccessToken))
        // a blocked answer is never stored
        entries.clear()
        yield* platform.updateSession(
          sessionUid,
          (s) => ({ ...s, access: { _tag: "Terminal", state: "update_required" } })
        )
        yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
        expect(entries.size).toBe(0)
      }).pipe(Effect.provide(layer))
    }))
})

// SPEC §6 leaves it open; a runtime that moved must not fail every send until its access expires.
describe("an unreachable runtime drops the cached access", () => {
  it.effect("a refused connection (a real socket): the next call resolves again and reaches the new address", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const refused = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "1" }))
      expect(refused).toMatchObject({ _tag: "A2ATransportError", code: "ECONNREFUSED" })
      yield* p.updateSession(sessionUid, ({ rpcUrl: _moved, ...rest }) => rest)
      yield* a2a.sendA2AMessage(sessionUid, { message: "2" })
      expect(yield* resolves).toHaveLength(2)
      expect((yield* runtimeSends).map((s) => s.status)).toEqual([200])
    }).pipe(Effect.provide(simulated({ sessions: [session({ rpcUrl: "http://127.0.0.1:9/runtime/" })] }))))

  const connectFailures = [
    ["ENOTFOUND", "A2ATransportError"],
    ["UND_ERR_CONNECT_TIMEOUT", "A2ATimeoutError"]
  ] as const
  for (const [code, tag] of connectFailures) {
    it.effect(`${code}: the next call resolves again`, () => {
      const backendPaths: Array<string> = []
      let runtimeRequests = 0
      return Effect.gen(function*() {
        const a2a = yield* A2AClient.A2AClient
        const first = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "1", timeout: [5, 10] }))
        expect(first._tag).toBe(tag)
        yield* a2a.sendA2AMessage(sessionUid, { message: "2" })
        expect(backendPaths.filter((path) => path.endsWith("/resolve-runtime-access/"))).toHaveLength(2)
      }).pipe(Effect.provide(fakePlatform((request) => {
        if (!request.url.startsWith("https://runtime.example/")) {
          backendPaths.push(new URL(request.url).pathname)
          return Effect.succeed(jsonResponse(request, 200, readyAccessForTests))
        }
        return runtimeRequests++ === 0
          ? Effect.fail(
            new HttpClientError.RequestError({
              request,
              reason: "Transport",
              cause: Object.assign(new Error(code), { code })
            })
          )
          : Effect.succeed(jsonResponse(request, 200, {
            message: { role: "ROLE_AGENT", messageId: "a-1", contextId: sessionUid, parts: [{ text: "ok" }] }
          }))
      })))
    })
  }

  it.effect("a connection dropped after the request keeps the access: the runtime was reached", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const dropped = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "1" }))
      expect(dropped).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: true })
      yield* a2a.sendA2AMessage(sessionUid, { message: "2" })
      expect(yield* resolves).toHaveLength(1)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { script: [{ _tag: "ConnectionFailure" }] } })]
    }))))
})
