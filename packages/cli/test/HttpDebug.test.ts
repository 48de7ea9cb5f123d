import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as HttpDebug from "../src/HttpDebug.js"

describe("HttpDebug", () => {
  // A client whose answer is a web Response (no ChunkSource): the body is read through its stream.
  const answering = (body: string) =>
    HttpClient.make((request) => Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body))))

  const logged = (body: string) =>
    Effect.gen(function*() {
      let log = ""
      const client = HttpDebug.wrap(answering(body), {
        write: (text) => Effect.sync(() => void (log += text)),
        secrets: [Redacted.make("user-access-token-1")]
      })
      const request = HttpClientRequest.post("http://127.0.0.1:9/x").pipe(
        HttpClientRequest.bearerToken("user-access-token-1"),
        HttpClientRequest.bodyText("{\"refresh\":\"r-1\"}", "application/json")
      )
      const text = yield* Effect.flatMap(client.execute(request), (response) => response.text)
      return { text, log }
    })

  it.effect("the reader gets the whole body unchanged; the log a bounded, redacted excerpt of it", () =>
    Effect.gen(function*() {
      const secret = `"token": "${"s".repeat(100)}"`
      // The credential straddles the excerpt's end: it is hidden, not cut in two.
      const body = `${"a".repeat(HttpDebug.excerptBytes - 20)}${secret}${"b".repeat(100_000)}`
      const { log, text } = yield* logged(body)
      expect(text).toBe(body)
      expect(log).not.toContain("user-access-token-1")
      expect(log).not.toContain("r-1")
      expect(log).not.toContain("sssss")
      const lines = log.split("\n")
      expect(lines[0]).toBe("debug #1 > POST http://127.0.0.1:9/x")
      expect(lines).toContain("debug #1   authorization: <redacted>")
      expect(lines).toContain("debug #1   body (17 bytes): {\"refresh\":\"<redacted>\"}")
      expect(log).toMatch(/^debug #1 < 200 POST http:\/\/127\.0\.0\.1:9\/x \(head after \d+\.\d ms\)$/m)
      const bodyLine = lines.find((line) => line.startsWith("debug #1 < body ")) ?? ""
      expect(bodyLine).toMatch(
        new RegExp(`^debug #1 < body \\(${body.length} bytes, ended after \\d+\\.\\d ms\\): a+"token`)
      )
      expect(bodyLine.endsWith(" …")).toBe(true)
      expect(bodyLine.length).toBeLessThan(HttpDebug.excerptBytes + 100)
    }))

  it.effect("a hostile body: line breaks and tabs shown escaped, anything else a terminal acts on a space", () =>
    Effect.gen(function*() {
      const body = "one\r\ntwo\tthree\u001b[2J\u0007\u009b31m\u202eend"
      const { log, text } = yield* logged(body)
      expect(text).toBe(body)
      const bodyLine = log.split("\n").find((line) => line.startsWith("debug #1 < body ")) ?? ""
      expect(bodyLine.slice(bodyLine.indexOf("): ") + 3)).toBe("one\\ntwo\\tthree [2J  31m end")
    }))

  it.effect(
    "--debug never shows a secret: a runtime that echoes the token it received in a header and in its body shows it redacted",
    () =>
      Effect.gen(function*() {
        // The token came from the backend or the CLI's cache, not from the environment: no secret was given.
        const token = "rt-Secret-Token-42"
        const echoing = HttpClient.make((request) =>
          Effect.succeed(HttpClientResponse.fromWeb(
            request,
            new Response(`{"seen":"${request.headers["authorization"] ?? "none"}"} token=${token} again ${token}`, {
              headers: { "x-echo": token }
            })
          ))
        )
        let log = ""
        const client = HttpDebug.wrap(echoing, { write: (text) => Effect.sync(() => void (log += text)), secrets: [] })
        const sent = HttpClientRequest.get("http://127.0.0.1:9/runtime").pipe(HttpClientRequest.bearerToken(token))
        const text = yield* Effect.flatMap(client.execute(sent), (response) => response.text)
        expect(text).toContain(token)
        // A later exchange without the token (its URL and answer echo it) hides it too.
        const later = HttpClientRequest.get(`http://127.0.0.1:9/next/${token}`)
        yield* Effect.flatMap(client.execute(later), (response) => response.text)
        expect(log).not.toContain(token)
        expect(log).not.toContain("Secret-Token")
        const lines = log.split("\n")
        expect(lines).toContain("debug #1   x-echo: <redacted>")
        expect(lines.find((line) => line.startsWith("debug #1 < body "))).toMatch(
          /: \{"seen":"Bearer <redacted>"\} token=<redacted> again <redacted>$/
        )
        expect(lines[lines.findIndex((line) => line.startsWith("debug #2 >"))]).toBe(
          "debug #2 > GET http://127.0.0.1:9/next/<redacted>"
        )
      })
  )

  it.effect(
    "--debug never shows a secret: tokens an answer hands out (a resolve, a refresh) are hidden where it repeats them",
    () =>
      Effect.gen(function*() {
        const answers = [
          // a resolve answer, its token repeated in a detail
          `{"token":"rt-live-9f8e7d6c","runtime_presence":{"detail":"issued rt-live-9f8e7d6c"}}`,
          // the key spelled with an escape, as JSON allows
          `{"\\u0074oken":"rt-escaped-1a2b3c4d","note":"rt-escaped-1a2b3c4d"}`,
          // a token refresh, both new tokens in a note
          `{"access":"new-access-NNNN2222","refresh":"new-refresh-RRRR3333","note":"new-access-NNNN2222 new-refresh-RRRR3333"}`,
          // the token member far past what is shown, and split between two chunks
          `{"detail":"issued rt-late-7a6b5c4d","pad":"${"p".repeat(70_000)}","token":"rt-late-7a6b5c4d"}`
        ]
        let served = 0
        const backend = HttpClient.make((request) => {
          const body = answers[served++] ?? ""
          const split = body.indexOf("rt-late-7a6b", body.indexOf("\"token\""))
          const chunks = split < 0 ? [body] : [body.slice(0, split), body.slice(split)]
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
              controller.close()
            }
          })
          return Effect.succeed(HttpClientResponse.fromWeb(request, new Response(stream)))
        })
        let log = ""
        const client = HttpDebug.wrap(backend, { write: (text) => Effect.sync(() => void (log += text)), secrets: [] })
        const resolve = "http://127.0.0.1:9/api/v1/agent-sessions/s/resolve-runtime-access/"
        const refresh = "http://127.0.0.1:9/auth/jwt-token/token/refresh/"
        for (const [i] of answers.entries()) {
          const url = i === 2 ? refresh : resolve
          yield* Effect.flatMap(client.execute(HttpClientRequest.post(url)), (r) => r.text)
        }
        for (
          const token of [
            "rt-live-9f8e7d6c",
            "rt-escaped-1a2b3c4d",
            "new-access-NNNN2222",
            "new-refresh-RRRR3333",
            "rt-late-7a6b5c4d"
          ]
        ) {
          expect(log).not.toContain(token)
        }
        expect(log).toContain("\"detail\":\"issued <redacted>\"")
        expect(log).toContain("resolve-runtime-access/")
      })
  )

  it.effect("--debug learns no secret from an Agent's answer: its access or refresh member is its own data", () =>
    Effect.gen(function*() {
      const answers = [
        `{"task":{"metadata":{"access":"read-only-mode","refresh":"TASK_STATE_COMPLETED"}}}`,
        `{"task":{"status":{"state":"TASK_STATE_COMPLETED"},"note":"read-only-mode"}}`
      ]
      let served = 0
      const agent = HttpClient.make((request) =>
        Effect.succeed(HttpClientResponse.fromWeb(request, new Response(answers[served++] ?? "")))
      )
      let log = ""
      const client = HttpDebug.wrap(agent, { write: (text) => Effect.sync(() => void (log += text)), secrets: [] })
      for (const _ of answers) {
        yield* Effect.flatMap(
          client.execute(HttpClientRequest.get("http://127.0.0.1:9/api/a2a/v1/tasks/t")),
          (r) => r.text
        )
      }
      expect(log).toContain("{\"task\":{\"status\":{\"state\":\"TASK_STATE_COMPLETED\"},\"note\":\"read-only-mode\"}}")
    }))

  it.effect("a failed request: one failure line (credentials hidden), the same error for the caller", () =>
    Effect.gen(function*() {
      let log = ""
      const refused = HttpClient.make((request) =>
        Effect.fail(
          new HttpClientError.RequestError({
            request,
            reason: "Transport",
            description: "connect ECONNREFUSED via http://u:pw@proxy:3128"
          })
        )
      )
      const client = HttpDebug.wrap(refused, { write: (text) => Effect.sync(() => void (log += text)), secrets: [] })
      const error = yield* Effect.flip(client.execute(HttpClientRequest.get("http://127.0.0.1:9/y")))
      expect(error._tag).toBe("RequestError")
      const lines = log.split("\n").filter((line) => line !== "")
      expect(lines[0]).toBe("debug #1 > GET http://127.0.0.1:9/y")
      expect(lines.at(-1)).toMatch(/^debug #1 ! GET http:\/\/127\.0\.0\.1:9\/y failed after \d+\.\d ms: .*ECONNREFUSED/)
      expect(log).not.toContain("pw@")
    }))
})
