import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as RuntimeAccess from "../src/RuntimeAccess.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"

const decide = (answer: unknown) =>
  RuntimeAccess.decide(Schema.decodeUnknownSync(RuntimeAccess.ResolveRuntimeAccessAnswer)(answer))

const ready = {
  coding_agent_service_uid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
  mode: "token",
  rpc_url: "https://rt.example/base/",
  token: "secret-runtime-token",
  expires_at: null,
  runtime_interaction: { state: "ready", can_submit: true, notice: null, operation: null, retry_after_ms: null },
  runtime_presence: { phase: "serving", detail: "serving" },
  somethingNew: { kept: true }
}

describe("RuntimeAccess.decide", () => {
  it("admits on can_submit, with the token redacted and unknown keys kept", () => {
    const answer = Schema.decodeUnknownSync(RuntimeAccess.ResolveRuntimeAccessAnswer)(ready)
    expect(answer["somethingNew"]).toEqual({ kept: true })
    const decision = Either.getOrThrow(RuntimeAccess.decide(answer))
    expect(decision._tag).toBe("Admitted")
    if (decision._tag === "Admitted") {
      expect(Redacted.value(decision.token)).toBe("secret-runtime-token")
      expect(String(decision.token)).not.toContain("secret")
      expect(JSON.stringify(decision)).not.toContain("secret")
    }
  })

  it("admits a warning state; refuses can_submit without token access as a contract error", () => {
    const warning = decide({ ...ready, runtime_interaction: { ...ready.runtime_interaction, state: "warning" } })
    expect(Either.getOrThrow(warning)._tag).toBe("Admitted")
    expect(Either.isLeft(decide({ ...ready, mode: "unavailable" }))).toBe(true)
    expect(Either.isLeft(decide({ ...ready, rpc_url: " " }))).toBe(true)
    expect(Either.isLeft(decide({ ...ready, token: null }))).toBe(true)
  })

  it("transient with a numeric retry waits (at least 100 ms); anything else blocked is terminal", () => {
    const blocked = (state: string, retry: number | null) => ({
      mode: "unavailable",
      rpc_url: null,
      token: null,
      runtime_interaction: { state, can_submit: false, notice: null, retry_after_ms: retry },
      detail: "why"
    })
    const waking = Either.getOrThrow(decide(blocked("waking", 1500)))
    expect(waking).toMatchObject({ _tag: "Transient", state: "waking", retryAfterMs: 1500 })
    expect(Either.getOrThrow(decide(blocked("checking", 5)))).toMatchObject({ retryAfterMs: 100 })
    expect(Either.getOrThrow(decide(blocked("starting", null)))._tag).toBe("Terminal")
    expect(Either.getOrThrow(decide(blocked("update_required", 1000)))).toMatchObject({
      _tag: "Terminal",
      detail: "why"
    })
  })

  it("a legacy backend without runtime_interaction decides on mode", () => {
    const { runtime_interaction: _, ...legacy } = ready
    expect(Either.getOrThrow(decide(legacy))._tag).toBe("Admitted")
    expect(Either.getOrThrow(decide({ mode: "unavailable", rpc_url: null, token: null }))._tag).toBe("Terminal")
  })
})

const admitted = (expiresAt: string | undefined): RuntimeAccess.Admitted => ({
  _tag: "Admitted",
  rpcUrl: "https://rt.example",
  token: Redacted.make("t"),
  expiresAt,
  serviceUid: undefined,
  state: "ready",
  notice: undefined
})

describe("RuntimeAccessCache", () => {
  it.effect("keeps access until expires_at − 30 s", () =>
    Effect.gen(function*() {
      const cache = yield* RuntimeAccessCache.make(yield* RuntimeAccessCache.makeMemoryStore)
      // TestClock starts at 0 = 1970-01-01T00:00:00Z
      const access = yield* RuntimeAccessCache.fromAdmitted(admitted("1970-01-01T00:05:00Z"))
      expect(access.validUntilMillis).toBe(300_000 - 30_000)
      yield* cache.getOrResolve("k", Effect.succeed(access))
      yield* TestClock.adjust("269 seconds")
      expect(Option.isSome(yield* cache.get("k"))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(Option.isNone(yield* cache.get("k"))).toBe(true)
    }))

  it.effect("falls back to 60 s without expires_at", () =>
    Effect.gen(function*() {
      const cache = yield* RuntimeAccessCache.make(yield* RuntimeAccessCache.makeMemoryStore)
      yield* TestClock.adjust("10 seconds")
      const access = yield* RuntimeAccessCache.fromAdmitted(admitted(undefined))
      expect(access.validUntilMillis).toBe(70_000)
      yield* cache.getOrResolve("k", Effect.succeed(access))
      yield* TestClock.adjust("59999 millis")
      expect(Option.isSome(yield* cache.get("k"))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(Option.isNone(yield* cache.get("k"))).toBe(true)
    }))

  it.effect("invalidate drops the entry; a failed resolution keeps nothing", () =>
    Effect.gen(function*() {
      const cache = yield* RuntimeAccessCache.make(yield* RuntimeAccessCache.makeMemoryStore)
      const access = yield* RuntimeAccessCache.fromAdmitted(admitted(undefined))
      yield* cache.getOrResolve("k", Effect.succeed(access))
      yield* cache.invalidate("k")
      expect(Option.isNone(yield* cache.get("k"))).toBe(true)
      const runs = yield* Ref.make(0)
      const resolve = Effect.zipRight(Ref.update(runs, (n) => n + 1), Effect.succeed(access))
      yield* cache.getOrResolve("k", resolve)
      yield* cache.getOrResolve("k", resolve)
      expect(yield* Ref.get(runs)).toBe(1)
      yield* cache.getOrResolve("k", resolve, { fresh: true })
      expect(yield* Ref.get(runs)).toBe(2)
    }))

  it.effect("concurrent callers share one resolution", () =>
    Effect.gen(function*() {
      const cache = yield* RuntimeAccessCache.make(yield* RuntimeAccessCache.makeMemoryStore)
      const runs = yield* Ref.make(0)
      const gate = yield* Deferred.make<boolean>()
      const access = yield* RuntimeAccessCache.fromAdmitted(admitted(undefined))
      const resolve = Ref.update(runs, (n) => n + 1).pipe(
        Effect.zipRight(Deferred.await(gate)),
        Effect.zipRight(Effect.sleep("2 seconds")),
        Effect.as(access)
      )
      const fiber = yield* Effect.fork(
        Effect.all(Array.from({ length: 50 }, () => cache.getOrResolve("k", resolve)), { concurrency: "unbounded" })
      )
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, true)
      yield* TestClock.adjust("2 seconds")
      const results = yield* Fiber.join(fiber)
      expect(results).toHaveLength(50)
      expect(yield* Ref.get(runs)).toBe(1)
    }))

  it.effect("a follower takes over when the leader is interrupted", () =>
    Effect.gen(function*() {
      const cache = yield* RuntimeAccessCache.make(yield* RuntimeAccessCache.makeMemoryStore)
      const access = yield* RuntimeAccessCache.fromAdmitted(admitted(undefined))
      const resolve = Effect.as(Effect.sleep("5 seconds"), access)
      const leader = yield* Effect.fork(cache.getOrResolve("k", resolve))
      yield* Effect.yieldNow()
      const follower = yield* Effect.fork(cache.getOrResolve("k", resolve))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(leader)
      yield* TestClock.adjust("5 seconds")
      expect((yield* Fiber.join(follower)).rpcUrl).toBe("https://rt.example")
    }))
})
