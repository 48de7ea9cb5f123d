import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as Tracer from "effect/Tracer"
import * as A2AProgress from "../src/A2AProgress.js"
import { client, recordSpans, runtimeSends, serviceUid, session, sessionUid, simulated } from "./fixtures.js"

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
