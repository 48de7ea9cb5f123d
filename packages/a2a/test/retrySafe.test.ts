import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as A2AError from "../src/A2AError.js"
import { client, resolves, runFor, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const http = { method: "POST", url: "https://runtime.example/api/a2a/v1/message:send", status: 500 }
const timeout = (messageMayHaveBeenSent: boolean) =>
  new A2AError.A2ATimeoutError({ step: "send-message", limit: "total", seconds: 5, messageMayHaveBeenSent })
const transport = (messageMayHaveBeenSent: boolean) =>
  new A2AError.A2ATransportError({ ...http, step: "send-message", messageMayHaveBeenSent })
const taskFields = { ...http, status: 404, taskId: "task-1", reason: "TASK_NOT_FOUND" }

// One entry per tag: adding a tag to A2AError makes this object fail to type-check until it is decided here.
const cases = {
  A2AInputError: [[new A2AError.A2AInputError({ field: "message", reason: "must not be blank" }), false]],
  AgentRuntimeNotReadyError: [[new A2AError.AgentRuntimeNotReadyError({ state: "waking", remainingMs: 0 }), true]],
  AgentRuntimeUnavailableError: [[new A2AError.AgentRuntimeUnavailableError({ state: "update_required" }), true]],
  ServerError: [
    [new A2AError.ServerError({ ...http, origin: "backend" }), true],
    [new A2AError.ServerError({ ...http, origin: "runtime" }), false]
  ],
  A2AMessageLimitExceededError: [[
    new A2AError.A2AMessageLimitExceededError({
      ...http,
      status: 504,
      origin: "runtime",
      reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
      limitSeconds: 90
    }),
    false
  ]],
  RuntimeAuthError: [[new A2AError.RuntimeAuthError({ ...http, status: 401 }), false]],
  A2ATimeoutError: [[timeout(false), true], [timeout(true), false]],
  A2ATransportError: [[transport(false), true], [transport(true), false]],
  InvalidA2AResponseError: [[
    new A2AError.InvalidA2AResponseError({ url: http.url, status: 200, rule: "role", reason: "bad role" }),
    false
  ]],
  TaskModeNotSupportedError: [[new A2AError.TaskModeNotSupportedError({ supportedResponseKinds: ["message"] }), false]],
  TaskNotFoundError: [[new A2AError.TaskNotFoundError(taskFields), false]],
  TaskNotCancelableError: [[
    new A2AError.TaskNotCancelableError({ ...taskFields, reason: "TASK_NOT_CANCELABLE" }),
    false
  ]],
  A2ARequestError: [[new A2AError.A2ARequestError({ ...http, status: 400 }), false]],
  NotLoggedInError: [[new A2AError.NotLoggedInError({ ...http, status: 401 }), false]],
  PermissionDeniedError: [[new A2AError.PermissionDeniedError({ ...http, status: 403 }), false]],
  SessionNotFoundError: [[new A2AError.SessionNotFoundError({ ...http, status: 404 }), false]],
  RateLimitedError: [[new A2AError.RateLimitedError({ ...http, status: 429, retryAfter: "30" }), true]],
  BackendContractError: [[new A2AError.BackendContractError({ url: http.url, status: 200, reason: "no token" }), true]]
} satisfies { readonly [Tag in A2AError.A2AError["_tag"]]: ReadonlyArray<readonly [A2AError.A2AError, boolean]> }

describe("A2AError.isRetrySafe", () => {
  it("decides every error tag of the package", () => {
    const errorClasses = Object.entries(A2AError).filter(([name, value]) =>
      typeof value === "function" && /^[A-Z]\w*Error$/.test(name)
    ).map(([name]) => name).sort()
    // Every error class the module exports is a tag of the A2AError union, and is decided above.
    expect(Object.keys(cases).sort()).toEqual(errorClasses)
    for (const [tag, examples] of Object.entries(cases)) {
      for (const [error, safe] of examples) {
        expect([tag, error._tag, A2AError.isRetrySafe(error)]).toEqual([tag, tag, safe])
      }
    }
  })

  it("RateLimitedError exposes Retry-After as a Duration and keeps the raw header", () => {
    const limited = (retryAfter: string | undefined) =>
      new A2AError.RateLimitedError({ ...http, status: 429, retryAfter })
    expect(limited("30").retryAfter).toBe("30")
    expect(limited("30").retryAfterDuration).toEqual(Option.some(Duration.seconds(30)))
    expect(limited(" 1.5 ").retryAfterDuration).toEqual(Option.some(Duration.millis(1500)))
    expect(limited("0").retryAfterDuration).toEqual(Option.some(Duration.zero))
    expect(limited("Wed, 21 Oct 2026 07:28:00 GMT").retryAfterDuration).toEqual(Option.none())
    expect(limited("-3").retryAfterDuration).toEqual(Option.none())
    expect(limited(undefined).retryAfterDuration).toEqual(Option.none())
  })
})

describe("the README's retry recipe", () => {
  // A cold start of 3 s; each call has a 1.5 s budget, so the first call ends AgentRuntimeNotReadyError.
  const cold = simulated({
    sessions: [session({
      access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 3000 }] }
    })]
  })

  it.effect("retries while isRetrySafe, with the same messageId, and succeeds once the runtime is up", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const messageId = "msg-retry-recipe-1"
      const attempts: Array<string> = []
      const send = a2a.sendA2AMessage(sessionUid, { message: "hello", messageId, timeout: 1.5 }).pipe(
        Effect.tapError((error) => Effect.sync(() => attempts.push(error._tag))),
        Effect.retry({ schedule: Schedule.spaced("2 seconds"), times: 5, while: A2AError.isRetrySafe })
      )
      const result = yield* runFor(send, "30 seconds")
      expect(result.error).toBeUndefined()
      expect(result.value?.parts).toEqual([{ text: "You said: hello" }])
      expect(attempts).toEqual(["AgentRuntimeNotReadyError"])
      // The first call resolved at 0 and 1 s and gave up (2 s no longer fit); the retry came 2 s later.
      expect((yield* resolves).map((r) => r.atMs)).toEqual([0, 1000, 3000])
      const sends = yield* runtimeSends
      expect(sends.map((s) => [s.messageId, s.atMs])).toEqual([[messageId, 3000]])
    }).pipe(Effect.provide(cold)))

  it.effect("does not retry an error that is not retry-safe", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      let calls = 0
      const send = Effect.suspend(() => {
        calls++
        return a2a.sendA2AMessage(sessionUid, { message: "   " })
      }).pipe(Effect.retry({ schedule: Schedule.spaced("2 seconds"), times: 5, while: A2AError.isRetrySafe }))
      const error = yield* Effect.flip(send)
      expect([error._tag, calls]).toEqual(["A2AInputError", 1])
    }).pipe(Effect.provide(cold)))
})
