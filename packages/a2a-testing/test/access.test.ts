import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { layerTest, SimulatedPlatform } from "../src/index.js"
import {
  admitted,
  AGENT,
  BASE,
  exchange,
  OTHER_SESSION,
  REFRESH_TOKEN,
  resolve,
  resolveRequest,
  scenario,
  SERVICE,
  SESSION
} from "./support.js"

const TASK_AGENT = "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f60"

describe("resolve-runtime-access (SPEC §3)", () => {
  it.effect("a ready session answers the SPEC shape with a token that expires per the Clock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-11-29T20:00:00Z"))
      const answer = yield* resolve()
      expect(answer.status).toBe(200)
      expect(answer.headers["content-type"]).toBe("application/json")
      expect(answer.json).toMatchObject({
        coding_agent_service_uid: SERVICE,
        mode: "token",
        rpc_url: `${BASE}/runtimes/${SERVICE}/`,
        expires_at: "2026-11-29T21:00:00Z",
        runtime_paths: { a2a: "/api/a2a/v1" },
        runtime_interaction: { state: "ready", can_submit: true, notice: null, operation: null, retry_after_ms: null },
        runtime_presence: {
          phase: "serving",
          replicas: { desired: 1, actual: 1 },
          observed_at: "2026-11-29T20:00:00Z",
          wake: null
        },
        x_backend_build: "sim-42"
      })
      const access = yield* admitted()
      expect(access.token).toMatch(/^msim-runtime-/)
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ backend: { extraResolveFields: { x_backend_build: "sim-42" } } })]
    }))))

  it.effect("a token without ttl has no expires_at; later resolves reuse the token", () =>
    Effect.gen(function*() {
      const first = yield* admitted()
      yield* TestClock.adjust("1 hour")
      const second = yield* admitted()
      expect(first.expiresAt).toBeNull()
      expect(second.token).toBe(first.token)
      const counters = yield* Effect.flatMap(SimulatedPlatform.SimulatedPlatform, (platform) => platform.counters)
      expect(counters.runtimeTokensIssued).toBe(1)
      expect(counters.resolveCalls[SESSION]).toBe(2)
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ token: { ttlSeconds: null } })] }))))

  it.effect("a token close to expiry is replaced by a fresh one", () =>
    Effect.gen(function*() {
      const first = yield* admitted()
      yield* TestClock.adjust("100 seconds")
      const second = yield* admitted()
      expect(first.expiresAt).toBe("1970-01-01T00:02:00Z")
      expect(second.token).not.toBe(first.token)
      expect(second.expiresAt).toBe("1970-01-01T00:03:40Z")
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ token: { ttlSeconds: 120 } })] }))))

  it.effect("a cold start progresses with simulated time from the first resolve", () =>
    Effect.gen(function*() {
      // time passing before the first resolve does not start the wake
      yield* TestClock.adjust("1 minute")
      const interaction = (json: unknown) =>
        typeof json === "object" && json !== null && "runtime_interaction" in json
          ? json.runtime_interaction
          : undefined

      const first = yield* resolve()
      expect(first.json).toMatchObject({
        mode: "unavailable",
        rpc_url: null,
        token: null,
        expires_at: null,
        runtime_presence: {
          phase: "checking",
          replicas: { desired: 1, actual: 0 },
          detail: "Checking the runtime.",
          observed_at: "1970-01-01T00:01:00Z",
          wake: { state: "in_progress", requested_at: "1970-01-01T00:01:00Z", deadline_at: "1970-01-01T00:03:03Z" }
        }
      })
      expect(interaction(first.json)).toMatchObject({
        state: "checking",
        can_submit: false,
        notice: null,
        retry_after_ms: 200,
        operation: { status: "running", created_at: "1970-01-01T00:01:00Z", finished_at: null }
      })

      yield* TestClock.adjust("499 millis")
      expect(interaction((yield* resolve()).json)).toMatchObject({ state: "checking" })
      yield* TestClock.adjust("1 millis")
      expect(interaction((yield* resolve()).json)).toMatchObject({ state: "starting", retry_after_ms: 1000 })
      yield* TestClock.adjust("1 second")
      expect((yield* resolve()).json).toMatchObject({
        runtime_interaction: { state: "waking", can_submit: false, retry_after_ms: 1500 },
        runtime_presence: { detail: "Loading the model." }
      })
      yield* TestClock.adjust("1499 millis")
      expect(interaction((yield* resolve()).json)).toMatchObject({ state: "waking" })
      yield* TestClock.adjust("1 millis")
      const ready = yield* resolve()
      expect(ready.json).toMatchObject({ mode: "token", runtime_interaction: { state: "ready", can_submit: true } })
      const counters = yield* Effect.flatMap(SimulatedPlatform.SimulatedPlatform, (platform) => platform.counters)
      expect(counters.resolveCalls[SESSION]).toBe(6)
      expect(counters.runtimeTokensIssued).toBe(1)
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({
        access: {
          _tag: "ColdStart",
          phases: [
            { state: "checking", retryAfterMs: 200, durationMs: 500 },
            { state: "starting", retryAfterMs: 1000, durationMs: 1000 },
            { state: "waking", retryAfterMs: 1500, durationMs: 1500, detail: "Loading the model." }
          ]
        }
      })]
    }))))

  it.effect("a cold start can end in a terminal state", () =>
    Effect.gen(function*() {
      expect((yield* resolve()).json).toMatchObject({ runtime_interaction: { state: "updating", can_submit: false } })
      yield* TestClock.adjust("2 seconds")
      expect((yield* resolve()).json).toMatchObject({
        mode: "unavailable",
        runtime_interaction: {
          state: "update_failed",
          can_submit: false,
          retry_after_ms: null,
          notice: { code: "agent_runtime_update_failed", severity: "error" }
        },
        runtime_presence: { phase: "failed" },
        detail: "The last runtime rollout failed."
      })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({
        access: {
          _tag: "ColdStart",
          phases: [{ state: "updating", retryAfterMs: 500, durationMs: 2000 }],
          then: { _tag: "Terminal", state: "update_failed" }
        }
      })]
    }))))

  it.effect("terminal, stuck-transient and warning answers", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      expect((yield* resolve()).json).toEqual({
        coding_agent_service_uid: SERVICE,
        mode: "unavailable",
        rpc_url: null,
        token: null,
        expires_at: null,
        runtime_interaction: {
          state: "update_required",
          can_submit: false,
          operation: null,
          retry_after_ms: null,
          notice: {
            code: "agent_runtime_update_required",
            severity: "warning",
            title: "Agent update required",
            message: "This agent must be redeployed before it can take messages."
          }
        },
        runtime_presence: {
          phase: "not_deployed",
          replicas: { desired: 0, actual: 0 },
          detail: "The runtime is not deployed.",
          observed_at: null,
          wake: null
        },
        detail: "Runtime reconciliation is queued."
      })

      yield* platform.updateSession(SESSION, (current) => ({
        ...current,
        access: { _tag: "Terminal", state: "unavailable", notice: null, detail: "Suspended by an admin." }
      }))
      expect((yield* resolve()).json).toMatchObject({
        runtime_interaction: { state: "unavailable", notice: null },
        detail: "Suspended by an admin."
      })

      yield* platform.updateSession(SESSION, (current) => ({
        ...current,
        access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 2000 }
      }))
      yield* TestClock.adjust("1 hour")
      expect((yield* resolve()).json).toMatchObject({
        runtime_interaction: { state: "waking", can_submit: false, retry_after_ms: 2000 }
      })

      const notice = {
        code: "agent_runtime_outdated",
        severity: "warning" as const,
        title: "Outdated",
        message: "Redeploy soon."
      }
      yield* platform.updateSession(SESSION, (current) => ({ ...current, access: { _tag: "Ready", warning: notice } }))
      expect((yield* resolve()).json).toMatchObject({
        mode: "token",
        runtime_interaction: { state: "warning", can_submit: true, notice }
      })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ access: { _tag: "Terminal", state: "update_required" } })]
    }))))

  it.effect("a legacy backend answers without runtime_interaction", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const admittedAnswer = yield* resolve()
      expect(admittedAnswer.json).toMatchObject({ mode: "token", rpc_url: `${BASE}/runtimes/${SERVICE}/` })
      expect(admittedAnswer.json).not.toHaveProperty("runtime_interaction")
      expect(admittedAnswer.json).not.toHaveProperty("runtime_presence")
      yield* platform.updateSession(SESSION, (current) => ({ ...current, access: { _tag: "Legacy", admit: false } }))
      expect((yield* resolve()).json).toEqual({
        coding_agent_service_uid: SERVICE,
        mode: "unavailable",
        rpc_url: null,
        token: null,
        expires_at: null,
        detail: "The runtime is not available."
      })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ access: { _tag: "Legacy" } })] }))))

  it.effect("contract-breaking answers admit but cannot be used", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const answerFor = (violation: "mode_not_token" | "blank_token" | "null_token" | "blank_rpc_url") =>
        Effect.gen(function*() {
          yield* platform.updateSession(SESSION, (current) => ({
            ...current,
            access: { _tag: "ContractBreaking", violation }
          }))
          return (yield* resolve()).json
        })
      expect(yield* answerFor("mode_not_token")).toMatchObject({
        mode: "unavailable",
        token: expect.stringMatching(/^msim-runtime-/),
        runtime_interaction: { can_submit: true }
      })
      expect(yield* answerFor("blank_token")).toMatchObject({
        mode: "token",
        token: "",
        runtime_interaction: { can_submit: true }
      })
      expect(yield* answerFor("null_token")).toMatchObject({ mode: "token", token: null })
      expect(yield* answerFor("blank_rpc_url")).toMatchObject({ mode: "token", rpc_url: "" })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))
})

describe("oddDiagnostics (SPEC §3: diagnostic fields of another shape)", () => {
  it.effect("mistyped: presence, notice, operation and detail of other types; the deciding fields as usual", () =>
    Effect.gen(function*() {
      const answer = yield* resolve()
      expect(answer.json).toMatchObject({
        mode: "token",
        runtime_interaction: { state: "ready", can_submit: true, notice: { code: 12, title: false }, operation: 42 },
        runtime_presence: { phase: 3, replicas: "one" },
        detail: { text: "queued" }
      })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ backend: { oddDiagnostics: "mistyped" } })] }))))

  it.effect("string / array: presence, notice and operation as a string or an array, also while transient", () =>
    Effect.gen(function*() {
      const answer = yield* resolve()
      expect(answer.json).toMatchObject({
        runtime_interaction: {
          state: "waking",
          can_submit: false,
          notice: [{ title: "Heads up" }],
          retry_after_ms: 1000
        },
        runtime_presence: ["serving", 1]
      })
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({
        access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 1000 },
        backend: { oddDiagnostics: "array" }
      })]
    }))))
})

describe("backend errors", () => {
  it.effect("user authentication: missing or wrong bearer → 401, unknown session → 404", () =>
    Effect.gen(function*() {
      const anonymous = yield* exchange(
        HttpClientRequest.post(`${BASE}/api/v1/agent-sessions/${SESSION}/resolve-runtime-access/`).pipe(
          HttpClientRequest.bodyUnsafeJson({})
        )
      )
      expect(anonymous.status).toBe(401)
      expect(anonymous.json).toEqual({ detail: "Authentication credentials were not provided." })
      const wrong = yield* resolve(SESSION, "not-a-valid-token")
      expect(wrong.status).toBe(401)
      expect(wrong.json).toMatchObject({ code: "token_not_valid" })
      const unknown = yield* resolve(OTHER_SESSION)
      expect(unknown.status).toBe(404)
      expect(unknown.json).toEqual({ detail: "No AgentSession matches the given query." })
      const noSlash = yield* exchange(
        HttpClientRequest.post(`${BASE}/api/v1/agent-sessions/${SESSION}/resolve-runtime-access`).pipe(
          HttpClientRequest.bearerToken(Redacted.value(SimulatedPlatform.defaultUserAccessToken))
        )
      )
      expect(noSlash.status).toBe(404)
      expect(noSlash.headers["content-type"]).toContain("text/html")
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))

  it.effect("429 with Retry-After for the first call only, then a normal answer", () =>
    Effect.gen(function*() {
      const limited = yield* resolve()
      expect(limited.status).toBe(429)
      expect(limited.headers["retry-after"]).toBe("30")
      expect(limited.json).toEqual({ detail: "Slow down." })
      expect((yield* resolve()).status).toBe(200)
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({
        backend: { resolveFault: { status: 429, detail: "Slow down.", retryAfter: "30", times: 1 } }
      })]
    }))))

  it.effect("HTML and empty error bodies", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const html = yield* resolve()
      expect(html.status).toBe(503)
      expect(html.headers["content-type"]).toContain("text/html")
      expect(html.text).toContain("<h1>503 Service Unavailable</h1>")
      yield* platform.updateSession(SESSION, (current) => ({
        ...current,
        backend: { resolveFault: { status: 500, body: "empty" } }
      }))
      const empty = yield* resolve()
      expect(empty.status).toBe(500)
      expect(empty.text).toBe("")
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ backend: { resolveFault: { status: 503, body: "html" } } })]
    }))))

  it.effect("a hanging backend answers after its delay, or never", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const slow = yield* Effect.fork(resolve())
      yield* TestClock.adjust("4999 millis")
      expect(yield* Fiber.poll(slow)).toMatchObject({ _tag: "None" })
      yield* TestClock.adjust("1 millis")
      expect((yield* Fiber.join(slow)).status).toBe(200)

      yield* platform.updateSession(SESSION, (current) => ({ ...current, backend: { resolveDelay: "forever" } }))
      const hanging = yield* Effect.fork(resolve().pipe(Effect.timeout("30 seconds")))
      yield* TestClock.adjust("30 seconds")
      const result = yield* Fiber.join(hanging).pipe(Effect.either)
      expect(result._tag).toBe("Left")
      const log = yield* platform.requestLog
      expect(log.map((entry) => entry.outcome)).toEqual(["responded", "interrupted"])
      expect(log[1]?.status).toBeNull()
    }).pipe(Effect.provide(layerTest({ sessions: [scenario({ backend: { resolveDelay: 5000 } })] }))))
})

describe("user token refresh", () => {
  it.effect("an expired user token is refused until a refresh; the old token stays refused", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      expect((yield* resolve()).status).toBe(401)
      const refreshRequest = (refresh: string) =>
        exchange(
          HttpClientRequest.post(`${BASE}/auth/jwt-token/token/refresh/`).pipe(
            HttpClientRequest.bodyUnsafeJson({ refresh })
          )
        )
      const refreshed = yield* refreshRequest(REFRESH_TOKEN)
      expect(refreshed.status).toBe(200)
      const tokens = refreshed.json
      if (typeof tokens !== "object" || tokens === null || !("access" in tokens) || !("refresh" in tokens)) {
        return expect.unreachable("refresh answer without access and refresh")
      }
      const access = String(tokens.access)
      expect(access).toMatch(/^msim-user-access-2-/)
      expect((yield* resolve(SESSION, access)).status).toBe(200)
      expect((yield* resolve()).status).toBe(401)
      // the used refresh token was rotated away
      expect((yield* refreshRequest(REFRESH_TOKEN)).status).toBe(401)
      expect((yield* refreshRequest(String(tokens.refresh))).status).toBe(200)
      expect(
        (yield* exchange(
          HttpClientRequest.post(`${BASE}/auth/jwt-token/token/refresh/`).pipe(HttpClientRequest.bodyUnsafeJson({}))
        )).json
      ).toEqual({ refresh: ["This field is required."] })
      const counters = yield* platform.counters
      expect(counters.refreshes).toBe(4)
      const labels = (yield* platform.requestLog).map((entry) => entry.tokenLabel)
      expect(labels).toEqual(["user-token#1", null, "user-token#2", "user-token#1", null, null, null])
    }).pipe(Effect.provide(layerTest({ userTokensExpired: true, sessions: [scenario()] }))))

  it.effect("expireUserTokens makes a valid token fail mid-test", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      expect((yield* resolve()).status).toBe(200)
      yield* platform.expireUserTokens
      expect((yield* exchange(resolveRequest())).status).toBe(401)
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))
})

describe("Agent discovery (SPEC §7)", () => {
  it.effect("session detail → agent_uid, agent detail → a2a_profile", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const get = (path: string) =>
        exchange(
          HttpClientRequest.get(`${BASE}${path}`).pipe(
            HttpClientRequest.bearerToken(Redacted.value(SimulatedPlatform.defaultUserAccessToken))
          )
        )
      const session = yield* get(`/api/v1/agent-sessions/${SESSION}/`)
      expect(session.json).toMatchObject({ uid: SESSION, agent_uid: AGENT })
      expect((yield* get(`/api/v1/agents/${AGENT}/`)).json).toEqual({
        uid: AGENT,
        name: "Simulated Agent",
        description: "A deterministic Agent of the simulated Main Sequence platform.",
        a2a_profile: {
          response_kind_extension_uri: "https://mainsequence.ai/a2a/extensions/response-kind/v1",
          supported_response_kinds: ["message"],
          default_response_kind: "message"
        }
      })
      expect((yield* get(`/api/v1/agents/${TASK_AGENT}/`)).json).toMatchObject({
        name: "Job runner",
        a2a_profile: { supported_response_kinds: ["message", "task"] }
      })
      yield* platform.updateSession(SESSION, (current) => ({
        ...current,
        agent: { ...current.agent, advertiseProfile: false }
      }))
      expect((yield* get(`/api/v1/agents/${AGENT}/`)).json).toMatchObject({ a2a_profile: null })
      const counters = yield* platform.counters
      expect(counters.discoveryCalls).toBe(4)
      expect(counters.sessionDetailCalls[SESSION]).toBe(1)
      expect(counters.agentDetailCalls[AGENT]).toBe(2)
      expect(counters.agentDetailCalls[TASK_AGENT]).toBe(1)
    }).pipe(Effect.provide(layerTest({
      sessions: [
        scenario(),
        scenario({
          sessionUid: OTHER_SESSION,
          agentUid: TASK_AGENT,
          agent: { name: "Job runner", taskSupport: true }
        })
      ]
    }))))

  it.effect("discovery faults apply to the discovery routes", () =>
    Effect.gen(function*() {
      const answer = yield* exchange(
        HttpClientRequest.get(`${BASE}/api/v1/agent-sessions/${SESSION}/`).pipe(
          HttpClientRequest.bearerToken(Redacted.value(SimulatedPlatform.defaultUserAccessToken))
        )
      )
      expect(answer.status).toBe(403)
      expect(answer.json).toEqual({ detail: "You do not have permission to perform this action." })
      expect((yield* resolve()).status).toBe(200)
    }).pipe(Effect.provide(layerTest({
      sessions: [scenario({ backend: { discoveryFault: { status: 403 } } })]
    }))))
})
