/**
 * Real sends through the SDK's Node client, over real HTTP to the simulated platform, with the Redis store as
 * the access cache; every bearer token that crossed the wire is recorded for the secrecy checks.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { expect } from "@effect/vitest"
import { A2AClient } from "@mainsequence/a2a"
import { demoSessionUids, demoUserAccessToken } from "@mainsequence/a2a-testing/node"
import * as A2ANode from "@mainsequence/a2a/node"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as Redacted from "effect/Redacted"
import { RedisRuntimeAccessStore } from "../src/index.js"

export const encryptionKey = { id: "k1", key: Redacted.make(Buffer.alloc(32, 3).toString("base64")) }
export const readySession = demoSessionUids.ready

/** Tokens seen on the wire, and every log line of the program (message, annotations and cause). */
export interface Observed {
  readonly tokens: Set<string>
  readonly logs: Array<string>
}

/** Runs `body` with what it observes; every log line of the program goes to `observed.logs`. */
export const observing = <A, E, R>(body: (observed: Observed) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const observed: Observed = { tokens: new Set([Redacted.value(demoUserAccessToken)]), logs: [] }
    const logger = Logger.make(({ annotations, cause, logLevel, message }) =>
      void observed.logs.push(
        `${logLevel.label} ${JSON.stringify(message)} ${JSON.stringify([...annotations])} ${Cause.pretty(cause)}`
      )
    )
    return Effect.provide(body(observed), Logger.replace(Logger.defaultLogger, logger))
  })

const recordingHttpClient = (observed: Observed) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      HttpClient.tapRequest(client, (request) =>
        Effect.sync(() => {
          const authorization = request.headers["authorization"]
          if (authorization !== undefined) observed.tokens.add(authorization.replace(/^Bearer /, ""))
        })))
  ).pipe(Layer.provide(A2ANode.layerHttpClient({ proxy: "none" })))

/** A client of its own (own pool, own Redis connection): one "process" of the fleet. */
export const clientLayer = (
  backendUrl: string,
  store: RedisRuntimeAccessStore.Options,
  observed: Observed
): Layer.Layer<A2AClient.A2AClient> =>
  A2AClient.layer({ backendUrl, accessToken: demoUserAccessToken }).pipe(
    Layer.provide(Layer.merge(recordingHttpClient(observed), RedisRuntimeAccessStore.layer(store))),
    Layer.orDie
  )

export interface Sent {
  readonly answer: string
  readonly millis: number
}

/** One send to `session` with a 10 s budget, by a client built once (`Layer.build`); its result and duration. */
export const timedSend = (
  client: Context.Context<A2AClient.A2AClient>,
  session: string = readySession
): Effect.Effect<Sent> =>
  Effect.gen(function*() {
    const started = performance.now()
    const answer = yield* Effect.flatMap(
      A2AClient.A2AClient,
      (client) => client.sendA2AMessage(session, { message: "hello", timeout: 10 })
    ).pipe(Effect.provide(client), Effect.either)
    return {
      answer: Either.match(answer, { onLeft: (error) => `failed: ${error.message}`, onRight: () => "answered" }),
      millis: performance.now() - started
    }
  })

/** A send that must answer (not fail) within `withinMillis`. */
export const expectAnswerWithin = (sent: Sent, withinMillis: number) => {
  expect(sent.answer).toBe("answered")
  expect(sent.millis).toBeLessThan(withinMillis)
}

export const storeErrorsOf = (errorType: string) =>
  Effect.map(
    Metric.value(Metric.tagged(RedisRuntimeAccessStore.storeErrors, "error.type", errorType)),
    (state) => state.count
  )

/** No recorded token (nor the Redis password) in any of `texts`. */
export const expectNoSecrets = (observed: Observed, texts: ReadonlyArray<string>, more: ReadonlyArray<string> = []) => {
  // the user's token and at least one runtime token crossed the wire
  expect(observed.tokens.size).toBeGreaterThan(1)
  for (const secret of [...observed.tokens, ...more]) {
    for (const text of texts) expect(text).not.toContain(secret)
  }
}
