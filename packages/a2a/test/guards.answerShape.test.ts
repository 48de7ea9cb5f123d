import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as A2AClient from "../src/A2AClient.js"
import { client, failFor, fakeRuntime, runtimeSends, sendUrl, session, sessionUid, simulated } from "./fixtures.js"

/** The InvalidA2AResponseError (rule `json`) of a 200 answer that is not JSON, with `reason`. */
const notJson = (reason: string) => ({
  _tag: "InvalidA2AResponseError",
  agentSessionUid: sessionUid,
  messageId: "m-1",
  url: sendUrl,
  status: 200,
  rule: "json",
  reason
})

/** The error of one send to a runtime that answers 200 with `body` (bytes: no implied media type) and `headers`. */
const answeredWith = (body: string | Uint8Array, headers: Record<string, string>) =>
  Effect.flatMap(
    A2AClient.A2AClient,
    (a2a) => Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
  ).pipe(
    Effect.provide(
      fakeRuntime((request) =>
        Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body, { status: 200, headers })))
      )
    )
  )

// SPEC §4: a 200 answer that is not a JSON object is InvalidA2AResponseError, its reason naming what came
// (media type, or an empty body) without echoing more than a short excerpt; it is not retried.
describe("guards: a 200 answer that is not a JSON object", () => {
  it.effect("a JSON array → rule envelope, \"the answer is not a JSON object\"; sent once", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }), "1 minute")
      expect({ ...error }).toEqual({
        _tag: "InvalidA2AResponseError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        url: expect.stringMatching(/\/api\/a2a\/v1\/message:send$/),
        status: 200,
        rule: "envelope",
        reason: "the answer is not a JSON object"
      })
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Invalid", violation: "not_an_object" } } })]
    }))))

  it.effect("an HTML page names its media type and title", () =>
    Effect.gen(function*() {
      const error = yield* answeredWith("<html><title> Bad\n gateway </title></html>", { "content-type": "text/html" })
      expect({ ...error }).toEqual(notJson("the answer is not JSON (text/html: an HTML page \"Bad gateway\")"))
    }))

  it.effect("an empty body without a media type says so", () =>
    Effect.gen(function*() {
      const error = yield* answeredWith(new Uint8Array(0), {})
      expect({ ...error }).toEqual(notJson("the answer is not JSON (no media type, empty body)"))
    }))
})
