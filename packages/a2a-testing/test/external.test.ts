import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { createServer } from "node:http"
import { A2ASchema, layerTest, SimulatedPlatform } from "../src/index.js"
import { demoUserAccessToken, serveReferencePlatform } from "../src/node.js"
import { a2aHeaders, admitted, BASE, messageBody, resolve, scenario, send, SERVICE, SESSION } from "./support.js"

const EXTERNAL = "http://127.0.0.1:9/agents/sdk-runtime/"

describe("external runtimes (scenario rpcUrl)", () => {
  it.effect("the backend hands out the external rpc_url with tokens of the session's policy", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-11-29T20:00:00Z"))
      const answer = yield* resolve()
      expect(answer.json).toMatchObject({
        mode: "token",
        rpc_url: EXTERNAL,
        expires_at: "2026-11-29T20:10:00Z",
        runtime_interaction: { state: "ready", can_submit: true }
      })
      const first = yield* admitted()
      const second = yield* admitted()
      expect(second.token).not.toBe(first.token) // mintOnEveryResolve
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      expect((yield* platform.counters).runtimeTokensIssued).toBe(3)
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ rpcUrl: EXTERNAL, token: { ttlSeconds: 600, mintOnEveryResolve: true } })]
    }))))

  it.effect("a cold start still gates it: no rpc_url until the wake is over", () =>
    Effect.gen(function*() {
      expect((yield* resolve()).json).toMatchObject({ rpc_url: null, runtime_interaction: { state: "waking" } })
      yield* TestClock.adjust("2 seconds")
      expect((yield* resolve()).json).toMatchObject({ rpc_url: EXTERNAL, runtime_interaction: { state: "ready" } })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({
        rpcUrl: EXTERNAL,
        access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 500, durationMs: 2000 }] }
      })]
    }))))

  it.effect("the in-memory HttpClient cannot reach it (a connection error that says so); the simulation does not serve it", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      expect(access.rpcUrl).toBe(EXTERNAL)
      const failed = yield* send(access.rpcUrl, access.token).pipe(Effect.flip)
      expect(failed).toMatchObject({ _tag: "RequestError", reason: "Transport" })
      expect(failed.message).toContain(`http://127.0.0.1:9 is the external runtime of session ${SESSION}`)
      expect(failed.message).toContain("in-memory HttpClient cannot reach")

      // the simulated runtime route of that service is not served
      const own = yield* send(`${BASE}/runtimes/${SERVICE}/`, access.token)
      expect(own.status).toBe(404)
      expect(own.text).toContain("No runtime is routed at this path.")

      const platform = yield* SimulatedPlatform.SimulatedPlatform
      expect((yield* platform.counters).sends[SESSION]).toBe(0)
      const log = yield* platform.requestLog
      expect(log.map((entry) => [entry.target, entry.sessionUid, entry.outcome])).toEqual([
        ["backend", SESSION, "responded"],
        ["unknown", SESSION, "connection-failed"],
        ["runtime", null, "responded"]
      ])
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ rpcUrl: EXTERNAL })] }))))

  it.effect("rpcUrl must be an absolute http(s) URL outside the platform's origin", () =>
    Effect.gen(function*() {
      for (const rpcUrl of ["ftp://files.test/", "/runtimes/x/", `${BASE}/elsewhere/`]) {
        const failed = yield* Effect.flip(
          Effect.provide(
            SimulatedPlatform.SimulatedPlatform,
            SimulatedPlatform.layer({ sessions: [scenario({ rpcUrl })] })
          )
        )
        expect(failed._tag, rpcUrl).toBe("InvalidScenarioError")
      }
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const refused = yield* Effect.flip(platform.addSession(scenario({ rpcUrl: `${BASE}/x/` })))
      expect(refused.message).toContain("own origin")
      const updated = yield* Effect.flip(
        platform.updateSession(SESSION, (current) => ({ ...current, rpcUrl: `${BASE}/y/` }))
      )
      expect(updated._tag).toBe("InvalidScenarioError")
      const external = yield* platform.updateSession(SESSION, (current) => ({ ...current, rpcUrl: EXTERNAL }))
      expect(external.rpcUrl).toBe(EXTERNAL)
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))
})

// ---------------------------------------------------------------------------
// over real HTTP: a stand-in for an external A2A server on another port
// ---------------------------------------------------------------------------

interface Seen {
  readonly path: string
  readonly authorization: string | undefined
  readonly body: unknown
}

/** A minimal A2A v1 runtime on its own port that answers every send and records what it got. */
const externalRuntime = Effect.gen(function*() {
  const seen: Array<Seen> = []
  const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1" })
  const port = server.address._tag === "TcpAddress" ? server.address.port : 0
  const app = HttpRouter.empty.pipe(
    HttpRouter.post(
      "/agents/sdk-runtime/api/a2a/v1/message:send",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body: unknown = JSON.parse(yield* request.text)
        seen.push({ path: request.url, authorization: request.headers["authorization"], body })
        const contextId =
          Schema.decodeUnknownSync(Schema.Struct({ message: Schema.Struct({ contextId: Schema.String }) }))(
            body
          ).message.contextId
        return HttpServerResponse.unsafeJson({
          message: { messageId: "msg-external-1", role: "ROLE_AGENT", contextId, parts: [{ text: "external" }] }
        })
      })
    )
  )
  yield* HttpServer.serveEffect(app).pipe(Effect.provideService(HttpServer.HttpServer, server))
  return { url: `http://127.0.0.1:${port}`, seen }
})

const fetchJson = (url: string, init: RequestInit) =>
  Effect.tryPromise(async () => {
    const response = await fetch(url, init)
    const text = await response.text()
    return {
      status: response.status,
      text,
      json: ((): unknown => {
        try {
          return JSON.parse(text)
        } catch {
          return undefined
        }
      })()
    }
  })

describe("external runtimes over real HTTP (./node)", () => {
  it.scopedLive("clients resolve on the reference platform and talk to the external runtime directly", () =>
    Effect.gen(function*() {
      const external = yield* externalRuntime
      const rpcUrl = `${external.url}/agents/sdk-runtime/`
      const { platform, url } = yield* serveReferencePlatform({
        demoSessions: false,
        sessions: [scenario({ rpcUrl, token: { ttlSeconds: 600 } })]
      })
      const resolved = yield* fetchJson(`${url}/api/v1/agent-sessions/${SESSION}/resolve-runtime-access/`, {
        method: "POST",
        headers: { authorization: `Bearer ${Redacted.value(demoUserAccessToken)}`, "content-type": "application/json" },
        body: "{}"
      })
      const access = Schema.decodeUnknownSync(Schema.Struct({ rpc_url: Schema.String, token: Schema.String }))(
        resolved.json
      )
      expect(access.rpc_url).toBe(rpcUrl)

      const body = messageBody({ text: "to the external runtime" })
      const answer = yield* fetchJson(`${rpcUrl}api/a2a/v1/message:send`, {
        method: "POST",
        headers: { ...a2aHeaders(access.token), "content-type": "application/a2a+json" },
        body: JSON.stringify(body)
      })
      expect(answer.status).toBe(200)
      expect(answer.json).toMatchObject({ message: { messageId: "msg-external-1", contextId: SESSION } })
      expect(Either.isRight(A2ASchema.validateSendMessageResponse(answer.json))).toBe(true)
      expect(external.seen).toEqual([
        { path: "/agents/sdk-runtime/api/a2a/v1/message:send", authorization: `Bearer ${access.token}`, body }
      ])

      // the platform played the backend only
      const log = yield* platform.requestLog
      expect(log.map((entry) => entry.route)).toEqual(["resolve-runtime-access"])
      expect((yield* platform.counters).sends[SESSION]).toBe(0)
      const own = yield* fetchJson(`${url}/runtimes/${SERVICE}/api/a2a/v1/message:send`, {
        method: "POST",
        headers: { ...a2aHeaders(access.token), "content-type": "application/a2a+json" },
        body: JSON.stringify(body)
      })
      expect(own.status).toBe(404)
    }))
})
