import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as A2AClient from "../src/A2AClient.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import { sessionUid } from "./fixtures.js"

// One HTTP exchange (SPEC §4, §5): a body that fails while being read is a transport error of the step
// that read it; an answer of exactly maxResponseBytes is taken; a non-JSON body is described by its media
// type (without parameters, lower-cased) and an HTML page by its title; rpc_url's trailing slashes are trimmed.

const backend = "https://backend.example"
const resolveUrl = `${backend}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`
const ready = (rpcUrl: string) => ({
  mode: "token",
  rpc_url: rpcUrl,
  token: "runtime-token",
  expires_at: null,
  runtime_interaction: { state: "ready", can_submit: true, retry_after_ms: null }
})
const message = {
  message: { messageId: "a-1", role: "ROLE_AGENT", contextId: sessionUid, parts: [{ text: "ok" }] }
}

const answer = (
  request: HttpClientRequest.HttpClientRequest,
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string>
) => Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body, { status: 200, headers })))

const json = (request: HttpClientRequest.HttpClientRequest, value: unknown) =>
  answer(request, JSON.stringify(value), { "content-type": "application/json" })

/** A body that sends `first` and then fails. */
const failingBody = (first: string) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first))
      controller.error(new Error("connection reset while reading"))
    }
  })

/** The client on a hand-written HttpClient answering every request with `handler`; the URLs it asked. */
const on = (
  handler: (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<HttpClientResponse.HttpClientResponse>,
  maxResponseBytes?: number
) => {
  const seen: Array<string> = []
  const layer = A2AClient.layer({
    backendUrl: backend,
    accessToken: Redacted.make("user-token"),
    ...(maxResponseBytes === undefined ? {} : { maxResponseBytes })
  }).pipe(
    Layer.provide(Layer.merge(
      Layer.succeed(
        HttpClient.HttpClient,
        HttpClient.make((request) => {
          seen.push(`${request.method} ${request.url}`)
          return handler(request)
        })
      ),
      RuntimeAccessCache.layerMemory
    ))
  )
  const send = Effect.flatMap(
    A2AClient.A2AClient,
    (a2a) => Effect.either(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
  ).pipe(Effect.provide(layer))
  return { send, seen }
}

const runtime = "https://runtime.example/base"

describe("rules: a body that fails while it is read (SPEC §5)", () => {
  it.effect("the runtime's answer body → A2ATransportError in read-response; the message may have been sent", () =>
    Effect.gen(function*() {
      const { send } = on((request) =>
        request.url === resolveUrl
          ? json(request, ready(`${runtime}/`))
          : answer(request, failingBody("{\"message\":"), { "content-type": "application/a2a+json" })
      )
      const result = yield* send
      expect(result._tag === "Left" ? { ...result.left } : result).toEqual({
        _tag: "A2ATransportError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        method: "POST",
        url: `${runtime}/api/a2a/v1/message:send`,
        step: "read-response",
        messageMayHaveBeenSent: true
      })
    }))

  it.effect("the backend's answer body → A2ATransportError in resolve-runtime-access; nothing was sent", () =>
    Effect.gen(function*() {
      const { seen, send } = on((request) =>
        answer(request, failingBody("{\"mode\":"), { "content-type": "application/json" })
      )
      const result = yield* send
      expect(result._tag === "Left" ? { ...result.left } : result).toEqual({
        _tag: "A2ATransportError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        method: "POST",
        url: resolveUrl,
        step: "resolve-runtime-access",
        messageMayHaveBeenSent: false
      })
      expect(seen).toEqual([`POST ${resolveUrl}`])
    }))
})

describe("rules: maxResponseBytes from Content-Length (SPEC §4)", () => {
  // larger than the resolve answer, which the same limit also bounds
  const body = JSON.stringify({ message: { ...message.message, padding: "x".repeat(400) } })
  const size = new TextEncoder().encode(body).byteLength
  const declared = (request: HttpClientRequest.HttpClientRequest) =>
    request.url === resolveUrl
      ? json(request, ready(`${runtime}/`))
      : answer(request, body, { "content-type": "application/a2a+json", "content-length": String(size) })

  it.effect("an answer of exactly the limit is taken; one byte less of limit refuses it", () =>
    Effect.gen(function*() {
      const exact = yield* on(declared, size).send
      expect(exact._tag).toBe("Right")
      const over = yield* on(declared, size - 1).send
      expect(over._tag === "Left" ? { ...over.left } : over).toEqual({
        _tag: "InvalidA2AResponseError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        url: `${runtime}/api/a2a/v1/message:send`,
        status: 200,
        rule: "response-too-large",
        reason: `the answer is too large: its Content-Length ${size} is over the limit of ${
          size - 1
        } bytes (maxResponseBytes)`
      })
    }))
})

describe("rules: how a non-JSON answer is described (SPEC §4)", () => {
  const described = (text: string, headers: Record<string, string>) =>
    Effect.map(
      on((request) => request.url === resolveUrl ? json(request, ready(`${runtime}/`)) : answer(request, text, headers))
        .send,
      (result) => result._tag === "Left" && "reason" in result.left ? result.left.reason : "not a failure"
    )

  it.effect("media type without parameters, lower-cased; an HTML page by its title, else as an HTML error page", () =>
    Effect.gen(function*() {
      expect(yield* described("<p>down</p>", { "content-type": "Text/HTML ; charset=utf-8" })).toBe(
        "the answer is not JSON (text/html: an HTML error page)"
      )
      expect(yield* described("<title>  </title>", { "content-type": "text/html" })).toBe(
        "the answer is not JSON (text/html: an HTML error page)"
      )
      expect(
        yield* described("  <!DOCTYPE html><title lang=\"en\">Bad\n  gateway</title>", { "content-type": "text/plain" })
      ).toBe("the answer is not JSON (text/plain: an HTML page \"Bad gateway\")")
      expect(yield* described("<html><body>no title</body></html>", { "content-type": "text/plain" })).toBe(
        "the answer is not JSON (text/plain: an HTML error page)"
      )
      // text that only contains a tag is text
      expect(yield* described("see <html> here", { "content-type": "text/plain" })).toBe(
        "the answer is not JSON (text/plain: see <html> here)"
      )
    }))
})

describe("rules: rpc_url is opaque (SPEC §3)", () => {
  it.effect("every trailing slash is trimmed, the path kept", () =>
    Effect.gen(function*() {
      const { seen, send } = on((request) =>
        request.url === resolveUrl ? json(request, ready(`${runtime}///`)) : json(request, message)
      )
      const result = yield* send
      expect(result._tag).toBe("Right")
      expect(seen).toEqual([`POST ${resolveUrl}`, `POST ${runtime}/api/a2a/v1/message:send`])
    }))
})
