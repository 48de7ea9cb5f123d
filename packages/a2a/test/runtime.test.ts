import { describe, expect, it } from "@effect/vitest"
import { SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as A2AError from "../src/A2AError.js"
import {
  client,
  failFor,
  platform,
  resolves,
  runFor,
  runtimeSends,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

describe("send: one refresh on runtime 401/403", () => {
  for (const status of [401, 403] as const) {
    it.effect(`${status} → one fresh resolve and one resend with the byte-identical body`, () =>
      Effect.gen(function*() {
        const a2a = yield* client
        const answer = yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
        expect(answer.role).toBe("ROLE_AGENT")
        const sends = yield* runtimeSends
        expect(sends.map((s) => s.status)).toEqual([status, 200])
        expect(sends[0]?.bodyText).toBe(sends[1]?.bodyText)
        expect(sends[0]?.tokenLabel).not.toBe(sends[1]?.tokenLabel)
        expect(yield* resolves).toHaveLength(2)
        // the rejected access was dropped and the fresh one kept: the next send needs no resolve
        yield* a2a.sendA2AMessage(sessionUid, { message: "again" })
        expect(yield* resolves).toHaveLength(2)
        expect((yield* runtimeSends)[2]?.tokenLabel).toBe(sends[1]?.tokenLabel)
      }).pipe(Effect.provide(simulated({
        sessions: [session({ token: { rejectFirstSends: 1, rejectFirstSendsStatus: status } })]
      }))))
  }

  it.effect("a second 401 → RuntimeAuthError after exactly two sends", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
      expect(error).toMatchObject({ _tag: "RuntimeAuthError", messageId: "m-1", status: 401 })
      const sends = yield* runtimeSends
      expect(sends).toHaveLength(2)
      expect(sends[0]?.bodyText).toBe(sends[1]?.bodyText)
      expect(yield* resolves).toHaveLength(2)
    }).pipe(Effect.provide(simulated({ sessions: [session({ token: { rejectAll: 401 } })] }))))

  it.effect("a token the runtime rejected is dropped, also when it ends a call, and never sent again", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const first = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "one", messageId: "m-1" }))
      expect(first).toMatchObject({ _tag: "RuntimeAuthError", messageId: "m-1", status: 401 })
      const rejected = (yield* runtimeSends).map((s) => s.tokenLabel)
      expect(yield* resolves).toHaveLength(2)
      const second = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "two", messageId: "m-2" }))
      expect(second).toMatchObject({ _tag: "RuntimeAuthError", messageId: "m-2", status: 401 })
      // call 2 resolves before its first send, and sends only tokens never rejected before
      const log = (yield* (yield* platform).requestLog).filter((e) =>
        e.route === "resolve-runtime-access" || e.route === "message-send"
      )
      expect(log.map((e) => e.route)).toEqual([
        "resolve-runtime-access",
        "message-send",
        "resolve-runtime-access",
        "message-send",
        "resolve-runtime-access",
        "message-send",
        "resolve-runtime-access",
        "message-send"
      ])
      const sends = (yield* runtimeSends).map((s) => s.tokenLabel)
      expect(sends).toHaveLength(4)
      expect(new Set(sends).size).toBe(4)
      expect(sends.slice(2).some((label) => rejected.includes(label))).toBe(false)
    }).pipe(
      Effect.provide(simulated({ sessions: [session({ token: { rejectAll: 401, mintOnEveryResolve: true } })] }))
    ))

  it.effect("concurrent calls whose token was rejected share one fresh resolve and never resend the rejected token", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "warm" })
      yield* (yield* platform).rotateRuntimeToken(sessionUid)
      const results = yield* Effect.all(
        ["m-a", "m-b", "m-c"].map((messageId) => a2a.sendA2AMessage(sessionUid, { message: "x", messageId })),
        { concurrency: "unbounded" }
      )
      expect(results).toHaveLength(3)
      const sends = (yield* runtimeSends).slice(1)
      const rejected = sends[0]?.tokenLabel
      // each call sent the rotated-out token at most once, before any fresh token was used, and never after
      const firstFresh = sends.findIndex((s) => s.tokenLabel !== rejected)
      expect(sends.slice(firstFresh).every((s) => s.tokenLabel !== rejected && s.status === 200)).toBe(true)
      expect(sends.slice(0, firstFresh).every((s) => s.status === 401)).toBe(true)
      expect(firstFresh).toBeLessThanOrEqual(3)
      expect(sends.filter((s) => s.status === 200)).toHaveLength(3)
      expect(yield* resolves).toHaveLength(2)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a rotated runtime token is refreshed once", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      yield* a2a.sendA2AMessage(sessionUid, { message: "one" })
      yield* p.rotateRuntimeToken(sessionUid)
      yield* a2a.sendA2AMessage(sessionUid, { message: "two" })
      expect((yield* runtimeSends).map((s) => s.status)).toEqual([200, 401, 200])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

describe("send: runtime errors are not retried", () => {
  it.effect("message-limit 504 → A2AMessageLimitExceededError with limitSeconds 90 and exactly one send", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "long work" }), "5 minutes")
      expect(error._tag).toBe("A2AMessageLimitExceededError")
      expect(A2AError.isServerError(error)).toBe(true)
      if (error._tag === "A2AMessageLimitExceededError") {
        expect(error.limitSeconds).toBe(90)
        expect(error.status).toBe(504)
      }
      expect(error.message).toContain("--response-kind task")
      expect(millis).toBe(90_000)
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { workMs: 120_000 } })] }))))

  it.effect("a gateway 504 is a plain ServerError, sent once", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      expect(error._tag).toBe("ServerError")
      if (error._tag === "ServerError") expect(error.origin).toBe("runtime")
      expect(error.message).toMatch(/504/)
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(
      simulated({ sessions: [session({ agent: { behaviour: { _tag: "GatewayError", status: 504 } } })] })
    )))

  it.effect("503 UNAVAILABLE, other rpc errors, HTML and empty bodies each give a clear error, sent once", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const cases = [
        [{ _tag: "Unavailable" }, "ServerError"],
        [{ _tag: "GatewayError", status: 502 }, "ServerError"],
        [{
          _tag: "RpcError",
          httpStatus: 504,
          status: "DEADLINE_EXCEEDED",
          message: "other",
          reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
          domain: "example.com",
          metadata: { limitSeconds: "90" }
        }, "ServerError"],
        [{
          _tag: "RpcError",
          httpStatus: 400,
          status: "INVALID_ARGUMENT",
          message: "bad",
          reason: "UNSUPPORTED_OPERATION"
        }, "A2ARequestError"],
        [{ _tag: "NonJson", status: 500 }, "ServerError"],
        [{ _tag: "NonJson" }, "InvalidA2AResponseError"],
        [{ _tag: "EmptyOk" }, "InvalidA2AResponseError"],
        [{ _tag: "ConnectionFailure" }, "A2ATransportError"]
      ] as const
      for (const [behaviour, tag] of cases) {
        yield* p.updateSession(sessionUid, (s) => ({ ...s, agent: { ...s.agent, behaviour } }))
        yield* p.clearRequestLog
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
        expect([behaviour._tag, error._tag]).toEqual([behaviour._tag, tag])
        expect(error.message.length).toBeGreaterThan(10)
        expect(yield* runtimeSends).toHaveLength(1)
        if (error._tag === "A2ATransportError") expect(error.messageMayHaveBeenSent).toBe(true)
      }
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

describe("send: answers", () => {
  const violations = [
    ["role_user", "role"],
    ["role_requester", "role"],
    ["role_responder", "role"],
    ["missing_role", "role"],
    ["blank_message_id", "message-id"],
    ["empty_parts", "parts"],
    ["missing_parts", "parts"],
    ["other_context_id", "context-id"],
    ["task_instead_of_message", "response-kind"],
    ["not_an_object", "envelope"]
  ] as const

  it.effect("each invalid answer is rejected with its own rule and message", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const messages = new Set<string>()
      for (const [violation, rule] of violations) {
        yield* p.updateSession(
          sessionUid,
          (s) => ({ ...s, agent: { ...s.agent, behaviour: { _tag: "Invalid", violation } } })
        )
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
        expect([violation, error._tag]).toEqual([violation, "InvalidA2AResponseError"])
        if (error._tag === "InvalidA2AResponseError") {
          expect([violation, error.rule]).toEqual([violation, rule])
          messages.add(error.reason)
        }
      }
      expect(messages.size).toBe(violations.length)
      expect([...messages].some((m) => m.includes("ROLE_RESPONDER"))).toBe(true)
      expect([...messages].some((m) => m.includes("another session"))).toBe(true)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("unknown answer fields are preserved", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const answer = yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
      expect(answer["x-sim-message-extra"]).toEqual({ kept: true, number: 42 })
      expect(answer.metadata?.["x-sim-metadata"]).toEqual({ nested: [1, { deep: true }] })
      expect(answer.extensions).toContain("https://example.test/a2a/extensions/unknown/v1")
      expect(answer.parts[0]?.["x-sim-part-extra"]).toEqual({ kept: true })
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Answer", extraFields: true } } })]
    }))))
})

describe("send: budget", () => {
  it.effect("the total budget cuts a trickled body (numeric timeout)", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: 5 }),
        "1 minute"
      )
      expect(error._tag).toBe("A2ATimeoutError")
      if (error._tag === "A2ATimeoutError") {
        expect(error).toMatchObject({ step: "read-response", limit: "total", seconds: 5, messageMayHaveBeenSent: true })
      }
      expect(error.message).toContain("may already have reached the runtime")
      expect(millis).toBe(5000)
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 10, gapMs: 1000 } } } })]
    }))))

  it.effect("the total budget cuts a stalled head", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: 7 }),
        "1 minute"
      )
      expect(error).toMatchObject({ _tag: "A2ATimeoutError", step: "send-message", messageMayHaveBeenSent: true })
      expect(millis).toBe(7000)
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { behaviour: { _tag: "Stall" } } })] }))))

  it.effect("the total budget covers a slow backend: timeout during resolution, nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: 3 }),
        "1 minute"
      )
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        step: "resolve-runtime-access",
        messageMayHaveBeenSent: false
      })
      expect(millis).toBe(3000)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session({ backend: { resolveDelay: "forever" } })] }))))

  it.effect("[connect, read]: at most `read` between two body chunks", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: [5, 2] }),
        "1 minute"
      )
      expect(error).toMatchObject({ _tag: "A2ATimeoutError", limit: "read", seconds: 2, step: "read-response" })
      expect(millis).toBe(2000)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 4, gapMs: 3000 } } } })]
    }))))

  it.effect("[connect, read]: chunks within `read` of each other pass even when the body takes longer than read", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const result = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: [5, 2] }), "1 minute")
      expect(result.error).toBeUndefined()
      expect(result.millis).toBe(4500)
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 4, gapMs: 1500 } } } })]
    }))))

  it.effect("[connect, read]: the head of every exchange must come within read of connecting", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: [1, 2] }),
        "1 minute"
      )
      // the simulated platform connects at once: the backend's head is due `read` after the request left
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        step: "resolve-runtime-access",
        limit: "read",
        seconds: 2,
        messageMayHaveBeenSent: false
      })
      expect(millis).toBe(2000)
    }).pipe(Effect.provide(simulated({ sessions: [session({ backend: { resolveDelay: 10_000 } })] }))))

  it.effect("the default budget is 905 s", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "20 minutes")
      expect(error).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", seconds: 905, step: "read-response" })
      expect(millis).toBe(905_000)
    }).pipe(Effect.provide(simulated({
      // every chunk within the default read limit (900 s), the whole body past the default total
      sessions: [session({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 3, gapMs: 500_000 } } } })]
    }))))

  it.effect("the default read limit (900 s) bounds a stalled head", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "20 minutes")
      expect(error).toMatchObject({ _tag: "A2ATimeoutError", limit: "read", seconds: 900, step: "send-message" })
      expect(millis).toBe(900_000)
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { behaviour: { _tag: "Stall" } } })] }))))
})

const otherSessions = [1, 2, 3].map((i) => ({
  sessionUid: `0b2701a1-e777-4cfe-8437-b94025f0000${i}`,
  agentUid: `5c1d7e2a-3b4f-4a6c-9d8e-1f2a3b4c5d6${i}`,
  serviceUid: `7bd86be3-d11a-4ad1-8fe2-9260ccdbca7${i}`
}))

describe("send: backend user token", () => {
  it.effect("a backend 401 with a refresh token refreshes once and retries the resolve", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
      const log = yield* p.requestLog
      expect(log.map((e) => [e.route, e.status])).toEqual([
        ["resolve-runtime-access", 401],
        ["token-refresh", 200],
        ["resolve-runtime-access", 200],
        ["message-send", 200]
      ])
      expect(log[2]?.tokenLabel).not.toBe(log[0]?.tokenLabel)
    }).pipe(Effect.provide(simulated(
      { userTokensExpired: true, sessions: [session()] },
      { refreshToken: SimulatedPlatform.defaultRefreshToken }
    ))))

  it.effect("concurrent calls refused the same user token share one refresh (refresh tokens rotate)", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const answers = yield* Effect.all(
        otherSessions.map((s) => a2a.sendA2AMessage(s.sessionUid, { message: "hi" })),
        { concurrency: "unbounded" }
      )
      expect(answers).toHaveLength(3)
      expect((yield* p.counters).refreshes).toBe(1)
    }).pipe(Effect.provide(simulated(
      { userTokensExpired: true, sessions: otherSessions },
      { refreshToken: SimulatedPlatform.defaultRefreshToken }
    ))))

  it.effect("a refused refresh is NotLoggedInError", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      expect(error._tag).toBe("NotLoggedInError")
    }).pipe(Effect.provide(simulated(
      { userTokensExpired: true, sessions: [session()] },
      { refreshToken: Redacted.make("not-a-valid-refresh-token") }
    ))))
})
