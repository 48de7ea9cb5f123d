import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { layerTest, SimulatedPlatform } from "../src/index.js"
import {
  admitted,
  BASE,
  exchange,
  messageBody,
  REFRESH_TOKEN,
  resolve,
  scenario,
  send,
  SERVICE,
  SESSION,
  USER_TOKEN
} from "./support.js"

const CUSTOM_USER_TOKEN = "custom-user-token-that-must-never-be-logged-7d41"

describe("request log", () => {
  it.effect("no token value appears anywhere in the log; labels say which token was used", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const first = yield* admitted()
      yield* send(first.rpcUrl, first.token, messageBody({ text: `leaking ${first.token} in a message` }))
      yield* platform.rotateRuntimeToken(SESSION)
      yield* send(first.rpcUrl, first.token)
      const refreshed = yield* exchange(
        HttpClientRequest.post(`${BASE}/auth/jwt-token/token/refresh/`).pipe(
          HttpClientRequest.bodyUnsafeJson({ refresh: REFRESH_TOKEN })
        )
      )
      const tokens = refreshed.json
      if (typeof tokens !== "object" || tokens === null || !("access" in tokens) || !("refresh" in tokens)) {
        return expect.unreachable("refresh answer without tokens")
      }
      const newUserToken = String(tokens.access)
      const second = yield* Effect.gen(function*() {
        const answer = yield* resolve(SESSION, newUserToken)
        expect(answer.status).toBe(200)
        const json = answer.json
        return typeof json === "object" && json !== null && "token" in json ? String(json.token) : ""
      })
      yield* send(first.rpcUrl, second)
      yield* exchange(
        HttpClientRequest.get(`${BASE}/api/v1/agent-sessions/${SESSION}/`, {
          headers: { authorization: `Bearer ${CUSTOM_USER_TOKEN}`, cookie: "sessionid=abc123" }
        })
      )

      const log = yield* platform.requestLog
      const secrets = [
        USER_TOKEN,
        CUSTOM_USER_TOKEN,
        REFRESH_TOKEN,
        first.token,
        second,
        newUserToken,
        String(tokens.refresh),
        "sessionid=abc123"
      ]
      const dump = JSON.stringify(log.map((entry) => ({ ...entry, body: new TextDecoder().decode(entry.body) })))
      for (const secret of secrets) expect(dump).not.toContain(secret)

      expect(log.map((entry) => [entry.route, entry.target, entry.tokenLabel, entry.status])).toEqual([
        ["resolve-runtime-access", "backend", "user-token#1", 200],
        ["message-send", "runtime", "runtime-token#1", 200],
        ["message-send", "runtime", "runtime-token#1", 401],
        ["token-refresh", "backend", null, 200],
        ["resolve-runtime-access", "backend", "user-token#2", 200],
        ["message-send", "runtime", "runtime-token#2", 200],
        ["session-detail", "backend", "unknown-token", 401]
      ])
      expect(log[1]?.headers["authorization"]).toBe("Bearer runtime-token#1")
      expect(log[1]?.bodyText).toContain("leaking runtime-token#1 in a message")
      expect(log[3]?.bodyText).toBe("{\"refresh\":\"refresh-token#1\"}")
      expect(log[6]?.headers["cookie"]).toBe("<redacted>")
      expect(log[6]?.headers["authorization"]).toBe("Bearer unknown-token")
    }).pipe(Effect.provide(layerTest({
      userAccessTokens: [SimulatedPlatform.defaultUserAccessToken],
      sessions: [scenario()]
    }))))

  it.effect("entries carry method, url, path, session, headers, body bytes and Clock times", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      yield* TestClock.adjust("5 seconds")
      const access = yield* admitted()
      yield* TestClock.adjust("1 second")
      const body = messageBody({ messageId: "msg-client-1" })
      yield* send(access.rpcUrl, access.token, body)
      const [resolveEntry, sendEntry] = yield* platform.requestLog
      expect(resolveEntry).toMatchObject({
        seq: 1,
        method: "POST",
        url: `${BASE}/api/v1/agent-sessions/${SESSION}/resolve-runtime-access/`,
        path: `/api/v1/agent-sessions/${SESSION}/resolve-runtime-access/`,
        sessionUid: SESSION,
        atMs: 5000,
        respondedAtMs: 5000,
        outcome: "responded"
      })
      expect(sendEntry).toMatchObject({
        seq: 2,
        method: "POST",
        url: `${BASE}/runtimes/${SERVICE}/api/a2a/v1/message:send`,
        path: `/runtimes/${SERVICE}/api/a2a/v1/message:send`,
        target: "runtime",
        route: "message-send",
        sessionUid: SESSION,
        messageId: "msg-client-1",
        atMs: 6000,
        headers: {
          "a2a-version": "1.0",
          "content-type": "application/a2a+json",
          "a2a-extensions": "https://mainsequence.ai/a2a/extensions/response-kind/v1"
        }
      })
      expect(sendEntry?.body).toEqual(new TextEncoder().encode(JSON.stringify(body)))
      expect(JSON.parse(sendEntry?.bodyText ?? "")).toEqual(body)
      yield* platform.clearRequestLog
      expect(yield* platform.requestLog).toEqual([])
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("user-supplied tokens are accepted and labelled", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      expect((yield* resolve(SESSION, CUSTOM_USER_TOKEN)).status).toBe(200)
      expect((yield* resolve(SESSION, USER_TOKEN)).status).toBe(401)
      expect((yield* platform.requestLog).map((entry) => entry.tokenLabel)).toEqual(["user-token#1", "unknown-token"])
    }).pipe(Effect.provide(layerTest({
      userAccessTokens: [Redacted.make(CUSTOM_USER_TOKEN)],
      sessions: [scenario()]
    }))))
})
