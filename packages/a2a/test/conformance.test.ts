import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import { SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import {
  client,
  fakeRuntime,
  jsonResponse,
  platform,
  schemaViolations,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

const Access = Schema.Struct({ rpc_url: Schema.String, token: Schema.String })

/** Resolves access and sends `body` to the simulated runtime by hand, past the SDK. */
const handSend = (body: unknown) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const resolved = yield* http.execute(
      HttpClientRequest.post(
        `${SimulatedPlatform.defaultBaseUrl}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`
      ).pipe(
        HttpClientRequest.bearerToken(SimulatedPlatform.defaultUserAccessToken),
        HttpClientRequest.bodyText("{}", "application/json")
      )
    )
    const access = yield* Schema.decodeUnknown(Access)(yield* resolved.json)
    const answer = yield* http.execute(
      HttpClientRequest.post(`${access.rpc_url.replace(/\/+$/, "")}/api/a2a/v1/message:send`).pipe(
        HttpClientRequest.bearerToken(access.token),
        HttpClientRequest.setHeaders({ "A2A-Version": "1.0", "Accept": "application/a2a+json" }),
        HttpClientRequest.bodyText(JSON.stringify(body), "application/a2a+json")
      )
    )
    return answer.status
  })

const blockingBody = {
  message: { messageId: "m-blocking", role: "ROLE_USER", contextId: sessionUid, parts: [{ text: "hi" }] },
  configuration: { acceptedOutputModes: ["text/plain"], blocking: true }
}

describe("A2A v1 conformance of the suite", () => {
  it.effect("a hand-sent body with blocking: true is refused and logged as a schema violation", () =>
    Effect.gen(function*() {
      expect(yield* handSend(blockingBody)).toBe(400)
      const p = yield* platform
      const violations = schemaViolations(yield* p.requestLog)
      expect(violations).toHaveLength(1)
      expect(violations[0]).toMatch(/^m-blocking: .*blocking/)
      yield* p.clearRequestLog
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("the check on every simulated layer fails the test that sent such a body", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(handSend(blockingBody).pipe(Effect.provide(simulated({ sessions: [session()] }))))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        expect(Cause.pretty(exit.cause)).toMatch(/break the A2A v1 schema:\s+m-blocking: .*blocking/)
      }
      // the SDK's own body passes the same check
      const sdk = yield* Effect.exit(
        Effect.flatMap(client, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" })).pipe(
          Effect.provide(simulated({ sessions: [session()] }))
        )
      )
      expect(Exit.isSuccess(sdk)).toBe(true)
    }))

  it.effect("an answer the SDK returns is validated too: one that breaks A2A v1 fails the test", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.flatMap(client, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(Cause.pretty(exit.cause)).toContain("breaks A2A v1")
    }).pipe(Effect.provide(fakeRuntime((request) =>
      Effect.succeed(jsonResponse(request, 200, {
        message: {
          messageId: "a-1",
          role: "ROLE_AGENT",
          contextId: sessionUid,
          parts: [{ raw: "not base64 @@@", mediaType: "application/pdf" }]
        }
      }))
    ))))
})
