// SPEC §10, errors: each call's own ids, retry safety, no secret in any error.
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import { SimulatedHttpClient, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
import * as A2AError from "../src/A2AError.js"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import {
  type Answer,
  base,
  client,
  errorTexts,
  failFor,
  fakePlatform,
  jsonResponse,
  readyAccessForTests,
  recordSpans,
  resolves,
  runFor,
  runtimeSends,
  sendBodiesConform,
  session,
  sessionUid,
  simulated,
  simulatedWith,
  spanTexts
} from "./fixtures.js"

const http = { method: "POST", url: "https://runtime.example/api/a2a/v1/message:send", status: 500 }
const timeout = (messageMayHaveBeenSent: boolean) =>
  new A2AError.A2ATimeoutError({ step: "send-message", limit: "total", seconds: 5, messageMayHaveBeenSent })
const transport = (messageMayHaveBeenSent: boolean) =>
  new A2AError.A2ATransportError({ ...http, step: "send-message", messageMayHaveBeenSent })
const taskFields = { ...http, status: 404, taskId: "task-1", reason: "TASK_NOT_FOUND" }

// One entry per tag: adding a tag to A2AError makes this object fail to type-check until it is decided here.
const cases = {
  A2AInputError: [[new A2AError.A2AInputError({ field: "message", reason: "must not be blank" }), false]],
  AgentRuntimeNotReadyError: [[new A2AError.AgentRuntimeNotReadyError({ state: "waking", remainingMs: 0 }), true]],
  AgentRuntimeUnavailableError: [[new A2AError.AgentRuntimeUnavailableError({ state: "update_required" }), true]],
  ServerError: [
    [new A2AError.ServerError({ ...http, origin: "backend" }), true],
    [new A2AError.ServerError({ ...http, origin: "runtime" }), false]
  ],
  A2AMessageLimitExceededError: [[
    new A2AError.A2AMessageLimitExceededError({
      ...http,
      status: 504,
      origin: "runtime",
      reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
      limitSeconds: 90
    }),
    false
  ]],
  RuntimeAuthError: [[new A2AError.RuntimeAuthError({ ...http, status: 401 }), false]],
  A2ATimeoutError: [[timeout(false), true], [timeout(true), false]],
  A2ATransportError: [[transport(false), true], [transport(true), false]],
  InvalidA2AResponseError: [[
    new A2AError.InvalidA2AResponseError({ url: http.url, status: 200, rule: "role", reason: "bad role" }),
    false
  ]],
  TaskModeNotSupportedError: [[new A2AError.TaskModeNotSupportedError({ supportedResponseKinds: ["message"] }), false]],
  TaskNotFoundError: [[new A2AError.TaskNotFoundError(taskFields), false]],
  TaskNotCancelableError: [[
    new A2AError.TaskNotCancelableError({ ...taskFields, reason: "TASK_NOT_CANCELABLE" }),
    false
  ]],
  A2ARequestError: [[new A2AError.A2ARequestError({ ...http, status: 400 }), false]],
  NotLoggedInError: [[new A2AError.NotLoggedInError({ ...http, status: 401 }), false]],
  PermissionDeniedError: [[new A2AError.PermissionDeniedError({ ...http, status: 403 }), false]],
  SessionNotFoundError: [[new A2AError.SessionNotFoundError({ ...http, status: 404 }), false]],
  RateLimitedError: [[new A2AError.RateLimitedError({ ...http, status: 429, retryAfter: "30" }), true]],
  BackendContractError: [[new A2AError.BackendContractError({ url: http.url, status: 200, reason: "no token" }), true]]
} satisfies { readonly [Tag in A2AError.A2AError["_tag"]]: ReadonlyArray<readonly [A2AError.A2AError, boolean]> }

describe("A2AError.isRetrySafe", () => {
  it("decides every error tag of the package", () => {
    const errorClasses = Object.entries(A2AError).filter(([name, value]) =>
      typeof value === "function" && /^[A-Z]\w*Error$/.test(name)
    ).map(([name]) => name).sort()
    // Every error class the module exports is a tag of the A2AError union, and is decided above.
    expect(Object.keys(cases).sort()).toEqual(errorClasses)
    for (const [tag, examples] of Object.entries(cases)) {
      for (const [error, safe] of examples) {
        expect([tag, error._tag, A2AError.isRetrySafe(error)]).toEqual([tag, tag, safe])
      }
    }
  })

  it("RateLimitedError exposes Retry-After as a Duration and keeps the raw header", () => {
    const limited = (retryAfter: string | undefined) =>
      new A2AError.RateLimitedError({ ...http, status: 429, retryAfter })
    expect(limited("30").retryAfter).toBe("30")
    expect(limited("30").retryAfterDuration).toEqual(Option.some(Duration.seconds(30)))
    expect(limited(" 1.5 ").retryAfterDuration).toEqual(Option.some(Duration.millis(1500)))
    expect(limited("0").retryAfterDuration).toEqual(Option.some(Duration.zero))
    expect(limited("Wed, 21 Oct 2026 07:28:00 GMT").retryAfterDuration).toEqual(Option.none())
    expect(limited("-3").retryAfterDuration).toEqual(Option.none())
    expect(limited(undefined).retryAfterDuration).toEqual(Option.none())
  })
})

describe("error messages", () => {
  it("AgentRuntimeUnavailableError ends the platform's text as one sentence, never with two periods", () => {
    const message = (fields: Partial<ConstructorParameters<typeof A2AError.AgentRuntimeUnavailableError>[0]>) =>
      new A2AError.AgentRuntimeUnavailableError({ state: "update_required", ...fields }).message
    expect(message({ detail: "Runtime reconciliation is queued." })).toBe(
      "The Agent runtime cannot take messages (state update_required): Runtime reconciliation is queued. Nothing was sent"
    )
    expect(message({ detail: "queued", agentSessionUid: "s-1" })).toBe(
      "The Agent runtime cannot take messages (state update_required): queued. Nothing was sent (session s-1)"
    )
    expect(message({})).toBe("The Agent runtime cannot take messages (state update_required). Nothing was sent")
  })

  it("every message is one line without control characters, whatever the platform's texts hold", () => {
    const unavailable = new A2AError.AgentRuntimeUnavailableError({
      agentSessionUid: "s-1",
      state: "update\nrequired",
      notice: { title: "Update\r\nneeded", message: "Run\u001b[2J the\tupdate." },
      detail: "queued\u0007\n"
    })
    expect(unavailable.message).toBe(
      "The Agent runtime cannot take messages (state update required): Update needed — Run the update. — queued. " +
        "Nothing was sent (session s-1)"
    )
    const notReady = new A2AError.AgentRuntimeNotReadyError({
      agentSessionUid: "s-1",
      messageId: "m-1",
      state: "waking\r\u0081up",
      remainingMs: 10,
      retryAfterMs: 500
    })
    expect(notReady.message).toBe(
      "The Agent runtime is still waking up; the next check in 500 ms would not fit in the remaining budget of 10 ms. " +
        "Nothing was sent (session s-1)"
    )
  })
})

describe("the README's retry recipe", () => {
  // A cold start of 3 s; each call has a 1.5 s budget, so the first call ends AgentRuntimeNotReadyError.
  const cold = simulated({
    sessions: [session({
      access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 3000 }] }
    })]
  })

  it.effect("retries while isRetrySafe, with the same messageId, and succeeds once the runtime is up", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const messageId = "msg-retry-recipe-1"
      const attempts: Array<string> = []
      const send = a2a.sendA2AMessage(sessionUid, { message: "hello", messageId, timeout: 1.5 }).pipe(
        Effect.tapError((error) => Effect.sync(() => attempts.push(error._tag))),
        Effect.retry({ schedule: Schedule.spaced("2 seconds"), times: 5, while: A2AError.isRetrySafe })
      )
      const result = yield* runFor(send, "30 seconds")
      expect(result.error).toBeUndefined()
      expect(result.value?.parts).toEqual([{ text: "You said: hello" }])
      expect(attempts).toEqual(["AgentRuntimeNotReadyError"])
      // The first call resolved at 0 and 1 s and gave up (2 s no longer fit); the retry came 2 s later.
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000, 3000])
      const sends = yield* runtimeSends
      expect(sends.map((s) => [s.messageId, s.atMs])).toEqual([[messageId, 3000]])
    }).pipe(Effect.provide(cold)))

  it.effect("does not retry an error that is not retry-safe", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      let calls = 0
      const send = Effect.suspend(() => {
        calls++
        return a2a.sendA2AMessage(sessionUid, { message: "   " })
      }).pipe(Effect.retry({ schedule: Schedule.spaced("2 seconds"), times: 5, while: A2AError.isRetrySafe }))
      const error = yield* Effect.flip(send)
      expect([error._tag, calls]).toEqual(["A2AInputError", 1])
    }).pipe(Effect.provide(cold)))
})

// SPEC §5/§6: an error of the session's resolution reaches every call that waits for it; every call reports its
// own ids: session, message id and, for a follow-up turn, its Task id.
describe("each call's own ids on an error of a shared resolution", () => {
  it.effect("a resolve cut by its phase limit: both calls, one a follow-up, each get their own messageId and taskId", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const first = yield* Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, {
        message: "a",
        messageId: "m-a",
        responseKind: "task",
        taskId: "task-a",
        timeout: [5, 2]
      })))
      const joined = yield* Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, {
        message: "b",
        messageId: "m-b",
        responseKind: "task",
        taskId: "task-b",
        timeout: [5, 2]
      })))
      yield* TestClock.adjust("1 minute")
      const firstError = yield* Fiber.join(first)
      const joinedError = yield* Fiber.join(joined)
      const cutResolve = {
        _tag: "A2ATimeoutError",
        agentSessionUid: sessionUid,
        step: "resolve-runtime-access",
        limit: "read",
        seconds: 2,
        messageMayHaveBeenSent: false
      }
      expect({ ...firstError }).toEqual({ ...cutResolve, messageId: "m-a", taskId: "task-a" })
      expect({ ...joinedError }).toEqual({ ...cutResolve, messageId: "m-b", taskId: "task-b" })
      // one shared resolve, cut once; nothing sent
      expect((yield* resolves).map((r) => [r.atMs, r.outcome])).toEqual([[0, "interrupted"]])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ backend: { resolveDelay: "forever" }, agent: { taskSupport: true } })]
    }))))
})

// SPEC §3: `runtime_presence` is for display only; a transient answer whose presence has another shape still
// waits, and running out of budget is `AgentRuntimeNotReadyError` without a detail.
describe("a transient answer without a usable presence", () => {
  it.effect("a string presence: progress without presence fields, AgentRuntimeNotReadyError without detail", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const events: Array<A2AProgressEvent> = []
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", timeout: 3 }).pipe(
          Effect.provideService(A2AProgress, { report: (event) => Effect.sync(() => void events.push(event)) })
        ),
        "1 minute"
      )
      expect({ ...error }).toEqual({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        state: "starting",
        retryAfterMs: 2000,
        remainingMs: 1000
      })
      expect(error).toHaveProperty("detail", undefined)
      expect(events).toEqual([{ _tag: "MessagePrepared", agentSessionUid: sessionUid, messageId: "m-1" }, {
        _tag: "RuntimeAccessProgress",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        state: "starting",
        notice: undefined,
        presencePhase: undefined,
        presenceDetail: undefined,
        retryAfterMs: 2000,
        attempt: 1
      }])
      expect(millis).toBe(2000)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 2000])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: { _tag: "StuckTransient", state: "starting", retryAfterMs: 2000 },
        backend: { oddDiagnostics: "string" }
      })]
    }))))

  it.effect("a string presence on a terminal answer: AgentRuntimeUnavailableError without presenceDetail", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }), "1 minute")
      expect({ ...error }).toEqual({
        _tag: "AgentRuntimeUnavailableError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        state: "unavailable",
        detail: "The runtime is not available."
      })
      expect(error).toHaveProperty("presenceDetail", undefined)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "Terminal", state: "unavailable" }, backend: { oddDiagnostics: "string" } })]
    }))))
})

// SPEC §5: `messageMayHaveBeenSent` is the call's own. A resolution's errors carry the resolution's (nothing
// sent by it); a call that had already sent its message once, and waits for the fresh resolution after a
// runtime 401, reports true.
describe("each call's own messageMayHaveBeenSent on an error of the fresh resolution", () => {
  it.effect("sent once, 401, the fresh resolve's connection reset: A2ATransportError with messageMayHaveBeenSent true", () =>
    Effect.gen(function*() {
      let resolveCount = 0
      const layer = fakePlatform((request) => {
        if (request.url.startsWith("https://runtime.example/")) return Effect.succeed(jsonResponse(request, 401, {}))
        resolveCount++
        if (resolveCount === 1) return Effect.succeed(jsonResponse(request, 200, readyAccessForTests))
        return Effect.fail(
          new HttpClientError.RequestError({
            request,
            reason: "Transport",
            cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })
          })
        )
      })
      const error = yield* Effect.flip(
        Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
          .pipe(Effect.provide(layer))
      )
      expect(resolveCount).toBe(2)
      expect({ ...error }).toMatchObject({
        _tag: "A2ATransportError",
        step: "resolve-runtime-access",
        messageId: "m-a",
        messageMayHaveBeenSent: true,
        code: "ECONNRESET"
      })
    }))
})

// SPEC §5: a call that waited for a waking runtime and was admitted is no longer waiting: a connect timeout of
// its send is an A2ATimeoutError of the send (limit connect), not AgentRuntimeNotReadyError.
describe("the send's connect limit after a wait", () => {
  it.effect("waking, then admitted, then the send's connect times out: A2ATimeoutError send-message / connect", () =>
    Effect.gen(function*() {
      let resolveCount = 0
      const waking = {
        ...readyAccessForTests,
        runtime_interaction: {
          state: "starting",
          can_submit: false,
          notice: null,
          operation: null,
          retry_after_ms: 100
        }
      }
      const layer = fakePlatform((request) => {
        if (request.url.startsWith("https://runtime.example/")) {
          return Effect.fail(
            new HttpClientError.RequestError({
              request,
              reason: "Transport",
              cause: Object.assign(new Error("Connect Timeout Error"), { code: "UND_ERR_CONNECT_TIMEOUT" })
            })
          )
        }
        resolveCount++
        return Effect.succeed(jsonResponse(request, 200, resolveCount === 1 ? waking : readyAccessForTests))
      })
      const call = yield* Effect.fork(Effect.flip(
        Effect.flatMap(
          A2AClient.A2AClient,
          (a2a) => a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: [5, 30] })
        ).pipe(Effect.provide(layer))
      ))
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(call)
      expect(resolveCount).toBe(2)
      expect({ ...error }).toMatchObject({
        _tag: "A2ATimeoutError",
        step: "send-message",
        limit: "connect",
        seconds: 5,
        messageMayHaveBeenSent: false,
        messageId: "m-a"
      })
    }))
})

// Every bearer token that crossed the wire, read from the requests themselves.
const secrets = new Set<string>([
  Redacted.value(SimulatedPlatform.defaultUserAccessToken),
  Redacted.value(SimulatedPlatform.defaultRefreshToken)
])
const recordingHttpClient = Layer.effect(
  HttpClient.HttpClient,
  Effect.map(SimulatedHttpClient.make, (client) =>
    HttpClient.tapRequest(client, (request) =>
      Effect.sync(() => {
        const authorization = request.headers["authorization"]
        if (authorization !== undefined) secrets.add(authorization.replace(/^Bearer /, ""))
      })))
)

const layer = (options: SimulatedPlatform.Options) =>
  A2AClient.layer({
    backendUrl: SimulatedPlatform.defaultBaseUrl,
    accessToken: SimulatedPlatform.defaultUserAccessToken,
    refreshToken: SimulatedPlatform.defaultRefreshToken
  }).pipe(
    Layer.provideMerge(Layer.merge(recordingHttpClient, RuntimeAccessCache.layerMemory)),
    Layer.merge(sendBodiesConform),
    Layer.provideMerge(SimulatedPlatform.layer(options)),
    Layer.orDie
  )

describe("secrets", () => {
  it.effect(
    "no token in any error message, error field, span (attributes and exit) or log line",
    () =>
      Effect.gen(function*() {
        const { spans, tracer } = yield* recordSpans
        const logs: Array<string> = []
        const logger = Logger.make(({ message }) => void logs.push(JSON.stringify(message)))
        const behaviours = [
          { access: { _tag: "Ready" as const }, token: { rejectFirstSends: 1 } },
          { token: { rejectAll: 403 as const } },
          { agent: { behaviour: { _tag: "Invalid" as const, violation: "role_responder" as const } } },
          { agent: { behaviour: { _tag: "GatewayError" as const, status: 504 as const } } },
          { agent: { behaviour: { _tag: "ConnectionFailure" as const } } },
          { agent: { behaviour: { _tag: "Answer" as const, trickle: { chunks: 5, gapMs: 2000 } } } },
          { access: { _tag: "ContractBreaking" as const, violation: "mode_not_token" as const } },
          { backend: { resolveFault: { status: 401 } } },
          { access: { _tag: "StuckTransient" as const, state: "waking" as const, retryAfterMs: 2000 } }
        ]
        const texts: Array<string> = []
        for (const scenario of behaviours) {
          const result = yield* runFor(
            Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: 5 }))
              .pipe(
                Effect.provide(layer({ userTokensExpired: true, sessions: [session(scenario)] }))
              ),
            "1 minute"
          ).pipe(
            Effect.withTracer(tracer),
            Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
            Logger.withMinimumLogLevel(LogLevel.All)
          )
          if (result.error !== undefined) {
            texts.push(result.error.message, String(result.error), JSON.stringify(result.error))
          }
        }
        texts.push(...spanTexts(spans), ...logs)
        expect(secrets.size).toBeGreaterThan(3)
        expect(spans.length).toBeGreaterThan(20)
        expect(spans.some((s) => s.name === "a2a.client.refresh_credentials")).toBe(true)
        for (const text of texts) {
          for (const secret of secrets) expect(text).not.toContain(secret)
        }
      }),
    30_000
  )
})

// A platform that puts the secrets it was sent into its own words: each request's bearer token (the user's
// access token, a runtime token) and the refresh token, echoed where the SDK shows the platform's text.
const bearerOf = (request: HttpClientRequest.HttpClientRequest): string =>
  (request.headers["authorization"] ?? "").replace(/^Bearer /, "")
const isResolve = (request: HttpClientRequest.HttpClientRequest) => request.url.endsWith("/resolve-runtime-access/")
const isSend = (request: HttpClientRequest.HttpClientRequest) => request.url.endsWith("/message:send")
const refreshToken = Redacted.value(SimulatedPlatform.defaultRefreshToken)
/** A proxy's password a gateway shows (the client never sends it to the platform). */
const proxyPassword = "pr0xy-pa55word"
/** A runtime token the backend hands out in the answers below (never sent by the client before). */
const handedOut = "rt-handed-out-5f0c1d2e3a4b"
const resolveAnswer = (overrides: Record<string, unknown>) => ({
  mode: "token",
  rpc_url: `${base}/runtimes/svc/`,
  token: handedOut,
  expires_at: null,
  runtime_interaction: { state: "ready", can_submit: true, notice: null, operation: null, retry_after_ms: null },
  ...overrides
})

/** `secret` with a BEL in its middle: control characters go from the platform's text, the secret must not return. */
const splitByBell = (secret: string) => `${secret.slice(0, 8)}\u0007${secret.slice(8)}`

const echoing: ReadonlyArray<
  readonly [
    string,
    string,
    (request: HttpClientRequest.HttpClientRequest) => Answer | undefined,
    /** Fields the error keeps, scrubbed. */
    expected?: Record<string, unknown>
  ]
> = [
  [
    "a backend 401 whose detail names the user's token",
    "NotLoggedInError",
    (r) => isResolve(r) ? { status: 401, body: { detail: `Token '${bearerOf(r)}' is expired` } } : undefined
  ],
  [
    "a backend 500 whose message names the user's access and refresh tokens",
    "ServerError",
    (r) =>
      isResolve(r)
        ? { status: 500, body: { message: `crash: access=${bearerOf(r)} refresh=${refreshToken}` } }
        : undefined
  ],
  [
    "a backend 2xx text naming the user's token",
    "BackendContractError",
    (r) => isResolve(r) ? { status: 200, text: `session for ${bearerOf(r)}` } : undefined
  ],
  [
    "a backend 503 whose body is a resolve answer (its token in the excerpt)",
    "ServerError",
    (r) => isResolve(r) ? { status: 503, body: resolveAnswer({}) } : undefined
  ],
  [
    "a terminal resolve answer whose state, notice and detail quote its own token and the user's",
    "AgentRuntimeUnavailableError",
    (r) =>
      isResolve(r)
        ? {
          status: 200,
          body: resolveAnswer({
            detail: `token ${handedOut} refused`,
            runtime_interaction: {
              state: handedOut,
              can_submit: false,
              notice: { title: bearerOf(r), message: `use ${handedOut}`, code: handedOut, severity: null },
              retry_after_ms: null
            },
            runtime_presence: { phase: "down", detail: `presence ${handedOut}` }
          })
        }
        : undefined,
    {
      state: "<redacted>",
      notice: { title: "<redacted>", message: "use <redacted>", code: "<redacted>", severity: null },
      detail: "token <redacted> refused",
      presenceDetail: "presence <redacted>"
    }
  ],
  [
    "a transient resolve answer whose presence detail quotes its own token",
    "AgentRuntimeNotReadyError",
    (r) =>
      isResolve(r)
        ? {
          status: 200,
          body: resolveAnswer({
            runtime_interaction: { state: "waking", can_submit: false, retry_after_ms: 10_000_000 },
            runtime_presence: { phase: "starting", detail: `pulling for ${handedOut}`, replicas: 1 }
          })
        }
        : undefined,
    { state: "waking", detail: "pulling for <redacted>" }
  ],
  [
    "an admitting resolve answer whose expires_at and service uid are the user's token",
    "ServerError",
    (r) =>
      isResolve(r)
        ? {
          status: 200,
          body: resolveAnswer({ expires_at: bearerOf(r), coding_agent_service_uid: `svc ${bearerOf(r)}` })
        }
        : isSend(r)
        ? { status: 503, text: "down" }
        : undefined
  ],
  [
    "a resolve answer whose rpc_url scheme is its own token",
    "BackendContractError",
    (r) => isResolve(r) ? { status: 200, body: resolveAnswer({ rpc_url: `${handedOut}:opaque` }) } : undefined
  ],
  [
    "a runtime 400 whose google.rpc message (and reason) is the runtime token",
    "A2ARequestError",
    (r) =>
      isSend(r)
        ? {
          status: 400,
          body: {
            error: {
              code: 400,
              message: `bad bearer ${bearerOf(r)}`,
              details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: bearerOf(r) }]
            }
          }
        }
        : undefined
  ],
  [
    "a runtime answer whose role is the runtime token",
    "InvalidA2AResponseError",
    (r) =>
      isSend(r)
        ? {
          status: 200,
          body: { message: { role: bearerOf(r), messageId: "a1", contextId: sessionUid, parts: [{ text: "x" }] } }
        }
        : undefined
  ],
  [
    "a runtime 502 whose text carries a resolve answer with the runtime token",
    "ServerError",
    (r) =>
      isSend(r)
        ? { status: 502, text: `upstream said ${JSON.stringify(resolveAnswer({ token: bearerOf(r) }), null, 1)}` }
        : undefined
  ],
  [
    "a gateway page naming a proxy URL with credentials and a Basic Proxy-Authorization",
    "ServerError",
    (r) =>
      isSend(r)
        ? {
          status: 502,
          text: `upstream http://alice:${proxyPassword}@proxy:3128 refused Basic ${btoa(`alice:${proxyPassword}`)}`
        }
        : undefined
  ],
  [
    "a backend 403 whose detail splits the user's token with a control character",
    "PermissionDeniedError",
    (r) => isResolve(r) ? { status: 403, body: { detail: `token ${splitByBell(bearerOf(r))} refused` } } : undefined,
    { detail: "token <redacted> refused" }
  ],
  [
    "a terminal notice that splits the user's token with ESC",
    "AgentRuntimeUnavailableError",
    (r) =>
      isResolve(r)
        ? {
          status: 200,
          body: resolveAnswer({
            runtime_interaction: {
              state: "unavailable",
              can_submit: false,
              notice: { title: "down", message: `use \u001b${bearerOf(r)}` },
              retry_after_ms: null
            }
          })
        }
        : undefined,
    { notice: { title: "down", message: "use <redacted>" } }
  ],
  [
    "a backend 429 whose Retry-After names the user's token",
    "RateLimitedError",
    (r) =>
      isResolve(r)
        ? { status: 429, body: { detail: "slow down" }, headers: { "retry-after": `30 ${bearerOf(r)}` } }
        : undefined,
    { retryAfter: "30 <redacted>" }
  ],
  [
    "a runtime 500 whose google.rpc message and reason split the runtime token with control characters",
    "ServerError",
    (r) =>
      isSend(r)
        ? {
          status: 500,
          body: {
            error: {
              code: 500,
              message: `bad bearer ${splitByBell(bearerOf(r))}`,
              details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: splitByBell(bearerOf(r)) }]
            }
          }
        }
        : undefined,
    { detail: "bad bearer <redacted>", reason: "<redacted>" }
  ],
  [
    "a runtime answer whose role splits the runtime token with a control character",
    "InvalidA2AResponseError",
    (r) =>
      isSend(r)
        ? {
          status: 200,
          body: {
            message: { role: splitByBell(bearerOf(r)), messageId: "a1", contextId: sessionUid, parts: [{ text: "x" }] }
          }
        }
        : undefined,
    { reason: "the message role must be ROLE_AGENT (got \"<redacted>\")" }
  ],
  [
    "a runtime 500 text whose token is cut by the 200-character excerpt",
    "ServerError",
    (r) => isSend(r) ? { status: 500, text: `${"x".repeat(190)} ${bearerOf(r)}` } : undefined
  ]
]

describe("secrets: a platform that echoes them", () => {
  for (const [what, tag, answer, expected] of echoing) {
    it.effect(`no secret in the error, its spans or logs: ${what}`, () =>
      Effect.gen(function*() {
        const sent = new Set([refreshToken, handedOut, proxyPassword, btoa(`alice:${proxyPassword}`)])
        const { layer } = simulatedWith({ sessions: [session()] }, (request) => {
          const bearer = bearerOf(request)
          if (bearer !== "") sent.add(bearer)
          return answer(request)
        }, { refreshToken: SimulatedPlatform.defaultRefreshToken })
        const { spans, tracer } = yield* recordSpans
        const logs: Array<string> = []
        const logger = Logger.make(({ message }) => void logs.push(JSON.stringify(message)))
        const error = yield* Effect.flip(
          Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" }))
        ).pipe(
          Effect.provide(layer),
          Effect.withTracer(tracer),
          Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
          Logger.withMinimumLogLevel(LogLevel.All)
        )
        expect(error).toMatchObject({ _tag: tag, ...expected })
        const texts = [...errorTexts(error), ...spanTexts(spans), ...logs]
        // the platform's words are kept, the secrets replaced by the marker
        expect(texts.join("\n")).toContain("<redacted") // (the marker itself may be cut by an excerpt)
        for (const text of texts) {
          for (const secret of sent) expect(text).not.toContain(secret)
        }
      }))
  }
})

describe("secrets: a platform that echoes them base64-encoded", () => {
  it.effect("no secret in the error: a runtime 500 that quotes its token and the user's inside base64 values", () =>
    Effect.gen(function*() {
      // `name=<token>;` encoded whole: the token's characters depend on where its bytes stand in the value
      const encodedIn = (name: string, secret: string) => btoa(`${name}=${secret};`)
      let encoded: ReadonlyArray<string> = []
      const { layer } = simulatedWith({ sessions: [session()] }, (request) => {
        if (!isSend(request)) return undefined
        encoded = [encodedIn("rt", bearerOf(request)), encodedIn("refresh", refreshToken)]
        return { status: 500, body: { message: `cookies ${encoded.join(" ")}` } }
      }, { refreshToken: SimulatedPlatform.defaultRefreshToken })
      const error = yield* Effect.flip(
        Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      ).pipe(Effect.provide(layer))
      expect(error._tag).toBe("ServerError")
      expect(error.message).toMatch(/cookies cnQ9\S?<redacted>\S{0,4} cmVmcmVzaD\S?<redacted>\S{0,4} /)
      // what is left of each value is its name's and the `;`'s characters
      for (const value of encoded) expect(errorTexts(error).join("\n")).not.toContain(value.slice(8, -8))
    }))
})

describe("secrets: the Agent's profile and a waking runtime's notice, echoing them", () => {
  it.effect("TaskModeNotSupportedError: an agent_uid and response kinds that quote the user's token", () =>
    Effect.gen(function*() {
      const sent = new Set<string>()
      const { layer } = simulatedWith({ sessions: [session()] }, (request) => {
        const bearer = bearerOf(request)
        if (bearer !== "") sent.add(bearer)
        if (request.url.endsWith(`/agent-sessions/${sessionUid}/`)) {
          return { status: 200, body: { agent_uid: `agent ${bearer}` } }
        }
        if (request.url.includes("/api/v1/agents/")) {
          const kinds = [
            "message",
            `kind ${bearer}`,
            "x".repeat(5000),
            ...Array.from({ length: 40 }, (_, i) => `k${i}`)
          ]
          return { status: 200, body: { a2a_profile: { supported_response_kinds: kinds } } }
        }
        return undefined
      })
      const error = yield* Effect.flip(
        Effect.flatMap(
          A2AClient.A2AClient,
          (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi", responseKind: "task" })
        )
      ).pipe(Effect.provide(layer))
      expect(error).toMatchObject({ _tag: "TaskModeNotSupportedError", agentUid: "agent <redacted>" })
      const kinds = error._tag === "TaskModeNotSupportedError" ? error.supportedResponseKinds : []
      expect(kinds.slice(0, 3)).toEqual(["message", "kind <redacted>", `${"x".repeat(1000)}…`])
      expect(kinds).toHaveLength(16)
      expect(sent.size).toBeGreaterThan(0)
      for (const text of errorTexts(error)) {
        for (const secret of sent) expect(text).not.toContain(secret)
      }
    }))

  it.effect("RuntimeAccessProgress: a notice whose nested values and keys quote the user's token", () =>
    Effect.gen(function*() {
      const sent = new Set<string>()
      const events: Array<A2AProgressEvent> = []
      const { layer } = simulatedWith({ sessions: [session()] }, (request) => {
        const bearer = bearerOf(request)
        if (bearer !== "") sent.add(bearer)
        if (!isResolve(request)) return undefined
        const notice = { title: "waking", extra: { caller: bearer, list: [`for ${bearer}`] }, [bearer]: true }
        return {
          status: 200,
          body: resolveAnswer({
            runtime_interaction: { state: "waking", can_submit: false, notice, retry_after_ms: 1000 }
          })
        }
      })
      yield* failFor(
        Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: 3 }))
          .pipe(
            Effect.provide(layer),
            Effect.provideService(A2AProgress, { report: (event) => Effect.sync(() => void events.push(event)) })
          ),
        "1 minute"
      )
      expect(events.find((event) => event._tag === "RuntimeAccessProgress")).toMatchObject({
        notice: { title: "waking", extra: { caller: "<redacted>", list: ["for <redacted>"] }, "<redacted>": true }
      })
      expect(sent.size).toBeGreaterThan(0)
      for (const secret of sent) expect(JSON.stringify(events)).not.toContain(secret)
    }))
})

describe("secrets: an rpc_url that carries the runtime token", () => {
  // The URL is used as given (SPEC §3); the runtime's errors and spans show it scrubbed, and a host name that
  // holds the token is no server.address.
  const inPath = `${base}/runtimes/svc/${handedOut}/`
  const inHost = `https://${handedOut}.runtime.example/`
  const cases: ReadonlyArray<readonly [string, string, string, Answer, string, string | undefined]> = [
    [
      "in its path, a runtime 500",
      "ServerError",
      inPath,
      { status: 500, text: "down" },
      `${base}/runtimes/svc/<redacted>/`,
      new URL(base).hostname
    ],
    [
      "in its path, a runtime answer of another shape",
      "InvalidA2AResponseError",
      inPath,
      { status: 200, body: { nothing: 1 } },
      `${base}/runtimes/svc/<redacted>/`,
      new URL(base).hostname
    ],
    [
      "as its host name, a runtime 500",
      "ServerError",
      inHost,
      { status: 500, text: "down" },
      "https://<redacted>.runtime.example/",
      undefined
    ]
  ]
  for (const [what, tag, rpcUrl, runtimeAnswer, shown, address] of cases) {
    it.effect(`the error's url and the spans show it redacted, no attribute holds it: ${what}`, () =>
      Effect.gen(function*() {
        const { spans, tracer } = yield* recordSpans
        const { layer } = simulatedWith(
          { sessions: [session()] },
          (request) =>
            isResolve(request)
              ? { status: 200, body: resolveAnswer({ rpc_url: rpcUrl }) }
              : request.url.startsWith(rpcUrl)
              ? runtimeAnswer
              : undefined
        )
        const error = yield* Effect.flip(
          Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" }))
        ).pipe(Effect.provide(layer), Effect.withTracer(tracer))
        const sendUrl = `${shown}api/a2a/v1/message:send`
        expect(error).toMatchObject({ _tag: tag, url: sendUrl })
        const send = spans.find((span) => span.attributes.get("a2a.client.step") === "send-message")
        expect(send?.attributes.get("url.full")).toBe(sendUrl)
        expect(send?.attributes.get("server.address")).toBe(address)
        const attributes = spans.flatMap((span) => [...span.attributes.values()].map(String))
        const labels = Metric.unsafeSnapshot().flatMap((pair) => pair.metricKey.tags.map((tag) => tag.value))
        expect(labels.length).toBeGreaterThan(0)
        for (const text of [...errorTexts(error), ...attributes, ...labels]) expect(text).not.toContain(handedOut)
      }))
  }
})

describe("secrets: a runtime that echoes them to Task requests", () => {
  const isGetTask = (request: HttpClientRequest.HttpClientRequest) => request.url.includes("/api/a2a/v1/tasks/")
  const cases: ReadonlyArray<
    readonly [string, string, (request: HttpClientRequest.HttpClientRequest) => Answer | undefined]
  > = [
    [
      "a 404 whose google.rpc message names the runtime token",
      "TaskNotFoundError",
      (r) =>
        isGetTask(r)
          ? {
            status: 404,
            body: {
              error: {
                code: 404,
                message: `no task for ${bearerOf(r)}`,
                details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND" }]
              }
            }
          }
          : undefined
    ],
    [
      "a Task whose contextId is the runtime token",
      "InvalidA2AResponseError",
      (r) =>
        isGetTask(r)
          ? { status: 200, body: { id: "t1", contextId: bearerOf(r), status: { state: "TASK_STATE_WORKING" } } }
          : undefined
    ]
  ]
  it.effect("no secret in the timeout's last Task: a Task whose status message echoes the runtime token", () =>
    Effect.gen(function*() {
      const sent = new Set<string>()
      const { layer } = simulatedWith({ sessions: [session()] }, (request) => {
        if (!isGetTask(request)) return undefined
        sent.add(bearerOf(request))
        const echoed = { messageId: "s1", role: "ROLE_AGENT", parts: [{ text: `auth Bearer ${bearerOf(request)}` }] }
        return {
          status: 200,
          body: {
            id: "t1",
            contextId: sessionUid,
            status: { state: "TASK_STATE_WORKING", message: echoed },
            metadata: { [bearerOf(request)]: { seen: [bearerOf(request)] } }
          }
        }
      })
      const { error } = yield* failFor(
        Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.waitForA2ATask(sessionUid, "t1", { timeout: 3 }))
          .pipe(Effect.provide(layer)),
        "1 minute"
      )
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        lastTask: {
          id: "t1",
          status: { message: { parts: [{ text: "auth Bearer <redacted>" }] } },
          metadata: { "<redacted>": { seen: ["<redacted>"] } }
        }
      })
      expect(sent.size).toBeGreaterThan(0)
      for (const text of errorTexts(error)) {
        for (const secret of sent) expect(text).not.toContain(secret)
      }
    }))

  for (const [what, tag, answer] of cases) {
    it.effect(`no secret in the error: ${what}`, () =>
      Effect.gen(function*() {
        const sent = new Set<string>()
        const { layer } = simulatedWith({ sessions: [session()] }, (request) => {
          sent.add(bearerOf(request))
          return answer(request)
        })
        const error = yield* Effect.flip(Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.getA2ATask(sessionUid, "t1")))
          .pipe(Effect.provide(layer))
        expect(error._tag).toBe(tag)
        const texts = errorTexts(error)
        expect(texts.join("\n")).toContain("<redacted>")
        for (const text of texts) {
          for (const secret of sent) expect(text).not.toContain(secret)
        }
      }))
  }
})
