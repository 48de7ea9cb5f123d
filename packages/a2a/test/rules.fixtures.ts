import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as A2AClient from "../src/A2AClient.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import * as Timeout from "../src/Timeout.js"
import { sendBodiesConform } from "./fixtures.js"

/** A hand-written answer for one request: status, body text (JSON when an object is given) and headers. */
export interface Answer {
  readonly status: number
  readonly body?: unknown
  readonly text?: string
  readonly headers?: Record<string, string>
}

export const base = SimulatedPlatform.defaultBaseUrl

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
