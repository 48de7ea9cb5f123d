import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as Http from "node:http"
import * as Node from "../src/node.js"
import { recordSpans } from "./fixtures.js"
import { serve } from "./recordingServer.js"

// The Node layer's own HttpClient (`Node.layerHttpClient()`) over real sockets on 127.0.0.1: every request
// body kind reaches the server as the exact bytes, a body larger than its buffer is read whole (undici
// paused and resumed), a reader that stops ends the exchange, and the platform's client span only while
// tracing is on for the request.

const ok = (_req: Http.IncomingMessage, res: Http.ServerResponse) => res.end("ok")

describe("rules: the Node HttpClient's request bodies (real sockets)", () => {
  it.scopedLive("text, raw string, raw bytes, a stream and form data arrive as their exact bytes", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve(ok)
      const http = yield* HttpClient.HttpClient
      const post = HttpClientRequest.post(`${url}/in`)
      const send = (request: HttpClientRequest.HttpClientRequest) =>
        Effect.flatMap(http.execute(request), (response) => response.text)
      yield* send(HttpClientRequest.bodyText(post, "plain ✓", "text/plain"))
      yield* send(HttpClientRequest.setBody(post, HttpBody.raw("raw text")))
      yield* send(HttpClientRequest.setBody(post, HttpBody.raw(new Uint8Array([1, 2, 3]))))
      yield* send(
        HttpClientRequest.bodyStream(post, Stream.make(new Uint8Array([104, 105]), new Uint8Array([33])), {
          contentType: "application/octet-stream"
        })
      )
      const form = new FormData()
      form.append("field", "value")
      yield* send(HttpClientRequest.bodyFormData(post, form))
      yield* send(HttpClientRequest.get(`${url}/empty`))
      expect(seen.map((s) => s.body.toString("latin1"))).toEqual([
        Buffer.from("plain ✓").toString("latin1"),
        "raw text",
        "\u0001\u0002\u0003",
        "hi!",
        expect.stringContaining("name=\"field\"\r\n\r\nvalue\r\n"),
        ""
      ])
      expect(seen.map((s) => s.headers["content-type"])).toEqual([
        "text/plain",
        undefined,
        undefined,
        "application/octet-stream",
        expect.stringMatching(/^multipart\/form-data; boundary=/),
        undefined
      ])
      expect(seen.map((s) => s.method)).toEqual(["POST", "POST", "POST", "POST", "POST", "GET"])
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("a raw body of another kind is an Encode RequestError; an invalid URL an InvalidUrl one; nothing sent", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve(ok)
      const http = yield* HttpClient.HttpClient
      const raw = yield* Effect.flip(
        http.execute(HttpClientRequest.setBody(HttpClientRequest.post(url), HttpBody.raw({ an: "object" })))
      )
      expect(raw).toMatchObject({ _tag: "RequestError", reason: "Encode", description: "unsupported raw body" })
      const invalid = yield* Effect.flip(http.execute(HttpClientRequest.get("http://")))
      expect(invalid).toMatchObject({ _tag: "RequestError", reason: "InvalidUrl" })
      expect(seen).toEqual([])
    }).pipe(Effect.provide(Node.layerHttpClient())))
})

describe("rules: the Node HttpClient's response bodies (real sockets)", () => {
  it.scopedLive("a body far above the 64 KiB buffer, read after a pause, arrives whole and in order", () =>
    Effect.gen(function*() {
      const size = 4 * 1024 * 1024
      const payload = Buffer.alloc(size)
      for (let i = 0; i < size; i++) payload[i] = (i * 31) % 251
      const { url } = yield* serve((_req, res) => {
        res.setHeader("content-type", "application/octet-stream")
        res.end(payload)
      })
      const http = yield* HttpClient.HttpClient
      const response = yield* http.get(url)
      // let undici fill the buffer (and pause) before anything is read
      yield* Effect.sleep("150 millis")
      const chunks = yield* Stream.runCollect(response.stream)
      const bytes = Buffer.concat(Chunk.toReadonlyArray(chunks))
      expect(bytes.byteLength).toBe(size)
      expect(bytes.equals(payload)).toBe(true)
      // and whole, through arrayBuffer, on a second request
      const again = yield* http.get(url)
      yield* Effect.sleep("150 millis")
      expect(Buffer.from(yield* again.arrayBuffer).equals(payload)).toBe(true)
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("a reader that stops after the first chunk ends the exchange: the server sees the connection close", () =>
    Effect.gen(function*() {
      const closed = yield* Deferred.make<boolean>()
      const { url } = yield* serve((_req, res) => {
        res.on("close", () => Deferred.unsafeDone(closed, Effect.succeed(res.writableFinished)))
        res.write("first chunk")
      })
      const http = yield* HttpClient.HttpClient
      const response = yield* http.get(url)
      const first = yield* Stream.runCollect(Stream.take(response.stream, 1))
      expect(Chunk.toReadonlyArray(first).map((c) => new TextDecoder().decode(c))).toEqual(["first chunk"])
      // the response was never finished by the server: the client closed it
      expect(yield* Deferred.await(closed).pipe(Effect.timeout("5 seconds"))).toBe(false)
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("a request interrupted before its head ends the exchange too", () =>
    Effect.gen(function*() {
      const closed = yield* Deferred.make<boolean>()
      const { url } = yield* serve((_req, res) => {
        res.on("close", () => Deferred.unsafeDone(closed, Effect.succeed(true)))
      })
      const http = yield* HttpClient.HttpClient
      const outcome = yield* http.get(url).pipe(Effect.timeout("200 millis"), Effect.either)
      expect(outcome._tag).toBe("Left")
      yield* Deferred.await(closed).pipe(Effect.timeout("5 seconds"))
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("json of an empty body is null; of a broken one a Decode ResponseError; urlParams and formData", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((req, res) => {
        if (req.url === "/form") {
          res.setHeader("content-type", "application/x-www-form-urlencoded")
          return res.end("a=1&b=two")
        }
        res.end(req.url === "/empty" ? "" : "{broken")
      })
      const http = yield* HttpClient.HttpClient
      expect(yield* Effect.flatMap(http.get(`${url}/empty`), (r) => r.json)).toBeNull()
      const broken = yield* Effect.flip(Effect.flatMap(http.get(`${url}/broken`), (r) => r.json))
      expect(broken).toMatchObject({ _tag: "ResponseError", reason: "Decode" })
      const params = yield* Effect.flatMap(http.get(`${url}/form`), (r) => r.urlParamsBody)
      expect(params).toEqual([["a", "1"], ["b", "two"]])
      const form = yield* Effect.flatMap(http.get(`${url}/form`), (r) => r.formData)
      expect([form.get("a"), form.get("b")]).toEqual(["1", "two"])
    }).pipe(Effect.provide(Node.layerHttpClient())))
})

describe("rules: the Node HttpClient's client span (real sockets)", () => {
  it.scopedLive("with tracing on: the platform's client span (method, URL, status; credentials redacted), its traceparent sent", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve(ok)
      const http = yield* HttpClient.HttpClient
      const { spans, tracer } = yield* recordSpans
      const token = "a-bearer-token-never-in-a-span"
      yield* Effect.flatMap(
        http.execute(HttpClientRequest.get(`${url}/traced?x=1`).pipe(HttpClientRequest.bearerToken(token))),
        (r) => r.text
      ).pipe(Effect.withTracer(tracer))
      const [span, ...more] = spans
      expect(more).toEqual([])
      expect(span?.kind).toBe("client")
      expect(span?.name).toBe("http.client GET")
      const attributes = Object.fromEntries(span?.attributes ?? [])
      expect(attributes).toMatchObject({
        "http.request.method": "GET",
        "server.address": url,
        "url.full": `${url}/traced?x=1`,
        "url.path": "/traced",
        "http.response.status_code": 200
      })
      expect(JSON.stringify(attributes)).not.toContain(token)
      expect(seen[0]?.headers["authorization"]).toBe(`Bearer ${token}`)
      expect(seen[0]?.headers["traceparent"]).toBe(`00-${span?.traceId}-${span?.spanId}-01`)
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("with the span disabled for the request, or propagation off: no span, or no traceparent", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve(ok)
      const http = yield* HttpClient.HttpClient
      const { spans, tracer } = yield* recordSpans
      yield* Effect.flatMap(http.get(url), (r) => r.text).pipe(
        Effect.locally(HttpClient.currentTracerDisabledWhen, () => true),
        Effect.withTracer(tracer)
      )
      expect(spans).toEqual([])
      expect(seen[0]?.headers["traceparent"]).toBeUndefined()
      yield* Effect.flatMap(http.get(url), (r) => r.text).pipe(
        Effect.locally(HttpClient.currentTracerPropagation, false),
        Effect.withTracer(tracer)
      )
      expect(spans).toHaveLength(1)
      expect(seen[1]?.headers["traceparent"]).toBeUndefined()
    }).pipe(Effect.provide(Node.layerHttpClient())))
})
