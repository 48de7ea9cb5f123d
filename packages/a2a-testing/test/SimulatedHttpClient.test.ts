import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { layerTest, SimulatedPlatform } from "../src/index.js"
import { admitted, BASE, messageBody, resolveRequest, scenario, sendRequest } from "./support.js"

const layer = layerTest({ sessions: [scenario()] })

describe("SimulatedHttpClient responses (as a web Response presents them)", () => {
  it.effect("head, text, json from the cached text; the body is read once", () =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(resolveRequest())
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("application/json")
      const text = yield* response.text
      expect(JSON.parse(text)).toMatchObject({ mode: "token" })
      expect(response.headers["content-length"]).toBe(String(new TextEncoder().encode(text).length))
      expect(yield* response.json).toEqual(JSON.parse(text))
      expect(yield* response.text).toBe(text)
      const again = yield* Effect.flip(response.arrayBuffer)
      expect(again).toMatchObject({
        _tag: "ResponseError",
        reason: "Decode",
        description: "the body has already been read"
      })
      const streamAgain = yield* Effect.flip(Stream.runDrain(response.stream))
      expect(streamAgain).toMatchObject({ _tag: "ResponseError", reason: "Decode" })
    }).pipe(Effect.provide(layer)))

  it.effect("the stream yields the body's bytes; an unparsable body fails json with Decode", () =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const streamed = yield* client.execute(resolveRequest())
      const bytes = yield* Stream.runCollect(streamed.stream)
      const size = [...bytes].reduce((sum, chunk) => sum + chunk.byteLength, 0)
      expect(size).toBe(Number(streamed.headers["content-length"]))
      const html = yield* client.execute(HttpClientRequest.get(`${BASE}/no-such-page/`))
      expect(html.status).toBe(404)
      const buffer = yield* html.arrayBuffer
      expect(buffer.byteLength).toBe(Number(html.headers["content-length"]))
      const other = yield* client.execute(HttpClientRequest.get(`${BASE}/no-such-page/`))
      expect(other.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(yield* other.text).toContain("<title>Not Found</title>")
      expect(yield* Effect.flip(other.json)).toMatchObject({ _tag: "ResponseError", reason: "Decode" })
    }).pipe(Effect.provide(layer)))

  it.effect("with the platform's span off (the SDK's requests), a whole body is one chunk of its stream, handed over once", () =>
    Effect.gen(function*() {
      const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerDisabledWhen(() => true))
      yield* TestClock.adjust("5 seconds")
      const response = yield* client.execute(resolveRequest())
      const chunks = Chunk.toReadonlyArray(yield* Stream.runCollect(response.stream))
      expect(chunks.map((chunk) => chunk.byteLength)).toEqual([Number(response.headers["content-length"])])
      expect(JSON.parse(new TextDecoder().decode(chunks[0]))).toMatchObject({ mode: "token" })
      // Handed over whole: the log has the body complete at that instant.
      const [entry] = yield* Effect.flatMap(SimulatedPlatform.SimulatedPlatform, (platform) => platform.requestLog)
      expect(entry).toMatchObject({ status: 200, bodyOutcome: "complete", bodyEndedAtMs: 5000 })
      expect(yield* Effect.flip(response.text)).toMatchObject({
        _tag: "ResponseError",
        reason: "Decode",
        description: "the body has already been read"
      })
      // Read as bytes instead, a whole body is handed over the same way; its stream is then used up.
      const other = yield* client.execute(resolveRequest())
      expect(JSON.parse(yield* other.text)).toMatchObject({ mode: "token" })
      expect(yield* Effect.flip(Stream.runDrain(other.stream))).toMatchObject({ reason: "Decode" })
    }).pipe(Effect.provide(layer)))

  it.effect("a trickled body is not offered whole: it is read as its stream, chunk after chunk in time", () =>
    Effect.gen(function*() {
      const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerDisabledWhen(() => true))
      const access = yield* admitted()
      const response = yield* client.execute(sendRequest(access.rpcUrl, access.token, messageBody()))
      expect(response.status).toBe(200)
      const reader = yield* Effect.fork(Stream.runCollect(response.stream))
      yield* TestClock.adjust("3 seconds")
      const chunks = yield* Fiber.join(reader)
      expect(chunks.length).toBe(4)
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 4, gapMs: 1000 } } } })]
    }))))

  it.effect("with tracing on (a user's own request), the request carries the platform span's trace context", () =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const traced = yield* client.execute(resolveRequest())
      expect(traced.status).toBe(200)
      const untraced = yield* client.pipe(HttpClient.withTracerDisabledWhen(() => true)).execute(resolveRequest())
      expect(untraced.status).toBe(200)
      const log = yield* Effect.flatMap(SimulatedPlatform.SimulatedPlatform, (platform) => platform.requestLog)
      expect(log.map((entry) => typeof entry.headers["traceparent"])).toEqual(["string", "undefined"])
      expect(log.map((entry) => entry.headers["b3"] === undefined)).toEqual([false, true])
    }).pipe(Effect.provide(layer)))
})
