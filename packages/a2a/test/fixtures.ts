import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { A2ASchema, layerTest, type SessionScenario, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import type * as MetricState from "effect/MetricState"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Tracer from "effect/Tracer"
import { inspect } from "node:util"
import * as A2AClient from "../src/A2AClient.js"
import type * as A2AProtocol from "../src/A2AProtocol.js"
import * as Telemetry from "../src/internal/telemetry.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import * as Timeout from "../src/Timeout.js"

export const sessionUid = "0b2701a1-e777-4cfe-8437-b94025f00069"
export const agentUid = "5c1d7e2a-3b4f-4a6c-9d8e-1f2a3b4c5d6e"
export const serviceUid = "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"

export const session = (
  scenario: Omit<SessionScenario.SessionScenarioInput, "sessionUid" | "agentUid" | "serviceUid"> = {}
): SessionScenario.SessionScenarioInput => ({ sessionUid, agentUid, serviceUid, ...scenario })

/**
 * The `message:send` bodies in a request log that break the A2A v1 schema (`Send Message Request`, plus
 * `configuration.responseKind`), as `<messageId>: <violation>`.
 */
export const schemaViolations = (log: ReadonlyArray<SimulatedPlatform.RequestLogEntry>): ReadonlyArray<string> =>
  log.filter((entry) => entry.schemaViolation !== null).map((entry) =>
    `${entry.messageId ?? "(no message id)"}: ${entry.schemaViolation}`
  )

/**
 * When the test's scope closes, fails it (a defect) if any `message:send` body it caused breaks the A2A v1
 * schema. Part of every {@link simulated} layer.
 */
export const sendBodiesConform: Layer.Layer<never, never, SimulatedPlatform.SimulatedPlatform> = Layer
  .scopedDiscard(
    Effect.flatMap(
      SimulatedPlatform.SimulatedPlatform,
      (platform) =>
        Effect.addFinalizer(() =>
          Effect.flatMap(platform.requestLog, (log) => {
            const violations = schemaViolations(log)
            return violations.length === 0
              ? Effect.void
              : Effect.dieMessage(`message:send bodies that break the A2A v1 schema:\n${violations.join("\n")}`)
          })
        )
    )
  )

/**
 * The client on the simulated platform, with a memory cache; the platform stays in context. The in-memory
 * platform connects at once, which the client is told (`Timeout.layerInstantConnect`), so `read` bounds
 * every response head exactly.
 */
export const simulated = (
  platform: SimulatedPlatform.Options,
  client: Partial<Omit<A2AClient.A2AClientOptions, "backendUrl" | "accessToken">> = {}
) => {
  const simulation = Layer.merge(layerTest(platform), RuntimeAccessCache.layerMemory)
  return A2AClient.layer({
    backendUrl: SimulatedPlatform.defaultBaseUrl,
    accessToken: SimulatedPlatform.defaultUserAccessToken,
    ...client
  }).pipe(
    Layer.provide(Timeout.layerInstantConnect),
    Layer.provideMerge(simulation),
    Layer.merge(Layer.provide(sendBodiesConform, simulation)),
    Layer.orDie
  )
}

export const platform = SimulatedPlatform.SimulatedPlatform

const conformsTo = (answer: A2AProtocol.Message | A2AProtocol.Task): Effect.Effect<void> => {
  const result = "status" in answer
    ? A2ASchema.validateTask(answer, { allowUnknownFields: true })
    : A2ASchema.validateMessage(answer, { allowUnknownFields: true })
  return Either.match(result, {
    onLeft: (violation) => Effect.dieMessage(`the SDK returned an answer that breaks A2A v1: ${violation.message}`),
    onRight: () => Effect.void
  })
}

/** The client with every Message and Task it returns validated against the A2A v1 schema (unknown fields allowed). */
const conformant = (a2a: A2AClient.Service): A2AClient.Service => {
  // Checks the answer and hands it on unchanged, so it keeps the overload's type.
  const sendA2AMessage =
    ((uid: string, input: A2AClient.SendA2AMessageInput) =>
      Effect.tap(a2a.sendA2AMessage(uid, input), conformsTo)) as A2AClient.SendA2AMessage
  return {
    sendA2AMessage,
    getA2ATask: (uid, taskId, options) => Effect.tap(a2a.getA2ATask(uid, taskId, options), conformsTo),
    waitForA2ATask: (uid, taskId, options) => Effect.tap(a2a.waitForA2ATask(uid, taskId, options), conformsTo),
    cancelA2ATask: (uid, taskId, options) => Effect.tap(a2a.cancelA2ATask(uid, taskId, options), conformsTo)
  }
}

/** The `A2AClient` in context, with every answer it returns checked against the A2A v1 schema. */
export const client = Effect.map(A2AClient.A2AClient, conformant)

export const runtimeSends = Effect.map(
  Effect.flatMap(platform, (p) => p.requestLog),
  (log) => log.filter((entry) => entry.route === "message-send")
)

export const resolves = Effect.map(
  Effect.flatMap(platform, (p) => p.requestLog),
  (log) => log.filter((entry) => entry.route === "resolve-runtime-access")
)

/**
 * Runs `effect` in a fiber while the TestClock moves `duration` ahead; its outcome and the simulated time
 * it took.
 */
export const runFor = <A, E, R>(effect: Effect.Effect<A, E, R>, duration: Duration.DurationInput) =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<boolean>()
    const fiber = yield* Effect.fork(
      Effect.gen(function*() {
        const start = yield* Clock.currentTimeMillis
        yield* Deferred.succeed(started, true)
        const result = yield* Effect.either(effect)
        return { result, millis: (yield* Clock.currentTimeMillis) - start }
      })
    )
    yield* Deferred.await(started)
    yield* TestClock.adjust(duration)
    const { millis, result } = yield* Fiber.join(fiber)
    return Either.match(result, {
      onLeft: (error) => ({ error, value: undefined, millis }),
      onRight: (value) => ({ error: undefined, value, millis })
    })
  })

/** Like {@link runFor} but expects a failure. */
export const failFor = <A, E, R>(effect: Effect.Effect<A, E, R>, duration: Duration.DurationInput) =>
  Effect.flatMap(
    runFor(effect, duration),
    ({ error, millis }) =>
      error === undefined ? Effect.dieMessage("expected a failure") : Effect.succeed({ error, millis })
  )

/** A JSON answer to `request`. */
export const jsonResponse = (
  request: HttpClientRequest.HttpClientRequest,
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
) =>
  HttpClientResponse.fromWeb(
    request,
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } })
  )

/** Where a send goes on `fakeRuntime`'s runtime. */
export const sendUrl = "https://runtime.example/api/a2a/v1/message:send"

/** A backend answer that admits at once with `rpc_url` https://runtime.example/. */
export const readyAccessForTests = {
  mode: "token",
  rpc_url: "https://runtime.example/",
  token: "runtime-token",
  expires_at: null,
  runtime_interaction: { state: "ready", can_submit: true, notice: null, operation: null, retry_after_ms: null }
}

/** The client on a hand-written `HttpClient` that answers every request (backend and runtime) with `answer`. */
export const fakePlatform = (
  answer: (
    request: HttpClientRequest.HttpClientRequest
  ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>,
  options: Partial<Omit<A2AClient.A2AClientOptions, "backendUrl" | "accessToken">> = {}
) =>
  A2AClient.layer({
    backendUrl: "https://backend.example",
    accessToken: Redacted.make("user-token"),
    ...options
  }).pipe(
    Layer.provide(
      Layer.merge(Layer.succeed(HttpClient.HttpClient, HttpClient.make(answer)), RuntimeAccessCache.layerMemory)
    )
  )

/**
 * The client on a hand-written `HttpClient`: the backend admits at once, and the runtime answers the n-th
 * request with `runtime(request, n)`.
 */
export const fakeRuntime = (
  runtime: (
    request: HttpClientRequest.HttpClientRequest,
    n: number
  ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>,
  options: Partial<Omit<A2AClient.A2AClientOptions, "backendUrl" | "accessToken">> = {}
) => {
  let requests = 0
  return fakePlatform(
    (request) =>
      request.url.startsWith("https://runtime.example/")
        ? runtime(request, requests++)
        : Effect.succeed(jsonResponse(request, 200, readyAccessForTests)),
    options
  )
}

/** A tracer over the current one that keeps every span it starts, for asserting span names and attributes. */
export const recordSpans = Effect.map(Effect.tracer, (base) => {
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span: (...args) => {
      const span = base.span(...args)
      spans.push(span)
      return span
    },
    context: base.context
  })
  return { spans, tracer }
})

/** Every text a span shows: its name, attributes and exit (its error's message and fields among them). */
export const spanTexts = (spans: ReadonlyArray<Tracer.Span>): Array<string> =>
  spans.flatMap((span) => [
    span.name,
    JSON.stringify([...span.attributes.entries()]),
    ...(span.status._tag === "Ended"
      ? [
        JSON.stringify(span.status.exit),
        Cause.pretty(Exit.causeOption(span.status.exit).pipe(Option.getOrElse(() => Cause.empty)))
      ]
      : [])
  ])

/** Every text an error shows: its message, `String`, JSON and `util.inspect`. */
export const errorTexts = (error: unknown): Array<string> => [
  error instanceof Error ? error.message : "",
  String(error),
  JSON.stringify(error),
  inspect(error, { depth: Infinity })
]

/**
 * A first call (`m-a`, 2 s budget) gives up on a session still waking when the next retry no longer fits its
 * budget, after `advance`; the runtime then comes up. Returns that first call's outcome.
 */
export const leaveWaitThenWake = (advance: Duration.DurationInput) =>
  Effect.gen(function*() {
    const a2a = yield* client
    const first = yield* failFor(
      a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: 2 }),
      advance
    )
    yield* platform.pipe(
      Effect.flatMap((p) => p.updateSession(sessionUid, (s) => ({ ...s, access: { _tag: "Ready" } })))
    )
    return first
  })

/** The client a layer provides, built in the current scope: it lives, with its sessions, as long as that scope. */
export const clientOf = <E, R>(layer: Layer.Layer<A2AClient.A2AClient, E, R>) =>
  Effect.map(Layer.build(layer), Context.get(A2AClient.A2AClient))

/** A hand-written answer for one request: status, body text (JSON when an object is given) and headers. */
export interface Answer {
  readonly status: number
  readonly body?: unknown
  readonly text?: string
  readonly headers?: Record<string, string>
}

export const base = SimulatedPlatform.defaultBaseUrl

/** The backend's resolve URL for the test session, and its token refresh URL. */
export const resolveUrl = `${base}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`
export const refreshUrl = `${base}/auth/jwt-token/token/refresh/`

/**
 * The client on the simulated platform, except for the requests `answer` answers itself (an answer the
 * simulation does not give: another backend error body, a session without `agent_uid`, …). Those requests
 * are recorded in `overridden` as `METHOD url`; every other request goes to the platform, which logs it.
 */
export const simulatedWith = (
  platform: SimulatedPlatform.Options,
  answer: (request: HttpClientRequest.HttpClientRequest) => Answer | undefined,
  client: Partial<A2AClient.A2AClientOptions> = {}
) => {
  const overridden: Array<string> = []
  const simulation = Layer.merge(layerTest(platform), RuntimeAccessCache.layerMemory)
  const http = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (simulated) =>
      HttpClient.make((request) => {
        const given = answer(request)
        if (given === undefined) return simulated.execute(request)
        overridden.push(`${request.method} ${request.url}`)
        const text = given.text ?? (given.body === undefined ? "" : JSON.stringify(given.body))
        const headers = given.text === undefined && given.body !== undefined
          ? { "content-type": "application/json", ...given.headers }
          : { ...given.headers }
        return Effect.succeed(
          HttpClientResponse.fromWeb(request, new Response(text, { status: given.status, headers }))
        )
      }))
  )
  const layer = A2AClient.layer({
    backendUrl: base,
    accessToken: SimulatedPlatform.defaultUserAccessToken,
    ...client
  }).pipe(
    Layer.provide(Timeout.layerInstantConnect),
    Layer.provide(http),
    Layer.provideMerge(simulation),
    Layer.merge(Layer.provide(sendBodiesConform, simulation)),
    Layer.orDie
  )
  return { layer, overridden }
}

// Metrics are global: a test reads the change a scenario made.

/** A counter's count for one label set. */
export const counterCount = (metric: Metric.Metric.Counter<number>, tags: Record<string, string> = {}) =>
  Effect.map(Metric.value(Telemetry.counterWith(metric, tags)), (state) => state.count)

/** A histogram's count and sum for one label set. */
export const histogramOf = (metric: Metric.Metric.Histogram<number>, tags: Record<string, string>) =>
  Effect.map(
    Metric.value(Telemetry.histogramWith(metric, tags)),
    (state: MetricState.MetricState.Histogram) => ({ count: state.count, sum: state.sum })
  )
