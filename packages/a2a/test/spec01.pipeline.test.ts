// SPEC §1, the send pipeline: admission, the session's one resolution, the one refresh after 401/403.
import * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import { layerTest, type SessionScenario, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
import * as A2AError from "../src/A2AError.js"
import { A2AProgress, type A2AProgressEvent } from "../src/A2AProgress.js"
import * as Attachment from "../src/Attachment.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import * as Timeout from "../src/Timeout.js"
import {
  client,
  clientOf,
  failFor,
  leaveWaitThenWake,
  platform,
  resolves,
  runFor,
  runtimeSends,
  session,
  sessionUid,
  simulated
} from "./fixtures.js"

/** A progress service that records each event with the number of requests the platform had logged before it. */
const recordingProgress = (
  p: SimulatedPlatform.Service,
  seen: Array<{ readonly event: A2AProgressEvent; readonly requestsBefore: number }>
) =>
  A2AProgress.of({
    report: (event) =>
      Effect.flatMap(p.requestLog, (log) => Effect.sync(() => void seen.push({ event, requestsBefore: log.length })))
  })

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
      const progress = recordingProgress(p, seen)
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
        expect(first?.event._tag === "MessagePrepared" && first.event.messageId).toMatch(/^msg-/)
        expect(first?.requestsBefore).toBe(0)
        expect(seen.filter((s) => s.event._tag === "MessagePrepared")).toHaveLength(1)
        expect(seen.slice(1, -1).every((s) => s.event._tag === "RuntimeAccessProgress")).toBe(true)
      }
      // bad input: nothing prepared, nothing reported
      seen.length = 0
      yield* Effect.flip(Effect.provideService(a2a.sendA2AMessage(sessionUid, { message: " " }), A2AProgress, progress))
      expect(seen).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: coldStart, agent: { taskSupport: true } })]
    }))))

  it.scoped("reports MessageSending as each attempt's bytes go to the runtime (the resend after a 401 too), never before", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const seen: Array<{ readonly event: A2AProgressEvent; readonly requestsBefore: number }> = []
      const send = (messageId: string) =>
        runFor(
          Effect.provideService(
            a2a.sendA2AMessage(sessionUid, { message: "hi", messageId }),
            A2AProgress,
            recordingProgress(p, seen)
          ),
          "10 seconds"
        )
      yield* send("m-1")
      yield* p.rotateRuntimeToken(sessionUid)
      yield* send("m-2")
      const log = yield* p.requestLog
      const sending = seen.filter((s) => s.event._tag === "MessageSending")
      expect(sending.map((s) => s.event)).toEqual(
        ["m-1", "m-2", "m-2"].map((messageId) => ({ _tag: "MessageSending", agentSessionUid: sessionUid, messageId }))
      )
      // each reported just before its own request: the next entry of the log is that attempt's message:send
      expect(sending.map((s) => log[s.requestsBefore]?.route)).toEqual(["message-send", "message-send", "message-send"])
      expect(log.filter((entry) => entry.route === "message-send").map((entry) => entry.status)).toEqual([
        200,
        401,
        200
      ])
      // while the runtime wakes nothing is on its way: the cold-start waits come first
      const [prepared, ...waits] = seen.slice(0, seen.findIndex((s) => s.event._tag === "MessageSending"))
      expect(prepared?.event._tag).toBe("MessagePrepared")
      expect(waits.length).toBeGreaterThan(0)
      expect(waits.every((s) => s.event._tag === "RuntimeAccessProgress")).toBe(true)
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: coldStart })] }))))

  it.scoped("can_submit true with a warning notice sends, and each admitted call is shown the notice (SPEC §3)", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const seen: Array<{ readonly event: A2AProgressEvent; readonly requestsBefore: number }> = []
      const send = (messageId: string) =>
        Effect.provideService(
          a2a.sendA2AMessage(sessionUid, { message: "hi", messageId }),
          A2AProgress,
          recordingProgress(p, seen)
        )
      // two calls share the one resolve; each is shown the notice before its own send
      yield* runFor(Effect.all([send("m-1"), send("m-2")], { concurrency: 2 }), "10 seconds")
      const notices = seen.filter((s) => s.event._tag === "RuntimeAccessNotice")
      expect(notices.map((s) => s.event)).toEqual(["m-1", "m-2"].map((messageId) => ({
        _tag: "RuntimeAccessNotice",
        agentSessionUid: sessionUid,
        messageId,
        state: "warning",
        notice: { code: "maintenance", severity: "warning", title: "Heads up", message: "Maintenance tonight." }
      })))
      // after the resolve, and before the call's own message goes to the runtime
      expect(notices.every((s) => s.requestsBefore >= 1)).toBe(true)
      for (const messageId of ["m-1", "m-2"]) {
        const at = (tag: string) =>
          seen.findIndex((s) => s.event._tag === tag && "messageId" in s.event && s.event.messageId === messageId)
        expect(at("RuntimeAccessNotice")).toBeLessThan(at("MessageSending"))
      }
      expect((yield* p.requestLog).map((entry) => entry.route)).toEqual([
        "resolve-runtime-access",
        "message-send",
        "message-send"
      ])
      // access from the cache: no resolve, so no notice
      seen.length = 0
      yield* runFor(send("m-3"), "10 seconds")
      expect(seen.map((s) => s.event._tag)).toEqual(["MessagePrepared", "MessageSending"])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: {
          _tag: "Ready",
          warning: { code: "maintenance", severity: "warning", title: "Heads up", message: "Maintenance tonight." }
        }
      })]
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

const ids = ["m-1", "m-2", "m-3"] as const

/** Three sends started together; their errors once the TestClock moved a minute ahead. */
const threeTogether = Effect.gen(function*() {
  const a2a = yield* client
  const fibers = yield* Effect.forEach(
    ids,
    (messageId) => Effect.fork(Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId }))),
    { concurrency: "unbounded" }
  )
  yield* TestClock.adjust("1 minute")
  return yield* Effect.forEach(fibers, Fiber.join)
})

// SPEC §6: calls that join a session's resolution share its outcome, a failure included: the followers do
// not resolve again, and each reports its own ids.
describe("followers of a failed shared resolution", () => {
  it.effect("terminal update_required: three calls, one resolve, each error with its own messageId", () =>
    Effect.gen(function*() {
      const errors = yield* threeTogether
      expect(errors).toEqual(ids.map((messageId) =>
        expect.objectContaining({
          _tag: "AgentRuntimeUnavailableError",
          agentSessionUid: sessionUid,
          messageId,
          state: "update_required",
          presenceDetail: "The runtime is not deployed."
        })
      ))
      expect(yield* resolves).toHaveLength(1)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        access: { _tag: "Terminal", state: "update_required" },
        backend: { resolveDelay: 100 }
      })]
    }))))

  it.effect("a backend 404 on resolve: three calls, one resolve, each SessionNotFoundError with its own messageId", () =>
    Effect.gen(function*() {
      const errors = yield* threeTogether
      expect(errors).toEqual(ids.map((messageId) =>
        expect.objectContaining({
          _tag: "SessionNotFoundError",
          agentSessionUid: sessionUid,
          messageId,
          status: 404
        })
      ))
      expect((yield* resolves).map((r) => r.status)).toEqual([404])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ backend: { resolveDelay: 100, resolveFault: { status: 404, detail: "No such session." } } })]
    }))))
})

// SPEC §6: a 401 for a token another call already replaced drops nothing new and resolves nothing: the call
// resends once with the replacement, which stays cached.
describe("a late 401 after another call already refreshed", () => {
  // The simulated platform, with one runtime request held in transit for a second (network latency).
  let holdNext = false
  const slowNetwork = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (http) =>
      HttpClient.make((request) => {
        const hold = holdNext && request.url.endsWith("/message:send")
        if (hold) holdNext = false
        return hold ? Effect.delay(http.execute(request), "1 second") : http.execute(request)
      }))
  )
  const simulation = Layer.merge(
    layerTest({ sessions: [session()] }),
    RuntimeAccessCache.layerMemory
  )
  const layer = A2AClient.layer({
    backendUrl: SimulatedPlatform.defaultBaseUrl,
    accessToken: SimulatedPlatform.defaultUserAccessToken
  }).pipe(
    Layer.provide(Timeout.layerInstantConnect),
    Layer.provide(Layer.provideMerge(slowNetwork, simulation)),
    Layer.provideMerge(simulation),
    Layer.orDie
  )

  it.effect("B's late 401 on T1 resends with A's T2: two resolves in all, T2 still cached", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      yield* a2a.sendA2AMessage(sessionUid, { message: "warm", messageId: "m-w" })
      yield* p.rotateRuntimeToken(sessionUid)
      holdNext = true
      const b = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }))
      yield* TestClock.adjust(0)
      yield* a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" })
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(b)).role).toBe("ROLE_AGENT")
      const sends = (yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status, s.tokenLabel])
      const [t1, t2] = [sends[0]?.[3], sends[2]?.[3]]
      expect(t1).not.toBe(t2)
      expect(sends).toEqual([
        ["m-w", 0, 200, t1],
        ["m-a", 0, 401, t1],
        ["m-a", 0, 200, t2],
        ["m-b", 1000, 401, t1],
        ["m-b", 1000, 200, t2]
      ])
      expect(yield* resolves).toHaveLength(2)
      yield* a2a.sendA2AMessage(sessionUid, { message: "c", messageId: "m-c" })
      expect(yield* resolves).toHaveLength(2)
      expect((yield* runtimeSends).at(-1)?.tokenLabel).toBe(t2)
    }).pipe(Effect.provide(layer)))
})

const waking1500 = { state: "waking" as const, retryAfterMs: 1500, durationMs: 1500 }

// SPEC §1.3/§6: when a call with a short budget leaves the session's wait, the wait goes on for the others
// unchanged: the next retry when the platform asked for it, the attempts counted on.
describe("a cold-start wait that a short call left", () => {
  it.effect("goes on for the longer call: its progress counts on (1, 2, 3, 4) and it sends at 6 s", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const progress: Record<string, Array<[number, number]>> = { "m-3s": [], "m-20s": [] }
      const send = (messageId: "m-3s" | "m-20s", timeout: number) =>
        Effect.either(a2a.sendA2AMessage(sessionUid, { message: "x", messageId, timeout })).pipe(
          Effect.provideService(A2AProgress, {
            report: (event: A2AProgressEvent) =>
              Effect.sync(() => {
                if (event._tag === "RuntimeAccessProgress") {
                  progress[messageId]?.push([event.attempt, event.retryAfterMs])
                }
              })
          })
        )
      // Both calls start before the first resolve answers (the short one first: it starts the resolution).
      const result = yield* runFor(
        Effect.all([send("m-3s", 3), send("m-20s", 20)], { concurrency: "unbounded" }),
        "1 minute"
      )
      const [short, long] = result.value ?? []
      expect(short).toMatchObject({ _tag: "Left", left: { _tag: "AgentRuntimeNotReadyError", messageId: "m-3s" } })
      expect(long?._tag).toBe("Right")
      // the short call saw attempt 1 and left at attempt 2: the next retry at 3 s no longer fit its budget
      expect(progress["m-3s"]).toEqual([[1, 1500]])
      // the long call was in the same wait from the start: attempts 1 to 4 transient, 5 admitted
      expect(progress["m-20s"]).toEqual([[1, 1500], [2, 1500], [3, 1500], [4, 1500]])
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 3000, 4500, 6000])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-20s", 6000]])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "ColdStart", phases: [waking1500, waking1500, waking1500, waking1500] } })]
    }))))
})

// SPEC §1.3/§5: a call leaves as soon as the wait's next resolve no longer fits its budget; a next
// resolve exactly at its deadline does not fit.
describe("a call whose deadline is exactly the wait's next retry", () => {
  it.effect("fails at once with AgentRuntimeNotReadyError, its whole budget left; the other call waits on", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const other = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a", timeout: 30 }))
      // the first resolve (t = 0) answered waking: the next one is at 2 s
      yield* TestClock.adjust(0)
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 2 }),
        "1 minute"
      )
      expect({ ...error }).toEqual({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-b",
        state: "waking",
        retryAfterMs: 2000,
        remainingMs: 2000,
        detail: "Waking the runtime."
      })
      expect(millis).toBe(0)
      yield* Fiber.interrupt(other)
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 2000 } })]
    }))))
})

const waking = { _tag: "StuckTransient", state: "waking", retryAfterMs: 1500 } as const

// SPEC §1.3: the only wait before sending is the one the backend asked for, within the call's own budget.
describe("only the wait the backend asked for, within each call's budget", () => {
  it.effect("a new call does not sit out an earlier call's leftover retry_after_ms", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // resolves at 0 and 1.5 s; the retry at 3 s does not fit its 2 s budget
      const first = yield* leaveWaitThenWake("1500 millis")
      expect(first.error).toMatchObject({ _tag: "AgentRuntimeNotReadyError", messageId: "m-a", remainingMs: 500 })
      expect(first.millis).toBe(1500)
      // the session asked to retry at 3 s, but the new call resolves at once and sends at once
      const second = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b" }), "10 seconds")
      expect(second.error).toBeUndefined()
      expect(second.millis).toBe(0)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500, 1500])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs, s.status])).toEqual([["m-b", 1500, 200]])
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: waking })] }))))

  it.effect("a joined call leaves at once when the wait's next retry is past its deadline; the first call goes on", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const first = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      yield* TestClock.adjust(0)
      // the wait retries at 1.5 s; a call with a 1 s budget that joins it cannot see that retry
      const joined = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 1 }),
        "0 millis"
      )
      expect(joined.error).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        agentSessionUid: sessionUid,
        messageId: "m-b",
        state: "waking",
        retryAfterMs: 1500,
        remainingMs: 1000
      })
      expect(joined.millis).toBe(0)
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0])
      yield* p.updateSession(sessionUid, (s) => ({ ...s, access: { _tag: "Ready" } }))
      yield* TestClock.adjust("10 seconds")
      const answer = yield* Fiber.join(first)
      expect(answer.role).toBe("ROLE_AGENT")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1500])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-a", 1500]])
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: waking })] }))))

  it.effect("a call joined before the wait is recorded leaves the moment the resolution records it past its deadline", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const first = yield* Effect.fork(a2a.sendA2AMessage(sessionUid, { message: "a", messageId: "m-a" }))
      yield* TestClock.adjust(0)
      // it joins while the first resolve is still under way (answered at 100 ms): no wait is known yet
      const joined = yield* Effect.fork(
        runFor(a2a.sendA2AMessage(sessionUid, { message: "b", messageId: "m-b", timeout: 1 }), "0 millis")
      )
      yield* TestClock.adjust(0)
      expect(Option.isNone(yield* Fiber.poll(joined))).toBe(true)
      // at 100 ms the resolution records the wait: next resolve at 1.6 s, past the joined call's 1 s deadline
      yield* TestClock.adjust("100 millis")
      expect(Option.isSome(yield* Fiber.poll(joined))).toBe(true)
      const { error, millis } = yield* Fiber.join(joined)
      expect(error).toMatchObject({
        _tag: "AgentRuntimeNotReadyError",
        messageId: "m-b",
        state: "waking",
        retryAfterMs: 1500,
        remainingMs: 900
      })
      expect(millis).toBe(100)
      yield* p.updateSession(sessionUid, (s) => ({ ...s, access: { _tag: "Ready" } }))
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(first)).role).toBe("ROLE_AGENT")
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1600])
      expect((yield* runtimeSends).map((s) => [s.messageId, s.atMs])).toEqual([["m-a", 1700]])
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: waking, backend: { resolveDelay: 100 } })] }))))
})
