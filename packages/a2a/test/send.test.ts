import { describe, expect, it } from "@effect/vitest"
import { type SessionScenario, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as A2AClient from "../src/A2AClient.js"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import * as Attachment from "../src/Attachment.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import {
  client,
  clientOf,
  failFor,
  platform,
  resolves,
  runFor,
  runtimeSends,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

describe("send: body and headers", () => {
  it.scoped("sends the exact body and headers of SPEC §2/§4 to {rpc_url}/api/a2a/v1/message:send", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const answer = yield* a2a.sendA2AMessage(sessionUid, {
        message: "What can you do?",
        messageId: "msg-client-uuid-1"
      })
      expect(answer).toMatchObject({
        role: "ROLE_AGENT",
        contextId: sessionUid,
        parts: [{ text: "You said: What can you do?" }]
      })
      const [send] = yield* runtimeSends
      expect(send?.url).toBe(
        `${p.rpcUrl("7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f").replace(/\/$/, "")}/api/a2a/v1/message:send`
      )
      expect(send?.method).toBe("POST")
      expect(send?.bodyText).toBe(JSON.stringify({
        message: {
          messageId: "msg-client-uuid-1",
          role: "ROLE_USER",
          contextId: sessionUid,
          parts: [{ text: "What can you do?" }]
        },
        configuration: { acceptedOutputModes: ["text/plain"], responseKind: "message" }
      }))
      expect(send?.headers).toMatchObject({
        "authorization": `Bearer ${send?.tokenLabel}`,
        "content-type": "application/a2a+json",
        "accept": "application/a2a+json",
        "a2a-extensions": "https://mainsequence.ai/a2a/extensions/response-kind/v1",
        "a2a-version": "1.0"
      })
      expect(send?.tokenLabel).toMatch(/^runtime-token#/)
      expect(send?.headers["traceparent"]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
      const [resolve] = yield* resolves
      expect(resolve).toMatchObject({ method: "POST", bodyText: "{}", tokenLabel: "user-token#1" })
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.scoped("uses the caller's messageId (trimmed) or generates msg-<uuid v4>", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "one", messageId: "  my.id:1-a_b " })
      yield* a2a.sendA2AMessage(sessionUid, { message: "two" })
      const [given, generated] = yield* runtimeSends
      expect(given?.messageId).toBe("my.id:1-a_b")
      expect(generated?.messageId).toMatch(/^msg-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      const bad = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "x", messageId: "no spaces allowed" }))
      expect(bad._tag).toBe("A2AInputError")
      expect((yield* runtimeSends).length).toBe(2)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.scoped("strict dictionary sends the output-contract metadata and returns the dictionary answer", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const answer = yield* a2a.sendA2AMessage(sessionUid, {
        message: "Return a JSON dictionary with keys ok and answer.",
        strictDictionary: true,
        jsonRepairAttempts: 2
      })
      const [send] = yield* runtimeSends
      expect(JSON.parse(send?.bodyText ?? "")).toMatchObject({
        configuration: { acceptedOutputModes: ["application/json"], responseKind: "message" },
        metadata: {
          "https://mainsequence.ai/a2a/extensions/output-contract/v1": {
            response_format: { type: "dictionary", strict: true },
            jsonRepairAttempts: 2
          }
        }
      })
      expect(answer.parts.some((part) => part.data !== undefined)).toBe(true)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.scoped("attachments: 15 MiB exactly is sent, one byte more is refused and nothing is sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const exact = yield* Attachment.fromBytes("exact.pdf", new Uint8Array(Attachment.maxBytes))
      yield* a2a.sendA2AMessage(sessionUid, { message: "file", attachments: [exact] })
      const [send] = yield* runtimeSends
      const parts = JSON.parse(send?.bodyText ?? "").message.parts
      expect(parts[1]).toMatchObject({ filename: "exact.pdf", mediaType: "application/pdf" })
      expect(parts[1].raw.length).toBe(Attachment.maxBytes / 3 * 4)

      const p = yield* platform
      yield* p.clearRequestLog
      const over = {
        filename: "over.pdf",
        mediaType: "application/pdf",
        bytes: new Uint8Array(Attachment.maxBytes + 1)
      }
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "file", attachments: [over] }))
      expect(error._tag).toBe("A2AInputError")
      expect(error.message).toContain("over.pdf")
      expect(error.message).toContain(`${Attachment.maxBytes + 1} bytes`)
      expect(yield* p.requestLog).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.scoped("bad input is refused before any request", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const errors = yield* Effect.all([
        Effect.flip(a2a.sendA2AMessage(sessionUid, { message: " " })),
        Effect.flip(a2a.sendA2AMessage("not-a-uuid", { message: "x" })),
        Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "x", strictDictionary: true, jsonRepairAttempts: 0 })),
        Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "x", timeout: 0 })),
        Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "x", timeout: [1, Number.POSITIVE_INFINITY] })),
        Effect.flip(a2a.getA2ATask(sessionUid, "  "))
      ])
      expect(errors.map((e) => e._tag)).toEqual(Array(6).fill("A2AInputError"))
      expect(yield* p.requestLog).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

describe("send: client options", () => {
  it.scoped("a blank backend URL or access token fails every call with A2AInputError, nothing sent", () =>
    Effect.gen(function*() {
      const p = yield* platform
      for (
        const options of [
          { backendUrl: " ", accessToken: SimulatedPlatform.defaultUserAccessToken },
          { backendUrl: SimulatedPlatform.defaultBaseUrl, accessToken: Redacted.make("") }
        ]
      ) {
        const a2a = yield* clientOf(A2AClient.layer(options).pipe(Layer.provide(RuntimeAccessCache.layerMemory)))
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
        expect(error._tag).toBe("A2AInputError")
        const taskError = yield* Effect.flip(a2a.getA2ATask(sessionUid, "t1"))
        expect(taskError._tag).toBe("A2AInputError")
      }
      expect(yield* p.requestLog).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

describe("send: admission", () => {
  const coldStart: SessionScenario.SessionScenarioInput["access"] = {
    _tag: "ColdStart",
    phases: [
      { state: "waking", retryAfterMs: 1500, durationMs: 2000 },
      { state: "starting", retryAfterMs: 40, durationMs: 1200 }
    ]
  }

  it.scoped("a cold start waits exactly each retry_after_ms (at least 100 ms) and re-resolves", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const result = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "10 seconds")
      expect(result.error).toBeUndefined()
      const times = (yield* resolves).map((r) => r.atMs)
      const sent = yield* runtimeSends
      expect(sent).toHaveLength(1)
      // waking (retry_after_ms 1500) until 2 s, then starting (retry_after_ms 40, waited as 100) until 3.2 s
      expect(times).toEqual([0, 1500, 3000, 3100, 3200])
      expect(sent.map((s) => s.atMs)).toEqual([3200])
      expect(result.millis).toBe(3200)
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: coldStart })] }))))

  it.scoped("reports progress to A2AProgress before each wait", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const events: Array<A2AProgressEvent> = []
      const progress = A2AProgress.of({ report: (event) => Effect.sync(() => void events.push(event)) })
      yield* runFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi" }).pipe(Effect.provideService(A2AProgress, progress)),
        "10 seconds"
      )
      const waits = events.filter((e) => e._tag === "RuntimeAccessProgress")
      expect(waits.length).toBeGreaterThan(0)
      expect(waits[0]).toMatchObject({ state: "waking", retryAfterMs: 1500, attempt: 1 })
      expect(waits.map((e) => e.attempt)).toEqual(waits.map((_, i) => i + 1))
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: coldStart })] }))))

  it.scoped("reports MessagePrepared with the id on the wire once the body is built, before any request", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const seen: Array<{ readonly event: A2AProgressEvent; readonly requestsBefore: number }> = []
      const progress = A2AProgress.of({
        report: (event) =>
          Effect.flatMap(
            p.requestLog,
            (log) => Effect.sync(() => void seen.push({ event, requestsBefore: log.length }))
          )
      })
      const sends: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
        a2a.sendA2AMessage(sessionUid, { message: "generated id" }),
        a2a.sendA2AMessage(sessionUid, { message: "job", responseKind: "task" })
      ]
      for (const send of sends) {
        yield* p.clearRequestLog
        seen.length = 0
        yield* runFor(Effect.provideService(send, A2AProgress, progress), "10 seconds")
        const [first] = seen
        expect(first?.event).toEqual({
          _tag: "MessagePrepared",
          agentSessionUid: sessionUid,
          messageId: (yield* runtimeSends)[0]?.messageId
        })
        expect(first?.event.messageId).toMatch(/^msg-/)
        expect(first?.requestsBefore).toBe(0)
        expect(seen.filter((s) => s.event._tag === "MessagePrepared")).toHaveLength(1)
        expect(seen.slice(1).every((s) => s.event._tag === "RuntimeAccessProgress")).toBe(true)
      }
      // bad input: nothing prepared, nothing reported
      seen.length = 0
      yield* Effect.flip(Effect.provideService(a2a.sendA2AMessage(sessionUid, { message: " " }), A2AProgress, progress))
      expect(seen).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: coldStart, agent: { taskSupport: true } })]
    }))))

  it.scoped("AgentRuntimeNotReadyError when the next retry no longer fits, and nothing was sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: 5 }),
        "1 minute"
      )
      expect(error._tag).toBe("AgentRuntimeNotReadyError")
      // resolves at 0, 1.5, 3, 4.5 s; after 4.5 s the next 1.5 s wait does not fit in 5 s
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500])
      expect(millis).toBe(4500)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(
      simulated({ sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 1500 } })] })
    )))

  it.scoped("terminal states end at once with no retry and nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      for (const state of ["update_required", "update_failed", "unavailable"] as const) {
        yield* p.updateSession(sessionUid, (s) => ({ ...s, access: { _tag: "Terminal", state, detail: "Queued." } }))
        yield* p.clearRequestLog
        // no fork and no TestClock.adjust: a terminal answer must end without any wait
        const [elapsed, error] = yield* Effect.timed(Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" })))
        expect(error._tag).toBe("AgentRuntimeUnavailableError")
        if (error._tag === "AgentRuntimeUnavailableError") {
          expect(error.state).toBe(state)
          expect(error.detail).toBe("Queued.")
          expect(error.message).toContain("Nothing was sent")
        }
        expect(Duration.toMillis(elapsed)).toBe(0)
        expect(yield* resolves).toHaveLength(1)
        expect(yield* runtimeSends).toEqual([])
      }
      // a transient state without a numeric retry_after_ms is terminal too
      yield* p.updateSession(
        sessionUid,
        (s) => ({ ...s, access: { _tag: "StuckTransient", state: "starting", retryAfterMs: null } })
      )
      yield* p.clearRequestLog
      const { error } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "1 minute")
      expect(error._tag).toBe("AgentRuntimeUnavailableError")
      expect(yield* resolves).toHaveLength(1)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.scoped("a legacy backend without runtime_interaction admits on mode token", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const answer = yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
      expect(answer.role).toBe("ROLE_AGENT")
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: { _tag: "Legacy" } })] }))))

  it.scoped("can_submit without usable access is a BackendContractError, nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      expect(error._tag).toBe("BackendContractError")
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(
      simulated({ sessions: [session({ access: { _tag: "ContractBreaking", violation: "blank_token" } })] })
    )))

  it.scoped("backend errors map to their tagged errors and are not retried", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const cases = [
        [403, "PermissionDeniedError"],
        [404, "SessionNotFoundError"],
        [429, "RateLimitedError"],
        [500, "ServerError"],
        [503, "ServerError"]
      ] as const
      for (const [status, tag] of cases) {
        yield* p.updateSession(sessionUid, (s) => ({
          ...s,
          backend: { resolveFault: { status, detail: `detail ${status}`, retryAfter: "30" } }
        }))
        yield* p.clearRequestLog
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
        expect(error._tag).toBe(tag)
        expect(error.message).toContain(`detail ${status}`)
        if (error._tag === "RateLimitedError") expect(error.retryAfter).toBe("30")
        if (error._tag === "ServerError") expect(error.origin).toBe("backend")
        expect(yield* resolves).toHaveLength(1)
      }
      yield* p.updateSession(sessionUid, (s) => ({ ...s, backend: { resolveFault: { status: 502, body: "html" } } }))
      const html = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      expect(html._tag).toBe("ServerError")
      expect(html.message).toMatch(/HTML/)
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.scoped("a backend 401 without a refresh token is NotLoggedInError", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      expect(error._tag).toBe("NotLoggedInError")
    }).pipe(Effect.provide(simulated({ userTokensExpired: true, sessions: [session()] }))))
})
