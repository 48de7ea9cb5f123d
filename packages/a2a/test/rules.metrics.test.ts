import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import type * as MetricState from "effect/MetricState"
import * as TestClock from "effect/TestClock"
import * as Telemetry from "../src/internal/telemetry.js"
import { client, platform, runFor, session, sessionUid, simulated } from "./fixtures.js"

// The metrics of README "Metrics", read after scripted scenarios on the simulated clock. Metrics are global:
// each check is the change a scenario made.

const labels = (record: Record<string, string>) =>
  Object.entries(record).map(([key, value]) => MetricLabel.make(key, value))

const count = (metric: Metric.Metric.Counter<number>, tags: Record<string, string> = {}) =>
  Effect.map(Metric.value(Metric.taggedWithLabels(metric, labels(tags))), (state) => state.count)

const histogram = (metric: Metric.Metric.Histogram<number>, tags: Record<string, string>) =>
  Effect.map(
    Metric.value(Metric.taggedWithLabels(metric, labels(tags))),
    (state: MetricState.MetricState.Histogram) => ({ count: state.count, sum: state.sum })
  )

const host = { "server.address": "platform.sim.mainsequence.test", "server.port": "443" }

/** The change of each reading over `effect`. */
const changeOver = <A, E, Env>(readings: Record<string, Effect.Effect<number>>, effect: Effect.Effect<A, E, Env>) =>
  Effect.gen(function*() {
    const read = Effect.forEach(
      Object.entries(readings),
      ([key, reading]) => Effect.map(reading, (value) => [key, value] as const)
    )
    const before = new Map(yield* read)
    yield* effect
    const after = yield* read
    return Object.fromEntries(after.map(([key, value]) => [key, value - (before.get(key) ?? 0)]))
  })

const send = (messageId: string) =>
  Effect.flatMap(client, (a2a) => runFor(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId }), "5 minutes"))

describe("rules: metrics (OpenTelemetry names, bounded attributes)", () => {
  it.effect("a cold start: resolutions by result, the transient wait and its time, a cache miss, the call and its requests", () =>
    Effect.gen(function*() {
      const backendPost = { "http.request.method": "POST", "a2a.client.peer": "backend", ...host }
      const change = yield* changeOver({
        admitted: count(Telemetry.resolutions, { "a2a.client.resolution.result": "admitted" }),
        transient: count(Telemetry.resolutions, { "a2a.client.resolution.result": "transient" }),
        waits: count(Telemetry.transientWaits),
        waitSeconds: Effect.map(histogram(Telemetry.transientWaitDuration, {}), (h) => h.sum),
        misses: count(Telemetry.cacheLookups, { "a2a.client.cache.result": "miss" }),
        hits: count(Telemetry.cacheLookups, { "a2a.client.cache.result": "hit" }),
        calls: Effect.map(histogram(Telemetry.callDuration, { "a2a.method.name": "SendMessage" }), (h) => h.count),
        callSeconds: Effect.map(histogram(Telemetry.callDuration, { "a2a.method.name": "SendMessage" }), (h) => h.sum),
        resolves: Effect.map(
          histogram(Telemetry.httpRequestDuration, { ...backendPost, "http.response.status_code": "200" }),
          (h) => h.count
        ),
        sends: Effect.map(
          histogram(Telemetry.httpRequestDuration, {
            "http.request.method": "POST",
            "a2a.client.peer": "runtime",
            ...host,
            "http.response.status_code": "200"
          }),
          (h) => h.count
        )
      }, send("m-1"))
      expect(change).toEqual({
        admitted: 1,
        transient: 1,
        waits: 1,
        waitSeconds: 1.5,
        misses: 1,
        hits: 0,
        calls: 1,
        callSeconds: 1.5,
        resolves: 2,
        sends: 1
      })
    }).pipe(
      Effect.provide(simulated({
        sessions: [session({
          access: { _tag: "ColdStart", phases: [{ state: "starting", retryAfterMs: 1500, durationMs: 1000 }] }
        })]
      }))
    ))

  it.effect("a warm send is a cache hit; calls in flight go up and back down", () =>
    Effect.gen(function*() {
      yield* send("m-1")
      const a2a = yield* client
      const inFlight = count(Telemetry.callsActive, { "a2a.method.name": "SendMessage" })
      const change = yield* changeOver({
        hits: count(Telemetry.cacheLookups, { "a2a.client.cache.result": "hit" }),
        misses: count(Telemetry.cacheLookups, { "a2a.client.cache.result": "miss" })
      }, send("m-2"))
      expect(change).toEqual({ hits: 1, misses: 0 })
      const before = yield* inFlight
      const fiber = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "slow", messageId: "m-3" }))
      yield* TestClock.adjust("1 second")
      expect((yield* inFlight) - before).toBe(1)
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      expect((yield* inFlight) - before).toBe(0)
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { workMs: 10_000 } })] }))))

  it.effect("a 401 from the runtime: one credential refresh (peer runtime), the rejected request with error.type 401", () =>
    Effect.gen(function*() {
      const rejected = {
        "http.request.method": "POST",
        "a2a.client.peer": "runtime",
        ...host,
        "http.response.status_code": "401",
        "error.type": "401"
      }
      const change = yield* changeOver({
        runtime: count(Telemetry.credentialRefreshes, { "a2a.client.peer": "runtime" }),
        backend: count(Telemetry.credentialRefreshes, { "a2a.client.peer": "backend" }),
        rejected: Effect.map(histogram(Telemetry.httpRequestDuration, rejected), (h) => h.count)
      }, send("m-1"))
      expect(change).toEqual({ runtime: 1, backend: 0, rejected: 1 })
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { rejectFirstSends: 1 } })] }))))

  it.effect("the Message limit: counted, and the call's duration by error.type", () =>
    Effect.gen(function*() {
      const failed = { "a2a.method.name": "SendMessage", "error.type": "A2AMessageLimitExceededError" }
      const change = yield* changeOver({
        limits: count(Telemetry.messageLimitAnswers),
        failed: Effect.map(histogram(Telemetry.callDuration, failed), (h) => h.count),
        seconds: Effect.map(histogram(Telemetry.callDuration, failed), (h) => h.sum)
      }, send("m-1"))
      expect(change).toEqual({ limits: 1, failed: 1, seconds: 90 })
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { workMs: 120_000 } })] }))))

  it.effect("no metric attribute holds a token, a URL path or an id", () =>
    Effect.gen(function*() {
      yield* send("m-secret-id")
      const p = yield* platform
      const log = yield* p.requestLog
      const tokens = log.map((entry) => entry.headers["authorization"]?.replace(/^Bearer /, "") ?? "")
        .filter((token) => token !== "")
      expect(tokens.length).toBeGreaterThan(1)
      const values = Metric.unsafeSnapshot().flatMap((pair) =>
        pair.metricKey.name.startsWith("a2a.") || pair.metricKey.name.startsWith("http.")
          ? pair.metricKey.tags.map((tag) => tag.value)
          : []
      )
      expect(values.length).toBeGreaterThan(10)
      for (const value of values) {
        expect(value).not.toContain("/")
        expect(value).not.toContain(sessionUid)
        expect(value).not.toContain("m-secret-id")
        for (const token of tokens) expect(value).not.toContain(token)
        expect(value).not.toContain("user-token")
      }
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { rejectFirstSends: 1 } })] }))))
})
