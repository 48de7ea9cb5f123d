// SPEC §11, running in production: spans, metrics, the connection policy.
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Tracer from "effect/Tracer"
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import * as A2AClient from "../src/A2AClient.js"
import * as A2AError from "../src/A2AError.js"
import * as A2AProgress from "../src/A2AProgress.js"
import * as Telemetry from "../src/internal/telemetry.js"
import * as Node from "../src/node.js"
import type * as Timeout from "../src/Timeout.js"
import {
  client,
  counterCount,
  histogramOf,
  platform,
  recordSpans,
  refreshUrl,
  resolveUrl,
  runFor,
  runtimeSends,
  serviceUid,
  session,
  sessionUid,
  simulated,
  simulatedWith
} from "./fixtures.js"

// The spans in OpenTelemetry's A2A vocabulary (README, "Spans"): one CLIENT span per call named by its A2A
// method, INTERNAL children for the resolution, the transient wait, the refresh and discovery, and a CLIENT
// span per HTTP request with the HTTP client attributes. Dashboards are built on them.

const host = "platform.sim.mainsequence.test"
const base = `https://${host}`
const runtimeBase = `${base}/runtimes/${serviceUid}/api/a2a/v1`
const server = { "server.address": host, "server.port": 443 }

// Strict: an attribute set to undefined is an attribute a dashboard sees.
const attributesOf = (span: Tracer.Span | undefined) => Object.fromEntries(span?.attributes ?? [])
const named = (spans: ReadonlyArray<Tracer.Span>, name: string) => spans.filter((span) => span.name === name)
const parentOf = (span: Tracer.Span | undefined) =>
  Option.flatMap(Option.fromNullable(span), (s) => Option.map(s.parent, (parent) => parent.spanId))
const stepOf = (step: string) => (span: Tracer.Span) => span.attributes.get("a2a.client.step") === step

describe("rules: the spans of a send (OpenTelemetry A2A and HTTP conventions)", () => {
  it.effect("SendMessage (client) around the resolution (internal) and one HTTP span per request (client)", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(Effect.withTracer(tracer))
      const [root, ...roots] = named(spans, "SendMessage")
      expect(roots).toEqual([])
      expect(root?.kind).toBe("client")
      expect(attributesOf(root)).toStrictEqual({
        "a2a.method.name": "SendMessage",
        "gen_ai.conversation.id": sessionUid,
        "a2a.message.id": "m-1",
        ...server
      })
      const ids = { "gen_ai.conversation.id": sessionUid, "a2a.message.id": "m-1" }
      const [resolution] = named(spans, "a2a.client.resolution")
      expect(resolution?.kind).toBe("internal")
      expect(parentOf(resolution)).toEqual(Option.fromNullable(root?.spanId))
      const [resolve, ...resolvesMore] = named(spans, "a2a.client.resolve_runtime_access")
      expect(resolvesMore).toEqual([])
      expect(resolve?.kind).toBe("internal")
      expect(attributesOf(resolve)).toStrictEqual({ ...ids, "a2a.client.attempt": 1 })
      expect(parentOf(resolve)).toEqual(Option.fromNullable(resolution?.spanId))
      const [resolvePost] = named(spans, "POST").filter(stepOf("resolve-runtime-access"))
      expect(resolvePost?.kind).toBe("client")
      expect(attributesOf(resolvePost)).toStrictEqual({
        ...ids,
        ...server,
        "a2a.client.step": "resolve-runtime-access",
        "http.request.method": "POST",
        "url.full": `${base}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`,
        "http.response.status_code": 200
      })
      expect(parentOf(resolvePost)).toEqual(Option.fromNullable(resolve?.spanId))
      const [post, ...postsMore] = named(spans, "POST").filter(stepOf("send-message"))
      expect(postsMore).toEqual([])
      expect(post?.kind).toBe("client")
      expect(attributesOf(post)).toStrictEqual({
        ...ids,
        ...server,
        "a2a.client.step": "send-message",
        "http.request.method": "POST",
        "url.full": `${runtimeBase}/message:send`,
        "http.response.status_code": 200
      })
      expect(parentOf(post)).toEqual(Option.fromNullable(root?.spanId))
      expect(named(spans, "a2a.client.await_runtime")).toEqual([])
      expect(named(spans, "a2a.client.refresh_credentials")).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a cold send: each transient wait is an a2a.client.await_runtime span with the state and retry_after_ms", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      const fiber = yield* Effect.fork(
        a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(Effect.withTracer(tracer))
      )
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      const waits = named(spans, "a2a.client.await_runtime")
      expect(waits.map((span) => [span.kind, attributesOf(span)])).toStrictEqual([[
        "internal",
        {
          "gen_ai.conversation.id": sessionUid,
          "a2a.message.id": "m-1",
          "a2a.client.attempt": 1,
          "a2a.client.runtime_state": "starting",
          "a2a.client.retry_after_ms": 1500
        }
      ]])
      const [resolution] = named(spans, "a2a.client.resolution")
      expect(waits.map(parentOf)).toEqual([Option.fromNullable(resolution?.spanId)])
      expect(named(spans, "a2a.client.resolve_runtime_access").map((s) => s.attributes.get("a2a.client.attempt")))
        .toEqual([1, 2])
    }).pipe(
      Effect.provide(simulated({
        sessions: [session({
          access: { _tag: "ColdStart", phases: [{ state: "starting", retryAfterMs: 1500, durationMs: 1000 }] }
        })]
      }))
    ))

  it.effect("a call that joins another's resolution waits in a2a.client.join_resolution, linked to the starter's span", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      const send = (messageId: string) =>
        a2a.sendA2AMessage(sessionUid, { message: "hi", messageId }).pipe(Effect.withTracer(tracer))
      const starter = yield* Effect.fork(send("m-1"))
      yield* TestClock.adjust(0)
      const joiner = yield* Effect.fork(send("m-2"))
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(starter)
      yield* Fiber.join(joiner)
      const rootOf = (messageId: string) =>
        named(spans, "SendMessage").find((span) => span.attributes.get("a2a.message.id") === messageId)
      const [starterRoot, joinerRoot] = [rootOf("m-1"), rootOf("m-2")]
      expect(starterRoot?.traceId).not.toBe(joinerRoot?.traceId)
      const [resolution, ...resolutionsMore] = named(spans, "a2a.client.resolution")
      expect(resolutionsMore).toEqual([])
      expect(parentOf(resolution)).toEqual(Option.fromNullable(starterRoot?.spanId))
      const [joined, ...joinedMore] = named(spans, "a2a.client.join_resolution")
      expect(joinedMore).toEqual([])
      expect(joined?.kind).toBe("internal")
      expect(attributesOf(joined)).toStrictEqual({ "gen_ai.conversation.id": sessionUid, "a2a.message.id": "m-2" })
      expect(parentOf(joined)).toEqual(Option.fromNullable(joinerRoot?.spanId))
      expect(joined?.links).toStrictEqual([{ _tag: "SpanLink", span: starterRoot, attributes: {} }])
      expect(joined?.status._tag).toBe("Ended")
    }).pipe(
      Effect.provide(simulated({
        sessions: [session({
          access: { _tag: "ColdStart", phases: [{ state: "starting", retryAfterMs: 1500, durationMs: 1000 }] }
        })]
      }))
    ))

  it.effect("a refreshed send: a2a.client.refresh_credentials, then the resend; the rejected POST has error.type 401", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(Effect.withTracer(tracer))
      const [root] = named(spans, "SendMessage")
      const [refresh, ...refreshes] = named(spans, "a2a.client.refresh_credentials")
      expect(refreshes).toEqual([])
      expect(refresh?.kind).toBe("internal")
      expect(attributesOf(refresh)).toStrictEqual({ "gen_ai.conversation.id": sessionUid, "a2a.message.id": "m-1" })
      expect(parentOf(refresh)).toEqual(Option.fromNullable(root?.spanId))
      const sends = named(spans, "POST").filter(stepOf("send-message"))
      expect(sends.map((span) => [span.attributes.get("http.response.status_code"), span.attributes.get("error.type")]))
        .toEqual([[401, "401"], [200, undefined]])
      expect(root?.attributes.get("error.type")).toBeUndefined()
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { rejectFirstSends: 1 } })] }))))

  it.effect("every span of a send ends with its exit, under the caller's span; the caller's span is current again after", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      yield* TestClock.adjust("1 second")
      const after = yield* Effect.gen(function*() {
        yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" })
        return yield* Effect.currentSpan
      }).pipe(Effect.withSpan("caller"), Effect.withTracer(tracer))
      const [caller] = named(spans, "caller")
      expect(after.spanId).toBe(caller?.spanId)
      const [root] = named(spans, "SendMessage")
      expect(parentOf(root)).toEqual(Option.fromNullable(caller?.spanId))
      const ours = spans.filter((span) => span.name !== "caller")
      expect(ours.length).toBeGreaterThanOrEqual(5)
      for (const span of ours) {
        expect(span.status._tag, span.name).toBe("Ended")
        if (span.status._tag === "Ended") {
          expect(span.status.exit._tag, span.name).toBe("Success")
          expect(span.status.endTime).toBeGreaterThanOrEqual(span.status.startTime)
        }
      }
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a failed send ends SendMessage with the failure and its tag as error.type", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      const error = yield* Effect.flip(
        a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(Effect.withTracer(tracer))
      )
      expect(error._tag).toBe("RuntimeAuthError")
      const [root] = named(spans, "SendMessage")
      expect(root?.status._tag === "Ended" && root.status.exit._tag).toBe("Failure")
      expect(root?.attributes.get("error.type")).toBe("RuntimeAuthError")
      const sends = named(spans, "POST").filter(stepOf("send-message"))
      expect(sends.map((span) => span.status._tag === "Ended" && span.status.exit._tag)).toEqual(["Success", "Success"])
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { rejectFirstSends: 2 } })] }))))

  it.effect("the progress events of a send run under its SendMessage span", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { tracer } = yield* recordSpans
      const seen: Array<string> = []
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(
        Effect.provideService(A2AProgress.A2AProgress, {
          report: (event) =>
            Effect.map(Effect.currentSpan.pipe(Effect.option), (span) => {
              if (event._tag === "MessagePrepared") {
                seen.push(Option.match(span, { onNone: () => "none", onSome: (s) => s.name }))
              }
            })
        }),
        Effect.withTracer(tracer)
      )
      expect(seen).toEqual(["SendMessage"])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

describe("rules: the spans of the Task helpers", () => {
  const taskSession = session({ agent: { taskSupport: true, task: { queuedMs: 0, outcome: "completed" } } })

  const createTask = Effect.flatMap(
    client,
    (a2a) => a2a.sendA2AMessage(sessionUid, { message: "work", messageId: "m-t", responseKind: "task" })
  )

  it.effect("a Task send: SendMessage with a2a.task.id and a2a.task.state, discovery as a2a.client.discover_agent", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recordSpans
      const task = yield* Effect.withTracer(createTask, tracer)
      const [root] = named(spans, "SendMessage")
      expect(attributesOf(root)).toMatchObject({ "a2a.task.id": task.id, "a2a.task.state": task.status.state })
      const [discover] = named(spans, "a2a.client.discover_agent")
      expect(discover?.kind).toBe("internal")
      expect(parentOf(discover)).toEqual(Option.fromNullable(root?.spanId))
      expect(named(spans, "GET").filter(stepOf("discover-agent")).map(parentOf)).toEqual([
        Option.fromNullable(discover?.spanId),
        Option.fromNullable(discover?.spanId)
      ])
    }).pipe(Effect.provide(simulated({ sessions: [taskSession] }))))

  it.effect("GetTask (client) with the Task's id and state; its GET with step get-task", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const task = yield* createTask
      const { spans, tracer } = yield* recordSpans
      yield* a2a.getA2ATask(sessionUid, task.id).pipe(Effect.withTracer(tracer))
      const [root, ...roots] = named(spans, "GetTask")
      expect(roots).toEqual([])
      expect(root?.kind).toBe("client")
      expect(attributesOf(root)).toStrictEqual({
        "a2a.method.name": "GetTask",
        "gen_ai.conversation.id": sessionUid,
        "a2a.task.id": task.id,
        "a2a.task.state": "TASK_STATE_COMPLETED",
        ...server
      })
      const [http] = named(spans, "GET")
      expect(attributesOf(http)).toStrictEqual({
        "gen_ai.conversation.id": sessionUid,
        "a2a.task.id": task.id,
        ...server,
        "a2a.client.step": "get-task",
        "http.request.method": "GET",
        "url.full": `${runtimeBase}/tasks/${task.id}`,
        "http.response.status_code": 200
      })
      expect(parentOf(http)).toEqual(Option.fromNullable(root?.spanId))
    }).pipe(Effect.provide(simulated({ sessions: [taskSession] }))))

  it.effect("CancelTask (client); its POST …:cancel with step cancel-task", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const task = yield* createTask
      const { spans, tracer } = yield* recordSpans
      yield* a2a.cancelA2ATask(sessionUid, task.id).pipe(Effect.withTracer(tracer))
      const [root, ...roots] = named(spans, "CancelTask")
      expect(roots).toEqual([])
      expect(root?.kind).toBe("client")
      expect(attributesOf(root)).toMatchObject({
        "a2a.method.name": "CancelTask",
        "gen_ai.conversation.id": sessionUid,
        "a2a.task.id": task.id,
        "a2a.task.state": "TASK_STATE_CANCELED"
      })
      expect(named(spans, "GetTask")).toEqual([])
      const [http] = named(spans, "POST")
      expect(attributesOf(http)).toMatchObject({
        "a2a.client.step": "cancel-task",
        "url.full": `${runtimeBase}/tasks/${task.id}:cancel`
      })
      expect(parentOf(http)).toEqual(Option.fromNullable(root?.spanId))
    }).pipe(
      Effect.provide(
        simulated({ sessions: [session({ agent: { taskSupport: true, workMs: 60_000, task: { queuedMs: 0 } } })] })
      )
    ))

  it.effect("a2a.client.wait_for_task (internal) around one GetTask per poll, each GET with step wait-task", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const task = yield* createTask
      const { spans, tracer } = yield* recordSpans
      const fiber = yield* Effect.fork(a2a.waitForA2ATask(sessionUid, task.id).pipe(Effect.withTracer(tracer)))
      yield* TestClock.adjust("1 minute")
      const done = yield* Fiber.join(fiber)
      expect(done.status.state).toBe("TASK_STATE_COMPLETED")
      const [root, ...roots] = named(spans, "a2a.client.wait_for_task")
      expect(roots).toEqual([])
      expect(root?.kind).toBe("internal")
      expect(attributesOf(root)).toStrictEqual({ "gen_ai.conversation.id": sessionUid, "a2a.task.id": task.id })
      const polls = named(spans, "GetTask")
      expect(polls.length).toBeGreaterThan(1)
      expect(polls.map((span) => span.attributes.get("a2a.task.id"))).toEqual(polls.map(() => task.id))
      expect(polls.at(-1)?.attributes.get("a2a.task.state")).toBe("TASK_STATE_COMPLETED")
      expect(named(spans, "GET").map((span) => span.attributes.get("a2a.client.step"))).toEqual(
        polls.map(() => "wait-task")
      )
      expect(polls.map(parentOf)).toEqual(polls.map(() => Option.fromNullable(root?.spanId)))
    }).pipe(
      Effect.provide(
        simulated({
          sessions: [
            session({ agent: { taskSupport: true, workMs: 3000, task: { queuedMs: 0, outcome: "completed" } } })
          ]
        })
      )
    ))
})

// The W3C trace context of each request's own span goes out on it, with any tracer (Effect's built-in one
// records nothing, but its spans have ids).
describe("rules: trace context on the wire", () => {
  it.effect("built-in tracer: the send still carries the traceparent of its own POST span", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" })
      const [send] = yield* runtimeSends
      expect(send?.headers["traceparent"]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
      const [, traceId, spanId] = (send?.headers["traceparent"] ?? "").split("-")
      // its parent is the send's own SendMessage span
      expect(send?.headers["b3"]).toMatch(new RegExp(`^${traceId}-${spanId}-1-[0-9a-f]{16}$`))
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("built-in tracer: each send outside any span starts a trace of its own, with random ids", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      for (const messageId of ["m-1", "m-2", "m-3"]) yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId })
      const ids = (yield* runtimeSends).map((send) => (send.headers["traceparent"] ?? "").split("-"))
      const traces = new Set(ids.map(([, traceId]) => traceId))
      const spans = new Set(ids.map(([, , spanId]) => spanId))
      expect([traces.size, spans.size]).toEqual([3, 3])
      // 144 random digits use more than 8 of the 16 (by chance they would not: under 10^-39)
      expect(new Set(ids.flatMap(([, traceId, spanId]) => [...`${traceId}${spanId}`])).size).toBeGreaterThan(8)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("built-in tracer: under a caller's span the send's trace context continues the caller's trace", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const caller = yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(
        Effect.zipRight(Effect.currentSpan),
        Effect.withSpan("caller")
      )
      const [send] = yield* runtimeSends
      const [version, traceId, spanId, flags] = (send?.headers["traceparent"] ?? "").split("-")
      expect([version, traceId, flags]).toEqual(["00", caller.traceId, "01"])
      expect(spanId).toMatch(/^[0-9a-f]{16}$/)
      expect(spanId).not.toBe(caller.spanId)
      expect(send?.headers["b3"]).toMatch(new RegExp(`^${caller.traceId}-${spanId}-1-[0-9a-f]{16}$`))
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("built-in tracer: under a span that disables propagation, a trace of its own; tracing off, none", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(
        Effect.withSpan("quiet", { context: Context.make(Tracer.DisablePropagation, true) })
      )
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-2" }).pipe(Effect.withTracerEnabled(false))
      const [own, off] = yield* runtimeSends
      expect(own?.headers["traceparent"]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
      expect(off?.messageId).toBe("m-2")
      expect(off?.headers["traceparent"]).toBeUndefined()
      expect(off?.headers["b3"]).toBeUndefined()
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

// The metrics of README "Metrics", read after scripted scenarios on the simulated clock. Metrics are global:
// each check is the change a scenario made.

const serverAttributes = { "server.address": "platform.sim.mainsequence.test", "server.port": "443" }

/**
 * The change of each reading over `effect`, to the microsecond: durations come from a millisecond clock, and a
 * difference of two global float sums carries noise (10.000000000000004) that depends on the tests run before.
 */
const changeOver = <A, E, Env>(readings: Record<string, Effect.Effect<number>>, effect: Effect.Effect<A, E, Env>) =>
  Effect.gen(function*() {
    const read = Effect.forEach(
      Object.entries(readings),
      ([key, reading]) => Effect.map(reading, (value) => [key, value] as const)
    )
    const before = new Map(yield* read)
    yield* effect
    const after = yield* read
    return Object.fromEntries(
      after.map(([key, value]) => [key, Math.round((value - (before.get(key) ?? 0)) * 1e6) / 1e6])
    )
  })

// The attributes of a POST to the runtime in http.client.request.duration, with the outcome's.
const runtimePost = (outcome: Record<string, string>) => ({
  "http.request.method": "POST",
  "a2a.client.peer": "runtime",
  ...serverAttributes,
  ...outcome
})

const unavailableUid = "3f0c6a52-7d1e-4b8a-9c2f-6e5d4c3b2a10"
const faultyUid = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"

const send = (messageId: string) =>
  Effect.flatMap(client, (a2a) => runFor(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId }), "5 minutes"))

describe("rules: metrics (OpenTelemetry names, bounded attributes)", () => {
  it.effect("a cold start: resolutions by result, the transient wait and its time, a cache miss, the call and its requests", () =>
    Effect.gen(function*() {
      const backendPost = { "http.request.method": "POST", "a2a.client.peer": "backend", ...serverAttributes }
      const change = yield* changeOver({
        admitted: counterCount(Telemetry.resolutions, { "a2a.client.resolution.result": "admitted" }),
        transient: counterCount(Telemetry.resolutions, { "a2a.client.resolution.result": "transient" }),
        waits: counterCount(Telemetry.transientWaits),
        waitSeconds: Effect.map(histogramOf(Telemetry.transientWaitDuration, {}), (h) => h.sum),
        misses: counterCount(Telemetry.cacheLookups, { "a2a.client.cache.result": "miss" }),
        hits: counterCount(Telemetry.cacheLookups, { "a2a.client.cache.result": "hit" }),
        calls: Effect.map(histogramOf(Telemetry.callDuration, { "a2a.method.name": "SendMessage" }), (h) => h.count),
        callSeconds: Effect.map(
          histogramOf(Telemetry.callDuration, { "a2a.method.name": "SendMessage" }),
          (h) => h.sum
        ),
        resolves: Effect.map(
          histogramOf(Telemetry.httpRequestDuration, { ...backendPost, "http.response.status_code": "200" }),
          (h) => h.count
        ),
        sends: Effect.map(
          histogramOf(Telemetry.httpRequestDuration, runtimePost({ "http.response.status_code": "200" })),
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

  it.effect("a transient wait its caller interrupts records the time it did take", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const change = yield* changeOver(
        {
          waits: counterCount(Telemetry.transientWaits),
          waitSeconds: Effect.map(histogramOf(Telemetry.transientWaitDuration, {}), (h) => h.sum)
        },
        Effect.gen(function*() {
          // A wait that starts when the clock is not at 0: its time is measured from its start.
          yield* TestClock.adjust("1 hour")
          const fiber = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
          yield* TestClock.adjust("4 seconds")
          yield* Fiber.interrupt(fiber)
        })
      )
      expect(change).toEqual({ waits: 1, waitSeconds: 4 })
    }).pipe(
      Effect.provide(simulated({
        sessions: [session({
          access: { _tag: "ColdStart", phases: [{ state: "starting", retryAfterMs: 10_000, durationMs: 60_000 }] }
        })]
      }))
    ))

  it.effect("resolutions by result: terminal for an unavailable runtime, failed for a backend error", () =>
    Effect.gen(function*() {
      const results = {
        terminal: counterCount(Telemetry.resolutions, { "a2a.client.resolution.result": "terminal" }),
        failed: counterCount(Telemetry.resolutions, { "a2a.client.resolution.result": "failed" }),
        admitted: counterCount(Telemetry.resolutions, { "a2a.client.resolution.result": "admitted" })
      }
      const a2a = yield* client
      const sendTo = (uid: string) => runFor(a2a.sendA2AMessage(uid, { message: "hi" }), "1 minute")
      const terminal = yield* changeOver(results, sendTo(unavailableUid))
      expect(terminal).toEqual({ terminal: 1, failed: 0, admitted: 0 })
      const failed = yield* changeOver(results, sendTo(faultyUid))
      expect(failed).toEqual({ terminal: 0, failed: 1, admitted: 0 })
    }).pipe(
      Effect.provide(simulated({
        sessions: [
          { ...session({ access: { _tag: "Terminal", state: "unavailable" } }), sessionUid: unavailableUid },
          { ...session({ backend: { resolveFault: { status: 500 } } }), sessionUid: faultyUid }
        ]
      }))
    ))

  it.effect("a 401 from the backend: one credential refresh with peer backend", () => {
    let resolvesSeen = 0
    const { layer } = simulatedWith(
      { sessions: [session()] },
      (request) =>
        request.url === refreshUrl
          ? { status: 200, body: { access: "user-2" } }
          : request.url === resolveUrl
          ? (resolvesSeen++ === 0 ? { status: 401, body: { detail: "expired" } } : { status: 403, body: {} })
          : undefined,
      { refreshToken: Redacted.make("refresh-1") }
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const change = yield* changeOver({
        backend: counterCount(Telemetry.credentialRefreshes, { "a2a.client.peer": "backend" }),
        runtime: counterCount(Telemetry.credentialRefreshes, { "a2a.client.peer": "runtime" })
      }, Effect.either(a2a.sendA2AMessage(sessionUid, { message: "hi" })))
      expect(change).toEqual({ backend: 1, runtime: 0 })
    }).pipe(Effect.provide(layer))
  })

  it.effect("a warm send is a cache hit; calls in flight go up and back down", () =>
    Effect.gen(function*() {
      yield* send("m-1")
      const a2a = yield* client
      const inFlight = counterCount(Telemetry.callsActive, { "a2a.method.name": "SendMessage" })
      const change = yield* changeOver({
        hits: counterCount(Telemetry.cacheLookups, { "a2a.client.cache.result": "hit" }),
        misses: counterCount(Telemetry.cacheLookups, { "a2a.client.cache.result": "miss" }),
        // the second call starts after the first: its duration is measured from its own start
        seconds: Effect.map(histogramOf(Telemetry.callDuration, { "a2a.method.name": "SendMessage" }), (h) => h.sum)
      }, send("m-2"))
      expect(change).toEqual({ hits: 1, misses: 0, seconds: 10 })
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
      const rejected = runtimePost({ "http.response.status_code": "401", "error.type": "401" })
      const change = yield* changeOver({
        runtime: counterCount(Telemetry.credentialRefreshes, { "a2a.client.peer": "runtime" }),
        backend: counterCount(Telemetry.credentialRefreshes, { "a2a.client.peer": "backend" }),
        rejected: Effect.map(histogramOf(Telemetry.httpRequestDuration, rejected), (h) => h.count)
      }, send("m-1"))
      expect(change).toEqual({ runtime: 1, backend: 0, rejected: 1 })
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { rejectFirstSends: 1 } })] }))))

  it.effect("the Message limit: counted, and the call's duration by error.type", () =>
    Effect.gen(function*() {
      const failed = { "a2a.method.name": "SendMessage", "error.type": "A2AMessageLimitExceededError" }
      const change = yield* changeOver({
        limits: counterCount(Telemetry.messageLimitAnswers),
        failed: Effect.map(histogramOf(Telemetry.callDuration, failed), (h) => h.count),
        seconds: Effect.map(histogramOf(Telemetry.callDuration, failed), (h) => h.sum)
      }, send("m-1"))
      expect(change).toEqual({ limits: 1, failed: 1, seconds: 90 })
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { workMs: 120_000 } })] }))))

  it.effect("a request its call's deadline ends, total or phase limit, has error.type A2ATimeoutError", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const ended = runtimePost({ "error.type": "A2ATimeoutError" })
      const timedOut = (messageId: string, timeout: Timeout.Timeout) =>
        runFor(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId, timeout }), "5 minutes")
      const change = yield* changeOver({
        ended: Effect.map(histogramOf(Telemetry.httpRequestDuration, ended), (h) => h.count),
        seconds: Effect.map(histogramOf(Telemetry.httpRequestDuration, ended), (h) => h.sum)
      }, Effect.zipRight(timedOut("m-1", 20), timedOut("m-2", [5, 10])))
      // a difference of two sums: other tests' measures may already be in them
      expect(change.ended).toBe(2)
      expect(change.seconds).toBeCloseTo(30, 6)
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { workMs: 60_000 } })] }))))

  it.effect("a resolve its last waiting call's deadline ends has error.type A2ATimeoutError; one it interrupts, interrupted", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const ended = { "http.request.method": "POST", "a2a.client.peer": "backend", ...serverAttributes }
      const timedOut = (messageId: string, timeout: Timeout.Timeout) =>
        runFor(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId, timeout }), "5 minutes")
      const count = (errorType: string) =>
        Effect.map(histogramOf(Telemetry.httpRequestDuration, { ...ended, "error.type": errorType }), (h) => h.count)
      const interrupted = Effect.flatMap(
        Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-3", timeout: 20 })),
        (fiber) => Effect.zipRight(TestClock.adjust("1 second"), Fiber.interrupt(fiber))
      )
      const change = yield* changeOver(
        { ended: count("A2ATimeoutError"), interrupted: count("interrupted") },
        Effect.all([timedOut("m-1", 20), timedOut("m-2", [5, 10]), interrupted])
      )
      expect(change).toEqual({ ended: 2, interrupted: 1 })
    }).pipe(Effect.provide(simulated({ sessions: [session({ backend: { resolveDelay: "forever" } })] }))))

  it.effect("a request its caller interrupts before any deadline has error.type interrupted", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const interrupted = runtimePost({ "error.type": "interrupted" })
      const change = yield* changeOver(
        {
          interrupted: Effect.map(histogramOf(Telemetry.httpRequestDuration, interrupted), (h) => h.count)
        },
        Effect.gen(function*() {
          // under the default [connect, read] pair, then under a total alone (no phase limit)
          for (const timeout of [undefined, 600]) {
            const fiber = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "hi", timeout }))
            yield* TestClock.adjust("1 second")
            yield* Fiber.interrupt(fiber)
          }
        })
      )
      expect(change).toEqual({ interrupted: 2 })
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { workMs: 60_000 } })] }))))

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

// SPEC §11, the Node layer's connection policy, over real sockets on 127.0.0.1: by default concurrent calls
// never wait for a connection behind other calls' answers; with a bound (`maxConnectionsPerOrigin`), a call
// whose budget ends while queued was never written. A small platform (the backend's resolve route and a
// runtime's `message:send` on one origin) counts the sockets and the sends in flight, and holds each answer
// as long as the message asks ("hold:<ms>").

const userToken = "connection-limit-user-token"
const runtimeToken = "connection-limit-runtime-token"

interface Platform {
  readonly url: string
  /** Sockets open now, and the most open at once since the last `resetPeak`. */
  readonly sockets: { open: number; peak: number; total: number }
  readonly resetPeak: () => void
  /** Sends received, answered, and closed by the client before they were answered. */
  readonly sends: { received: number; answered: number; abandoned: number }
  /** Sends received and not yet answered now, and the most at once. */
  readonly inFlight: { now: number; peak: number }
  /** Resolves received, and closed by the client before they were answered. */
  readonly resolves: { received: number; abandoned: number }
}

/** The session whose resolve the platform holds without ever answering. */
const heldSession = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"

const readBody = (req: Http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString()))
    req.on("error", reject)
  })

const json = (res: Http.ServerResponse, status: number, body: unknown, contentType = "application/json") => {
  const bytes = Buffer.from(JSON.stringify(body))
  res.writeHead(status, { "content-type": contentType, "content-length": bytes.length })
  res.end(bytes)
}

const localPlatform = Effect.map(
  Effect.acquireRelease(
    Effect.async<{ readonly server: Http.Server; readonly state: Omit<Platform, "url"> }>((resume) => {
      const sockets = { open: 0, peak: 0, total: 0 }
      const sends = { received: 0, answered: 0, abandoned: 0 }
      const inFlight = { now: 0, peak: 0 }
      const resolves = { received: 0, abandoned: 0 }
      let baseUrl = ""
      const server = Http.createServer((req, res) => {
        void readBody(req).then((body) => {
          const url = req.url ?? ""
          if (url.startsWith("/api/v1/agent-sessions/") && url.endsWith("/resolve-runtime-access/")) {
            if (req.headers.authorization !== `Bearer ${userToken}`) return json(res, 401, { detail: "no" })
            resolves.received++
            res.once("close", () => {
              if (!res.writableEnded) resolves.abandoned++
            })
            if (url.includes(heldSession)) return
            return json(res, 200, {
              coding_agent_service_uid: "3f5c2a1e-8b7d-4c6e-9a0f-1b2c3d4e5f60",
              mode: "token",
              rpc_url: `${baseUrl}/runtime/`,
              token: runtimeToken,
              expires_at: new Date(Date.now() + 3_600_000).toISOString(),
              runtime_paths: { a2a: "/api/a2a/v1" },
              runtime_interaction: {
                state: "ready",
                can_submit: true,
                notice: null,
                operation: null,
                retry_after_ms: null
              },
              runtime_presence: {
                phase: "serving",
                replicas: { desired: 1, actual: 1 },
                detail: "serving",
                observed_at: new Date().toISOString(),
                wake: null
              }
            })
          }
          if (url === "/runtime/api/a2a/v1/message:send" && req.method === "POST") {
            if (req.headers.authorization !== `Bearer ${runtimeToken}`) return json(res, 401, {})
            sends.received++
            inFlight.now++
            if (inFlight.now > inFlight.peak) inFlight.peak = inFlight.now
            res.once("close", () => {
              inFlight.now--
              if (!res.writableEnded) sends.abandoned++
            })
            const message = (JSON.parse(body) as {
              message: { contextId: string; parts: ReadonlyArray<{ text: string }> }
            }).message
            const stall = /^stall-body:(\d+)$/.exec(message.parts[0]?.text ?? "")
            if (stall !== null) {
              // The head and the start of the body, then nothing until the stall ends.
              res.writeHead(200, { "content-type": "application/a2a+json" })
              res.write(`{"message":{"messageId":"reply-stalled","role":"ROLE_AGENT",`)
              return void setTimeout(() => {
                sends.answered++
                res.end(`"contextId":"${message.contextId}","parts":[{"text":"done"}]}}`)
              }, Number(stall[1]))
            }
            const hold = /^hold:(\d+)$/.exec(message.parts[0]?.text ?? "")
            const answer = () => {
              sends.answered++
              json(res, 200, {
                message: {
                  messageId: `reply-${sends.answered}`,
                  role: "ROLE_AGENT",
                  contextId: message.contextId,
                  parts: [{ text: "done" }]
                }
              }, "application/a2a+json")
            }
            return hold === null ? answer() : void setTimeout(answer, Number(hold[1]))
          }
          return json(res, 404, { detail: "Not found." })
        })
      })
      server.on("connection", (socket) => {
        sockets.open++
        sockets.total++
        if (sockets.open > sockets.peak) sockets.peak = sockets.open
        socket.once("close", () => sockets.open--)
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        baseUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
        resume(Effect.succeed({
          server,
          state: {
            sockets,
            sends,
            inFlight,
            resolves,
            resetPeak: () => {
              sockets.peak = sockets.open
            }
          }
        }))
      })
    }),
    ({ server }) =>
      Effect.async<unknown>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ),
  ({ server, state }): Platform => {
    const address = server.address()
    return { url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`, ...state }
  }
)

// The layer lives as long as the test's scope (an `Effect.provide` around the lookup would close its pool at once).
const clientOn = (url: string, maxConnectionsPerOrigin?: number) =>
  Effect.map(
    Layer.build(Node.layer({ backendUrl: url, accessToken: Redacted.make(userToken), maxConnectionsPerOrigin })),
    Context.get(A2AClient.A2AClient)
  )

describe("SPEC §11: concurrent calls never wait behind other calls' answers, by default (real sockets)", () => {
  // All 200 at the runtime at once is the proof that none waited for another's connection; the time bound is
  // a sanity check with room for the calls' own start on a loaded machine (a queue would cost 3 s a round).
  it.scopedLive("200 concurrent sends to one session answered after 3 s all finish within 3 s and a margin, all at the runtime at once", () =>
    Effect.gen(function*() {
      const server = yield* localPlatform
      const a2a = yield* clientOn(server.url)
      const session = randomUUID()
      yield* a2a.sendA2AMessage(session, { message: "warm" })
      const started = Date.now()
      const answers = yield* Effect.forEach(
        Array.from({ length: 200 }, () => "hold:3000"),
        (message) => a2a.sendA2AMessage(session, { message }),
        { concurrency: "unbounded" }
      )
      const elapsed = Date.now() - started
      expect(answers.every((answer) => answer.role === "ROLE_AGENT")).toBe(true)
      expect(server.inFlight.peak).toBe(200)
      expect(elapsed).toBeGreaterThanOrEqual(3000)
      expect(elapsed).toBeLessThan(9000)
    }))
})

describe("SPEC §11: with a bound (maxConnectionsPerOrigin), calls queue for a connection (real sockets)", () => {
  it.scopedLive("limit 4, 40 concurrent sends held 50 ms: never more than 4 sockets open, every send answered", () =>
    Effect.gen(function*() {
      const server = yield* localPlatform
      const a2a = yield* clientOn(server.url, 4)
      const session = randomUUID()
      const answers = yield* Effect.forEach(
        Array.from({ length: 40 }, () => "hold:50"),
        (message) => a2a.sendA2AMessage(session, { message, timeout: [5, 10] }),
        { concurrency: "unbounded" }
      )
      expect(answers).toHaveLength(40)
      expect(answers.every((answer) => answer.role === "ROLE_AGENT" && answer.contextId === session)).toBe(true)
      expect(server.sends.answered).toBe(40)
      // the resolve and the sends share the one origin, and its limit
      expect(server.sockets.peak).toBe(4)
      expect(server.sockets.total).toBe(4)
    }))

  it.scopedLive("many sessions, one origin: 300 concurrent sends to 30 sessions stay within the limit of 8", () =>
    Effect.gen(function*() {
      const server = yield* localPlatform
      const a2a = yield* clientOn(server.url, 8)
      const sessions = Array.from({ length: 30 }, () => randomUUID())
      const answers = yield* Effect.forEach(
        Array.from({ length: 300 }, (_, i) => sessions[i % sessions.length] ?? ""),
        (session) => a2a.sendA2AMessage(session, { message: "hold:5" }),
        { concurrency: "unbounded" }
      )
      expect(answers).toHaveLength(300)
      expect(server.sockets.peak).toBeLessThanOrEqual(8)
      expect(server.sockets.peak).toBeGreaterThan(1)
    }))

  it.scopedLive("a send queued behind a busy connection for longer than `connect` still succeeds: the queue is not the connect phase", () =>
    Effect.gen(function*() {
      const server = yield* localPlatform
      const a2a = yield* clientOn(server.url, 1)
      const session = randomUUID()
      // one budget shape, so one dispatcher (there is one per connect limit in use)
      const timeout = [0.2, 3] as const
      yield* a2a.sendA2AMessage(session, { message: "warm", timeout }) // access cached, one connection open
      const busy = yield* Effect.fork(a2a.sendA2AMessage(session, { message: "hold:600", timeout }))
      yield* Effect.sleep("50 millis")
      const started = Date.now()
      const queued = yield* a2a.sendA2AMessage(session, { message: "queued", timeout })
      const waited = Date.now() - started
      expect(queued.role).toBe("ROLE_AGENT")
      expect(waited).toBeGreaterThanOrEqual(400) // it waited for the busy connection, twice its connect limit
      expect((yield* busy).role).toBe("ROLE_AGENT")
      expect(server.sockets.total).toBe(1)
    }))

  it.scopedLive("a send whose budget ends while queued was never written: not received, messageMayHaveBeenSent false, retry-safe; the pool goes on", () =>
    Effect.gen(function*() {
      const server = yield* localPlatform
      const a2a = yield* clientOn(server.url, 1)
      const session = randomUUID()
      // Each budget shape against a connection kept busy by a send of the same shape (one dispatcher per
      // connect limit in use): a total of 0.3 s, and [0.2, 0.2] (total 0.4 s).
      const shapes = [{ busy: 10, queued: 0.3, seconds: 0.3 }, {
        busy: [0.2, 3] as const,
        queued: [0.2, 0.2] as const,
        seconds: 0.4
      }]
      const results = yield* Effect.forEach(shapes, ({ busy, queued, seconds }) =>
        Effect.gen(function*() {
          yield* a2a.sendA2AMessage(session, { message: "warm", timeout: busy })
          const held = yield* Effect.fork(a2a.sendA2AMessage(session, { message: "hold:1000", timeout: busy }))
          yield* Effect.sleep("50 millis")
          const started = Date.now()
          const exit = yield* Effect.exit(a2a.sendA2AMessage(session, { message: "queued", timeout: queued }))
          const elapsed = Date.now() - started
          expect((yield* held).role).toBe("ROLE_AGENT")
          const after = yield* a2a.sendA2AMessage(session, { message: "after", timeout: busy })
          return { exit, elapsed, seconds, after }
        }), { concurrency: "unbounded" })
      for (const { after, elapsed, exit, seconds } of results) {
        expect(exit).toMatchObject({
          _tag: "Failure",
          cause: {
            _tag: "Fail",
            error: {
              _tag: "A2ATimeoutError",
              limit: "total",
              seconds,
              step: "send-message",
              messageMayHaveBeenSent: false
            }
          }
        })
        const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
        expect(Option.map(error, A2AError.isRetrySafe)).toEqual(Option.some(true))
        expect(elapsed).toBeGreaterThanOrEqual(seconds * 1000 - 20)
        expect(elapsed).toBeLessThan(seconds * 1000 + 250)
        // the pool goes on after the abandoned request
        expect(after.role).toBe("ROLE_AGENT")
      }
      // the queued requests were abandoned before they were written: the runtime saw warm, held and after
      expect(server.sends.received).toBe(6)
    }))

  it.scopedLive("a send the runtime holds past its budget, or whose caller interrupts it, has its request aborted at once", () =>
    Effect.gen(function*() {
      const server = yield* localPlatform
      const a2a = yield* clientOn(server.url)
      const session = randomUUID()
      yield* a2a.sendA2AMessage(session, { message: "warm" })
      const abandoned = (n: number) =>
        Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => server.sends.abandoned >= n, times: 100 }))
      const timedOut = yield* Effect.flip(a2a.sendA2AMessage(session, { message: "hold:5000", timeout: 0.2 }))
      expect(timedOut).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", step: "send-message" })
      yield* abandoned(1)
      expect(server.sends.abandoned).toBe(1)
      const headLimit = yield* Effect.flip(a2a.sendA2AMessage(session, { message: "hold:5000", timeout: [1, 0.2] }))
      expect(headLimit).toMatchObject({ _tag: "A2ATimeoutError", limit: "read", step: "send-message" })
      yield* abandoned(2)
      expect(server.sends.abandoned).toBe(2)
      const caller = yield* Effect.fork(a2a.sendA2AMessage(session, { message: "hold:5000" }))
      yield* Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => server.sends.received === 4, times: 100 }))
      yield* Fiber.interrupt(caller)
      yield* abandoned(3)
      expect(server.sends).toEqual({ received: 4, answered: 1, abandoned: 3 })
    }))

  it.scopedLive("a send whose answer stalls mid-body past its read limit ends with it and has its request aborted at once", () =>
    Effect.gen(function*() {
      const server = yield* localPlatform
      const a2a = yield* clientOn(server.url)
      const session = randomUUID()
      yield* a2a.sendA2AMessage(session, { message: "warm" })
      const stalled = yield* Effect.flip(a2a.sendA2AMessage(session, { message: "stall-body:5000", timeout: [1, 0.2] }))
      expect(stalled).toMatchObject({
        _tag: "A2ATimeoutError",
        limit: "read",
        step: "read-response",
        messageMayHaveBeenSent: true
      })
      yield* Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => server.sends.abandoned >= 1, times: 100 }))
      expect(server.sends).toEqual({ received: 2, answered: 1, abandoned: 1 })
    }))

  it.scopedLive("a resolve the backend holds is aborted once nobody waits: by its own phase limit, or when its last call's budget ends", () =>
    Effect.gen(function*() {
      const server = yield* localPlatform
      const a2a = yield* clientOn(server.url)
      const abandoned = (n: number) =>
        Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => server.resolves.abandoned >= n, times: 100 }))
      const phased = yield* Effect.flip(a2a.sendA2AMessage(heldSession, { message: "hi", timeout: [1, 0.2] }))
      expect(phased).toMatchObject({ _tag: "A2ATimeoutError", limit: "read", step: "resolve-runtime-access" })
      yield* abandoned(1)
      expect(server.resolves.abandoned).toBe(1)
      const total = yield* Effect.flip(a2a.sendA2AMessage(heldSession, { message: "hi", timeout: 0.3 }))
      expect(total).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", step: "resolve-runtime-access" })
      yield* abandoned(2)
      expect(server.resolves).toEqual({ received: 2, abandoned: 2 })
    }))

  it.scoped("a limit that is not a positive integer is a defect when the layer is built", () =>
    Effect.gen(function*() {
      for (const bad of [0, -1, 1.5, Number.NaN]) {
        const exit = yield* Effect.exit(clientOn("http://127.0.0.1:9", bad))
        expect(exit).toMatchObject({
          _tag: "Failure",
          cause: { _tag: "Die", defect: { _tag: "A2AInputError", field: "maxConnectionsPerOrigin" } }
        })
      }
    }))
})
