import * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import { SimulatedHttpClient, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as A2AClient from "../src/A2AClient.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import { recordSpans, runFor, sendBodiesConform, session, sessionUid } from "./fixtures.js"

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
        for (const span of spans) {
          texts.push(span.name, JSON.stringify([...span.attributes.entries()]))
          if (span.status._tag === "Ended") {
            texts.push(
              JSON.stringify(span.status.exit),
              Cause.pretty(Exit.causeOption(span.status.exit).pipe(Option.getOrElse(() => Cause.empty)))
            )
          }
        }
        texts.push(...logs)
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
