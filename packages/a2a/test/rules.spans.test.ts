import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as Tracer from "effect/Tracer"
import * as A2AProgress from "../src/A2AProgress.js"
import { client, recordSpans, runtimeSends, serviceUid, session, sessionUid, simulated } from "./fixtures.js"

// The span names and attributes of README/ARCHITECTURE ("Each step runs in a named span … with session
// uid, message id and attempt, and each exchange in an `a2a.http <METHOD>` span"): users build
// dashboards on them, so a renamed span or a lost attribute is a change they see.

const base = "https://platform.sim.mainsequence.test"
const runtimeBase = `${base}/runtimes/${serviceUid}/api/a2a/v1`

// Strict: an attribute set to undefined is an attribute a dashboard sees.
const attributesOf = (span: Tracer.Span | undefined) => Object.fromEntries(span?.attributes ?? [])
const named = (spans: ReadonlyArray<Tracer.Span>, name: string) => spans.filter((span) => span.name === name)
const parentOf = (span: Tracer.Span | undefined) =>
  Option.flatMap(Option.fromNullable(span), (s) => Option.map(s.parent, (parent) => parent.spanId))

describe("rules: the spans of a send", () => {
  it.effect("a2a.sendA2AMessage around a2a.buildRequestBody, a2a.resolveRuntimeAccess, a2a.sendToRuntime, a2a.http", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(Effect.withTracer(tracer))
      const [root, ...roots] = named(spans, "a2a.sendA2AMessage")
      expect(roots).toEqual([])
      expect(attributesOf(root)).toStrictEqual({ "a2a.session_uid": sessionUid, "a2a.message_id": "m-1" })
      const ids = { "a2a.session_uid": sessionUid, "a2a.message_id": "m-1" }
      const [build] = named(spans, "a2a.buildRequestBody")
      expect(attributesOf(build)).toStrictEqual(ids)
      expect(parentOf(build)).toEqual(Option.fromNullable(root?.spanId))
      const [resolve, ...resolvesMore] = named(spans, "a2a.resolveRuntimeAccess")
      expect(resolvesMore).toEqual([])
      expect(attributesOf(resolve)).toStrictEqual({ ...ids, "a2a.attempt": 1 })
      const [send, ...sendsMore] = named(spans, "a2a.sendToRuntime")
      expect(sendsMore).toEqual([])
      expect(attributesOf(send)).toStrictEqual({ ...ids, "a2a.attempt": 1 })
      const [post, ...postsMore] = named(spans, "a2a.http POST").filter((span) =>
        span.attributes.get("a2a.step") === "send-message"
      )
      expect(postsMore).toEqual([])
      expect(attributesOf(post)).toStrictEqual({
        ...ids,
        "a2a.step": "send-message",
        "http.request.method": "POST",
        "url.full": `${runtimeBase}/message:send`,
        "http.response.status_code": 200
      })
      expect(post?.kind).toBe("client")
      expect(parentOf(post)).toEqual(Option.fromNullable(send?.spanId))
      const resolvePost = named(spans, "a2a.http POST").find((span) =>
        span.attributes.get("a2a.step") === "resolve-runtime-access"
      )
      expect(attributesOf(resolvePost)).toStrictEqual({
        ...ids,
        "a2a.step": "resolve-runtime-access",
        "http.request.method": "POST",
        "url.full": `${base}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`,
        "http.response.status_code": 200
      })
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("the resend after a refresh is attempt 2 in a2a.sendToRuntime", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(Effect.withTracer(tracer))
      expect(named(spans, "a2a.sendToRuntime").map((span) => span.attributes.get("a2a.attempt"))).toEqual([1, 2])
      expect(
        named(spans, "a2a.http POST")
          .filter((span) => span.attributes.get("a2a.step") === "send-message")
          .map((span) => span.attributes.get("http.response.status_code"))
      ).toEqual([401, 200])
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { rejectFirstSends: 1 } })] }))))
})

describe("rules: the span regions (spanned.ts)", () => {
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
      const [root] = named(spans, "a2a.sendA2AMessage")
      expect(parentOf(root)).toEqual(Option.fromNullable(caller?.spanId))
      const ours = spans.filter((span) => span.name !== "caller")
      expect(ours.length).toBeGreaterThanOrEqual(5)
      for (const span of ours) {
        expect(span.status._tag, span.name).toBe("Ended")
        if (span.status._tag === "Ended") {
          expect(span.status.exit._tag, span.name).toBe("Success")
          expect(span.status.endTime).toBeGreaterThanOrEqual(span.status.startTime)
          expect(span.status.endTime).toBeGreaterThan(0n)
        }
      }
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a failed send ends its spans with the failure; with tracer timing off they end at 0 as Effect's do", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      yield* TestClock.adjust("1 second")
      const error = yield* Effect.flip(
        a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(
          Effect.withTracer(tracer),
          Effect.withTracerTiming(false)
        )
      )
      expect(error._tag).toBe("RuntimeAuthError")
      const ended = [...named(spans, "a2a.sendA2AMessage"), ...named(spans, "a2a.sendToRuntime")]
      expect(ended.map((span) => span.name)).toEqual(["a2a.sendA2AMessage", "a2a.sendToRuntime", "a2a.sendToRuntime"])
      for (const span of ended) {
        expect(span.status._tag).toBe("Ended")
        if (span.status._tag === "Ended") expect(span.status.endTime).toBe(0n)
      }
      const [root] = named(spans, "a2a.sendA2AMessage")
      expect(root?.status._tag === "Ended" && root.status.exit._tag).toBe("Failure")
      // Each exchange itself succeeded (a 401 came back): its span ends before its answer is judged.
      const sends = named(spans, "a2a.http POST").filter((span) => span.attributes.get("a2a.step") === "send-message")
      expect(sends.map((span) => [
        span.attributes.get("http.response.status_code"),
        span.status._tag === "Ended" && span.status.exit._tag
      ])).toEqual([[401, "Success"], [401, "Success"]])
      expect(ended.slice(1).map((span) => span.status._tag === "Ended" && span.status.exit._tag)).toEqual([
        "Failure",
        "Failure"
      ])
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { rejectFirstSends: 2 } })] }))))
})

describe("rules: the spans of the Task helpers", () => {
  const taskSession = session({ agent: { taskSupport: true, task: { queuedMs: 0, outcome: "completed" } } })

  const createTask = Effect.flatMap(
    client,
    (a2a) => a2a.sendA2AMessage(sessionUid, { message: "work", messageId: "m-t", responseKind: "task" })
  )

  it.effect("a2a.getA2ATask around a2a.getTask with the Task id and attempt; its GET in a2a.http GET", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const task = yield* createTask
      const { spans, tracer } = yield* recordSpans
      yield* a2a.getA2ATask(sessionUid, task.id).pipe(Effect.withTracer(tracer))
      const [root, ...roots] = named(spans, "a2a.getA2ATask")
      expect(roots).toEqual([])
      const [get, ...gets] = named(spans, "a2a.getTask")
      expect(gets).toEqual([])
      expect(attributesOf(get)).toStrictEqual({
        "a2a.session_uid": sessionUid,
        "a2a.task_id": task.id,
        "a2a.attempt": 1
      })
      const [http] = named(spans, "a2a.http GET")
      expect(attributesOf(http)).toStrictEqual({
        "a2a.session_uid": sessionUid,
        "a2a.task_id": task.id,
        "a2a.step": "get-task",
        "http.request.method": "GET",
        "url.full": `${runtimeBase}/tasks/${task.id}`,
        "http.response.status_code": 200
      })
      expect(parentOf(http)).toEqual(Option.fromNullable(get?.spanId))
      expect(parentOf(get)).toEqual(Option.fromNullable(root?.spanId))
    }).pipe(Effect.provide(simulated({ sessions: [taskSession] }))))

  it.effect("a2a.cancelA2ATask around a2a.cancelTask; its POST …:cancel in a2a.http POST with step cancel-task", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const task = yield* createTask
      const { spans, tracer } = yield* recordSpans
      yield* a2a.cancelA2ATask(sessionUid, task.id).pipe(Effect.withTracer(tracer))
      const [root, ...roots] = named(spans, "a2a.cancelA2ATask")
      expect(roots).toEqual([])
      const [cancel] = named(spans, "a2a.cancelTask")
      expect(attributesOf(cancel)).toStrictEqual({
        "a2a.session_uid": sessionUid,
        "a2a.task_id": task.id,
        "a2a.attempt": 1
      })
      expect(parentOf(cancel)).toEqual(Option.fromNullable(root?.spanId))
      expect(named(spans, "a2a.getTask")).toEqual([])
      const [http] = named(spans, "a2a.http POST")
      expect(attributesOf(http)).toMatchObject({
        "a2a.step": "cancel-task",
        "url.full": `${runtimeBase}/tasks/${task.id}:cancel`
      })
    }).pipe(
      Effect.provide(
        simulated({ sessions: [session({ agent: { taskSupport: true, workMs: 60_000, task: { queuedMs: 0 } } })] })
      )
    ))

  it.effect("a2a.waitForA2ATask around one a2a.getTask per poll, each with step wait-task", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const task = yield* createTask
      const { spans, tracer } = yield* recordSpans
      const fiber = yield* Effect.fork(a2a.waitForA2ATask(sessionUid, task.id).pipe(Effect.withTracer(tracer)))
      yield* TestClock.adjust("1 minute")
      const done = yield* Fiber.join(fiber)
      expect(done.status.state).toBe("TASK_STATE_COMPLETED")
      const [root, ...roots] = named(spans, "a2a.waitForA2ATask")
      expect(roots).toEqual([])
      const polls = named(spans, "a2a.getTask")
      expect(polls.length).toBeGreaterThan(1)
      expect(polls.map((span) => span.attributes.get("a2a.task_id"))).toEqual(polls.map(() => task.id))
      expect(
        named(spans, "a2a.http GET").map((span) => span.attributes.get("a2a.step"))
      ).toEqual(polls.map(() => "wait-task"))
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

// Without a tracer installed (Effect's built-in one records nothing) the steps' spans are not made: the
// exchange's span still is, for the traceparent it sends. What code running inside a send sees as its
// current span tells which spans exist.
describe("rules: the steps' spans only with a tracer (spanned.ts traced)", () => {
  const currentSpanAtPrepared = (a2a: Effect.Effect.Success<typeof client>) =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const caller = yield* Effect.gen(function*() {
        yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(
          Effect.provideService(A2AProgress.A2AProgress, {
            report: (event) =>
              Effect.map(Effect.currentSpan.pipe(Effect.option), (span) => {
                if (event._tag === "MessagePrepared") {
                  seen.push(Option.match(span, { onNone: () => "none", onSome: (s) => s.name }))
                }
              })
          })
        )
        return yield* Effect.currentSpan
      }).pipe(Effect.withSpan("caller"))
      return { seen, caller }
    })

  it.effect("built-in tracer: a step runs under the caller's span, which gets none of the step's attributes", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { caller, seen } = yield* currentSpanAtPrepared(a2a)
      expect(seen).toEqual(["caller"])
      expect(attributesOf(caller)).toStrictEqual({})
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("built-in tracer: the send still carries the traceparent of its a2a.http span", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" })
      const [send] = yield* runtimeSends
      expect(send?.headers["traceparent"]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
      const [, traceId, spanId] = (send?.headers["traceparent"] ?? "").split("-")
      expect(send?.headers["b3"]).toBe(`${traceId}-${spanId}-1`)
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
      expect(send?.headers["b3"]).toBe(`${caller.traceId}-${spanId}-1-${caller.spanId}`)
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

  it.effect("a tracer installed: the same report runs under a2a.sendA2AMessage, the caller's span left as it was", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { tracer } = yield* recordSpans
      const { caller, seen } = yield* Effect.withTracer(currentSpanAtPrepared(a2a), tracer)
      expect(seen).toEqual(["a2a.sendA2AMessage"])
      expect(attributesOf(caller)).toStrictEqual({})
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})
