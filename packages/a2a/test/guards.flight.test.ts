import * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import * as Timeout from "../src/Timeout.js"
import { client, platform, resolves, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const ids = ["m-1", "m-2", "m-3"] as const

/** Three sends started together; their errors once the TestClock moved a minute ahead. */
const threeTogether = Effect.gen(function*() {
  const a2a = yield* client
  const fibers = yield* Effect.forEach(
    ids,
    (messageId) => Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId }))),
    { concurrency: "unbounded" }
  )
  yield* TestClock.adjust("1 minute")
  return yield* Effect.forEach(fibers, Fiber.join)
})

// SPEC §6: calls that join a session's resolution share its outcome, a failure included: the followers do
// not resolve again, and each reports its own ids.
describe("guards: followers of a failed shared resolution", () => {
  it.effect("terminal update_required: three calls, one resolve, each error with its own messageId", () =>
    Effect.gen(function*() {
      const errors = yield* threeTogether
      expect(errors).toEqual(ids.map((messageId) =>
        expect.objectContaining({
          _tag: "AgentRuntimeUnavailableError",
          agentSessionUid: sessionUid,
          messageId,
          state: "update_required",
          presenceDetail: "The runtime is not deployed."
        })
      ))
      expect(yield* resolves).toHaveLength(1)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: { _tag: "Terminal", state: "update_required" },
        backend: { resolveDelay: 100 }
      })]
    }))))

  it.effect("a backend 404 on resolve: three calls, one resolve, each SessionNotFoundError with its own messageId", () =>
    Effect.gen(function*() {
      const errors = yield* threeTogether
      expect(errors).toEqual(ids.map((messageId) =>
        expect.objectContaining({
          _tag: "SessionNotFoundError",
          agentSessionUid: sessionUid,
          messageId,
          status: 404
        })
      ))
      expect((yield* resolves).map((r) => r.status)).toEqual([404])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ backend: { resolveDelay: 100, resolveFault: { status: 404, detail: "No such session." } } })]
    }))))
})

// SPEC §6: a 401 for a token another call already replaced drops nothing new and resolves nothing: the call
// resends once with the replacement, which stays cached.
describe("guards: a late 401 after another call already refreshed", () => {
  // The simulated platform, with one runtime request held in transit for a second (network latency).
  let holdNext = false
  const slowNetwork = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (http) =>
      HttpClient.make((request) => {
        const hold = holdNext && request.url.endsWith("/message:send")
        if (hold) holdNext = false
        return hold ? Effect.delay(http.execute(request), "1 second") : http.execute(request)
      }))
  )
  const simulation = Layer.merge(
    layerTest({ sessions: [session()] }),
    RuntimeAccessCache.layerMemory
  )
  const layer = A2AClient.layer({
    backendUrl: SimulatedPlatform.defaultBaseUrl,
    accessToken: SimulatedPlatform.defaultUserAccessToken
  }).pipe(
    Layer.provide(Timeout.layerInstantConnect),
    Layer.provide(Layer.provideMerge(slowNetwork, simulation)),
    Layer.provideMerge(simulation),
    Layer.orDie
  )

  it.effect("B's late 401 on T1 resends with A's T2: two resolves in all, T2 still cached", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      yield* a2a.sendA2AMessage(sessionUid, { message: "warm", messageId: "m-w" })
      yield* p.rotateRuntimeToken(sessionUid)
      holdNext = true
      const b = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }))
      yield* TestClock.adjust(0)
      yield* a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" })
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(b)).role).toBe("ROLE_AGENT")
      const sends = (yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status, s.tokenLabel])
      const [t1, t2] = [sends[0]?.[3], sends[2]?.[3]]
      expect(t1).not.toBe(t2)
      expect(sends).toEqual([
        ["m-w", 0, 200, t1],
        ["m-a", 0, 401, t1],
        ["m-a", 0, 200, t2],
        ["m-b", 1000, 401, t1],
        ["m-b", 1000, 200, t2]
      ])
      expect(yield* resolves).toHaveLength(2)
      yield* a2a.sendA2AMessage(sessionUid, { message: "c", messageId: "m-c" })
      expect(yield* resolves).toHaveLength(2)
      expect((yield* runtimeSends).at(-1)?.tokenLabel).toBe(t2)
    }).pipe(Effect.provide(layer)))
})
