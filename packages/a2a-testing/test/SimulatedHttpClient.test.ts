import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { layerTest } from "../src/index.js"
import { BASE, resolveRequest, scenario } from "./support.js"

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
})
