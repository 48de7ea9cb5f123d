import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import { SimulatedHttpClient, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as A2AClient from "../src/A2AClient.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import { errorTexts, recordSpans, runFor, sendBodiesConform, session, sessionUid, spanTexts } from "./fixtures.js"
import { type Answer, base, simulatedWith } from "./rules.fixtures.js"

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
      state: "[redacted]",
      notice: { title: "[redacted]", message: "use [redacted]", code: "[redacted]", severity: null },
      detail: "token [redacted] refused",
      presenceDetail: "presence [redacted]"
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
    { state: "waking", detail: "pulling for [redacted]" }
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
        expect(texts.join("\n")).toContain("[redacted") // (the marker itself may be cut by an excerpt)
        for (const text of texts) {
          for (const secret of sent) expect(text).not.toContain(secret)
        }
      }))
  }
})

describe("secrets: an rpc_url that carries the runtime token", () => {
  // The URL is used as given (SPEC §3); the runtime's errors show it scrubbed.
  const rpcUrl = `${base}/runtimes/svc/${handedOut}/`
  const cases: ReadonlyArray<readonly [string, string, Answer]> = [
    ["a runtime 500", "ServerError", { status: 500, text: "down" }],
    ["a runtime answer of another shape", "InvalidA2AResponseError", { status: 200, body: { nothing: 1 } }]
  ]
  for (const [what, tag, runtimeAnswer] of cases) {
    it.effect(`the error's url and the request's span show it redacted: ${what}`, () =>
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
        expect(error).toMatchObject({ _tag: tag, url: `${base}/runtimes/svc/[redacted]/api/a2a/v1/message:send` })
        const send = spans.find((span) => span.attributes.get("a2a.client.step") === "send-message")
        expect(send?.attributes.get("url.full")).toBe(`${base}/runtimes/svc/[redacted]/api/a2a/v1/message:send`)
        const attributes = spans.flatMap((span) => [...span.attributes.values()].map(String))
        for (const text of [...errorTexts(error), ...attributes]) expect(text).not.toContain(handedOut)
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
        expect(texts.join("\n")).toContain("[redacted]")
        for (const text of texts) {
          for (const secret of sent) expect(text).not.toContain(secret)
        }
      }))
  }
})
