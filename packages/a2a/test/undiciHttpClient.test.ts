// The Node layer's own HttpClient as any user of `layerHttpClient` sees it: a complete HttpClientResponse over
// real sockets on 127.0.0.1 (the SDK itself reads bodies chunk by chunk; these are the other readers).
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as UrlParams from "@effect/platform/UrlParams"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Node from "../src/node.js"
import { serve } from "./recordingServer.js"

const client = HttpClient.HttpClient

describe("the Node layer's HttpClient (real sockets)", () => {
  it.scopedLive("status, headers, cookies, and a body read whole: text and json cached, arrayBuffer the same bytes", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((_req, res) => {
        res.setHeader("content-type", "application/json")
        res.setHeader("set-cookie", ["a=1", "b=2"])
        res.setHeader("x-multi", ["one", "two"])
        res.statusCode = 201
        res.end(JSON.stringify({ ok: true, text: "héllo" }))
      })
      const http = yield* client
      const response = yield* http.get(`${url}/path?q=1`)
      expect(response.status).toBe(201)
      expect(response.headers["content-type"]).toBe("application/json")
      expect(response.headers["x-multi"]).toBe("one, two")
      expect(response.cookies.cookies).toHaveProperty("a")
      expect(response.cookies.cookies).toHaveProperty("b")
      expect(yield* response.json).toEqual({ ok: true, text: "héllo" })
      expect(yield* response.text).toBe(JSON.stringify({ ok: true, text: "héllo" }))
      const bytes = new Uint8Array(yield* response.arrayBuffer)
      expect(new TextDecoder().decode(bytes)).toBe(JSON.stringify({ ok: true, text: "héllo" }))
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("sends the exact request: method, path, query, headers and body bytes", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve((_req, res) => res.end("ok"))
      const http = yield* client
      const body = new TextEncoder().encode("{\"exact\":\"bytes ✓\"}")
      const response = yield* http.execute(
        HttpClientRequest.post(`${url}/api/a2a/v1/message:send`).pipe(
          HttpClientRequest.setUrlParams(UrlParams.fromInput({ a: "1" })),
          HttpClientRequest.setHeader("a2a-version", "1.0"),
          HttpClientRequest.bodyUint8Array(body, "application/a2a+json")
        )
      )
      expect(yield* response.text).toBe("ok")
      expect(seen).toHaveLength(1)
      expect({ ...seen[0], body: seen[0]?.body.toString() }).toMatchObject({
        method: "POST",
        url: "/api/a2a/v1/message:send?a=1",
        body: "{\"exact\":\"bytes ✓\"}"
      })
      expect(seen[0]?.headers["a2a-version"]).toBe("1.0")
      expect(seen[0]?.headers["content-type"]).toBe("application/a2a+json")
      expect(seen[0]?.headers["content-length"]).toBe(String(body.byteLength))
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("a chunked body as a stream: every chunk, in order; a refused connection is a Transport RequestError", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((_req, res) => {
        res.write("one,")
        setTimeout(() => {
          res.write("two,")
          setTimeout(() => res.end("three"), 10)
        }, 10)
      })
      const http = yield* client
      const response = yield* http.get(url)
      const chunks = yield* Stream.runCollect(response.stream)
      expect(Chunk.toReadonlyArray(chunks).map((c) => new TextDecoder().decode(c)).join("")).toBe("one,two,three")
      const refused = yield* Effect.flip(http.get("http://127.0.0.1:1/"))
      expect(refused).toMatchObject({ _tag: "RequestError", reason: "Transport" })
    }).pipe(Effect.provide(Node.layerHttpClient())))
})
