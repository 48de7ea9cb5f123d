import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import { describe, expect, it } from "@effect/vitest"
import { A2AError } from "@mainsequence/a2a"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { ExitCode, exitCodeOfSignal, report } from "../src/Failure.js"
import { Output } from "../src/Output.js"

const capture = <A, E>(exit: Exit.Exit<A, E>) =>
  Effect.gen(function*() {
    let stderr = ""
    let stdout = ""
    const code = yield* report(exit).pipe(
      Effect.provide(Layer.succeed(Output, {
        stdout: (text) => Effect.sync(() => void (stdout += text)),
        stderr: (text) => Effect.sync(() => void (stderr += text)),
        stderrIsTTY: false,
        stderrColumns: undefined
      }))
    )
    return { code, stderr, stdout }
  })

describe("Failure", () => {
  it.effect("success: exit 0, nothing printed", () =>
    Effect.gen(function*() {
      expect(yield* capture(Exit.succeed(undefined))).toEqual({ code: ExitCode.success, stderr: "", stdout: "" })
    }))

  it.effect("an SDK error: its message, then the message id line when it carries one", () =>
    Effect.gen(function*() {
      const error = new A2AError.ServerError({
        agentSessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
        messageId: "msg-1",
        method: "POST",
        url: "http://x/api/a2a/v1/message:send",
        status: 502,
        origin: "runtime",
        detail: "Bad gateway\n<html>"
      })
      const result = yield* capture(Exit.fail(error))
      expect(result.code).toBe(ExitCode.failure)
      const lines = result.stderr.split("\n")
      expect(lines).toEqual([expect.stringContaining("answered 502"), "A2A message id for request retry: msg-1", ""])
    }))

  it.effect("a usage error: one line, exit 2", () =>
    Effect.gen(function*() {
      const error = ValidationError.invalidValue(HelpDoc.p("Received unknown argument: '--bogus'"))
      expect(yield* capture(Exit.fail(error))).toEqual({
        code: ExitCode.usage,
        stderr: "Received unknown argument: '--bogus'\n",
        stdout: ""
      })
    }))

  it.effect("a ConfigError names the variable", () =>
    Effect.gen(function*() {
      const result = yield* capture(Exit.fail(ConfigError.MissingData(["MAINSEQUENCE_ENDPOINT"], "Expected it")))
      expect(result).toEqual({
        code: ExitCode.usage,
        stderr: "Missing configuration: MAINSEQUENCE_ENDPOINT is not set in the environment\n",
        stdout: ""
      })
    }))

  it.effect("each SDK error exits with its SPEC §8 code", () =>
    Effect.gen(function*() {
      const http = { method: "POST", url: "http://x/api/a2a/v1/message:send", status: 500 }
      const task = { ...http, status: 404, taskId: "t-1", reason: "TASK_NOT_FOUND" }
      // One entry per tag of the SDK's A2AError union: a new tag fails to type-check until it is given a code.
      const codes = {
        A2AInputError: [new A2AError.A2AInputError({ field: "message", reason: "blank" }), 2],
        AgentRuntimeNotReadyError: [new A2AError.AgentRuntimeNotReadyError({ state: "waking", remainingMs: 0 }), 3],
        AgentRuntimeUnavailableError: [new A2AError.AgentRuntimeUnavailableError({ state: "update_required" }), 3],
        NotLoggedInError: [new A2AError.NotLoggedInError({ ...http, status: 401 }), 4],
        PermissionDeniedError: [new A2AError.PermissionDeniedError({ ...http, status: 403 }), 4],
        RuntimeAuthError: [new A2AError.RuntimeAuthError({ ...http, status: 401 }), 4],
        A2ATimeoutError: [
          new A2AError.A2ATimeoutError({
            step: "read-response",
            limit: "total",
            seconds: 1,
            messageMayHaveBeenSent: true
          }),
          5
        ],
        A2AMessageLimitExceededError: [
          new A2AError.A2AMessageLimitExceededError({
            ...http,
            status: 504,
            origin: "runtime",
            reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
            limitSeconds: 90
          }),
          5
        ],
        A2ATransportError: [
          new A2AError.A2ATransportError({ ...http, step: "send-message", messageMayHaveBeenSent: false }),
          6
        ],
        ServerError: [new A2AError.ServerError({ ...http, origin: "runtime" }), 1],
        InvalidA2AResponseError: [
          new A2AError.InvalidA2AResponseError({ url: http.url, status: 200, rule: "role", reason: "bad" }),
          1
        ],
        TaskModeNotSupportedError: [new A2AError.TaskModeNotSupportedError({ supportedResponseKinds: [] }), 1],
        TaskNotFoundError: [new A2AError.TaskNotFoundError(task), 1],
        TaskNotCancelableError: [new A2AError.TaskNotCancelableError({ ...task, reason: "TASK_NOT_CANCELABLE" }), 1],
        A2ARequestError: [new A2AError.A2ARequestError({ ...http, status: 400 }), 1],
        SessionNotFoundError: [new A2AError.SessionNotFoundError({ ...http, status: 404 }), 1],
        RateLimitedError: [new A2AError.RateLimitedError({ ...http, status: 429 }), 1],
        BackendContractError: [new A2AError.BackendContractError({ url: http.url, status: 200, reason: "x" }), 1]
      } satisfies { readonly [Tag in A2AError.A2AError["_tag"]]: readonly [A2AError.A2AError, number] }
      for (const [tag, [error, code]] of Object.entries(codes)) {
        expect([tag, (yield* capture(Exit.fail(error))).code]).toEqual([tag, code])
      }
    }))

  it.effect("a defect: one line, no stack trace, exit 1", () =>
    Effect.gen(function*() {
      const result = yield* capture(Exit.die(new Error("boom\n    at somewhere (file.js:1:1)")))
      expect(result.code).toBe(ExitCode.failure)
      expect(result.stderr.split("\n").filter((line) => line !== "")).toHaveLength(1)
      expect(result.stderr).toMatch(/^Unexpected error: boom/)
    }))

  it("a run stopped by SIGTERM exits 143, by SIGINT (or an interruption without a signal) 130", () => {
    expect(exitCodeOfSignal("SIGTERM")).toBe(143)
    expect(exitCodeOfSignal("SIGINT")).toBe(130)
    expect(exitCodeOfSignal(undefined)).toBe(130)
  })

  it.effect("an interruption: exit 130", () =>
    Effect.gen(function*() {
      const result = yield* capture(Exit.interrupt(Effect.runSync(Effect.fiberId)))
      expect(result).toEqual({ code: ExitCode.interrupted, stderr: "", stdout: "" })
    }))
})
