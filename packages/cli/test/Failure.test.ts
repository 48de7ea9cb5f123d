import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import { describe, expect, it } from "@effect/vitest"
import { A2AError } from "@mainsequence/a2a"
import * as ConfigError from "effect/ConfigError"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ExitCode, exitCodeOfSignal, report, type ReportOptions, toExitCode } from "../src/Failure.js"
import { Output } from "../src/Output.js"
import * as RunRecord from "../src/RunRecord.js"
import { errorDocumentOf } from "./support/jsonOutput.js"

const captureWith = <R>(run: Effect.Effect<number, never, R | Output>) =>
  Effect.gen(function*() {
    let stderr = ""
    let stdout = ""
    const code = yield* run.pipe(
      Effect.provide(Layer.succeed(Output, {
        stdout: (text) => Effect.sync(() => void (stdout += text)),
        stderr: (text) => Effect.sync(() => void (stderr += text)),
        stderrIsTTY: false,
        stderrColumns: undefined
      }))
    )
    return { code, stderr, stdout }
  })

const capture = <A, E>(exit: Exit.Exit<A, E>, options?: ReportOptions) => captureWith(report(exit, options))

const json = { format: "json" } as const

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
        // --output json: the same failure as one document: its tag, code, retry safety and own fields.
        const printed = yield* capture(Exit.fail(error), json)
        const { _tag, ...fields } = error
        expect(errorDocumentOf(printed.stdout)).toMatchObject({
          type: tag,
          message: error.message,
          exitCode: code,
          retrySafe: A2AError.isRetrySafe(error),
          details: JSON.parse(JSON.stringify(fields))
        })
        expect(printed.stderr.split("\n")[0]).toBe(error.message)
      }
    }))

  it.effect("the error document: session uid and message id from the error, else from what the run recorded", () =>
    Effect.gen(function*() {
      const fromError = new A2AError.AgentRuntimeNotReadyError({
        agentSessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
        messageId: "msg-1",
        state: "waking",
        remainingMs: 0
      })
      expect(errorDocumentOf((yield* capture(Exit.fail(fromError), json)).stdout)).toEqual({
        type: "AgentRuntimeNotReadyError",
        message: fromError.message,
        exitCode: 3,
        agentSessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
        messageId: "msg-1",
        retrySafe: true,
        hint: "The Agent runtime is still starting: run the command again, or give a longer --timeout. " +
          "Retrying is safe: run the same command with --message-id msg-1",
        details: {
          agentSessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
          messageId: "msg-1",
          state: "waking",
          remainingMs: 0
        }
      })
      // A blank fact keeps what was known: an empty session uid on the command line is no session uid.
      const recorded = Effect.zipRight(
        RunRecord.record({ agentSessionUid: " s-1 ", messageId: "msg-2" }),
        RunRecord.record({ agentSessionUid: "", messageId: "  " })
      )
      const input = new A2AError.A2AInputError({ field: "message", reason: "blank" })
      const printed = yield* captureWith(toExitCode(Effect.zipRight(recorded, Effect.fail(input)), json))
      expect(printed.code).toBe(2)
      expect(errorDocumentOf(printed.stdout)).toMatchObject({
        type: "A2AInputError",
        agentSessionUid: "s-1",
        messageId: "msg-2",
        retrySafe: false,
        details: { field: "message", reason: "blank" }
      })
      // A timeout that left a Task names the command that follows it.
      const timedOut = new A2AError.A2ATimeoutError({
        agentSessionUid: "s-1",
        step: "wait-task",
        limit: "total",
        seconds: 1,
        messageMayHaveBeenSent: false,
        taskId: "task 1"
      })
      expect(errorDocumentOf((yield* capture(Exit.fail(timedOut), json)).stdout).hint).toBe(
        "The call ran out of time: give a longer --timeout. Retrying is safe: run the same command. " +
          "Follow the Task with: mainsequence agent session a2a task wait s-1 'task 1'"
      )
      // A connection that failed to the runtime points at the address the backend gave, not at the endpoint.
      const unreachable = (step: A2AError.A2AStep) =>
        new A2AError.A2ATransportError({
          agentSessionUid: "s-1",
          method: "POST",
          url: "https://rt.example/api/a2a/v1/message:send",
          step,
          messageMayHaveBeenSent: false,
          code: "ECONNREFUSED"
        })
      const hint = (error: unknown) =>
        Effect.map(capture(Exit.fail(error), json), (c) => errorDocumentOf(c.stdout).hint)
      expect(yield* hint(unreachable("send-message"))).toMatch(
        /^Check the network and the proxy settings \(HTTPS_PROXY, NO_PROXY\); the Agent runtime's address is the one the backend gave\./
      )
      expect(yield* hint(unreachable("resolve-runtime-access"))).toMatch(
        /^Check MAINSEQUENCE_ENDPOINT, the network and the proxy settings/
      )
      const request = { agentSessionUid: "s-1", method: "POST", url: "https://rt.example/x", step: "send-message" }
      expect(yield* hint(new A2AError.A2ARequestError({ ...request, status: 307 }))).toMatch(
        /^The Agent runtime's address redirects, which is never followed: report it to the platform's operators/
      )
      expect(yield* hint(new A2AError.A2ARequestError({ ...request, status: 400, reason: "BAD" }))).toMatch(
        /^The Agent runtime refused the request \(see details.reason\)/
      )
      // A refused refresh token cannot renew the access token: only a new login helps.
      const notLoggedIn = { method: "POST", url: "https://b.example/resolve", status: 401 }
      expect(yield* hint(new A2AError.NotLoggedInError(notLoggedIn))).toMatch(
        /^Give a valid MAINSEQUENCE_ACCESS_TOKEN \(or a MAINSEQUENCE_REFRESH_TOKEN to renew it\)/
      )
      expect(yield* hint(new A2AError.NotLoggedInError({ ...notLoggedIn, refreshFailure: "refused (401)" }))).toMatch(
        /^Log in again: give a new MAINSEQUENCE_ACCESS_TOKEN \(and MAINSEQUENCE_REFRESH_TOKEN\); the refresh token/
      )
      // An id that reads like a flag goes after `--`, where the command line takes it as the Task's id.
      const dashed = new A2AError.A2ATimeoutError({ ...timedOut, taskId: "--task-7" })
      expect(errorDocumentOf((yield* capture(Exit.fail(dashed), json)).stdout).hint).toMatch(
        /Follow the Task with: mainsequence agent session a2a task wait s-1 -- --task-7$/
      )
    }))

  it.effect("the error document never gives an id it refuses as the call's session uid or message id", () =>
    Effect.gen(function*() {
      const recorded = RunRecord.record({ agentSessionUid: "not-a-uid", messageId: "a b" })
      const documentOf = (field: string) =>
        Effect.map(
          captureWith(
            toExitCode(
              Effect.zipRight(recorded, Effect.fail(new A2AError.A2AInputError({ field, reason: "bad" }))),
              json
            )
          ),
          (printed) => errorDocumentOf(printed.stdout)
        )
      expect(yield* documentOf("messageId")).toMatchObject({ agentSessionUid: "not-a-uid", messageId: null })
      expect(yield* documentOf("agentSessionUid")).toMatchObject({ agentSessionUid: null, messageId: "a b" })
      expect(yield* documentOf("message")).toMatchObject({ agentSessionUid: "not-a-uid", messageId: "a b" })
    }))

  it.effect("the error document keeps a Redacted field redacted", () =>
    Effect.gen(function*() {
      class WithSecret extends Schema.TaggedError<WithSecret>()("WithSecret", {
        token: Schema.Redacted(Schema.String)
      }) {}
      const printed = yield* capture(Exit.fail(new WithSecret({ token: Redacted.make("secret-token-1") })), json)
      expect(printed.stdout + printed.stderr).not.toContain("secret-token-1")
      expect(errorDocumentOf(printed.stdout).details).toEqual({ token: "<redacted>" })
    }))

  it.effect("usage errors, configuration errors and defects are documents too", () =>
    Effect.gen(function*() {
      const usage = ValidationError.invalidValue(HelpDoc.p("Received unknown argument: '--bogus'"))
      expect(errorDocumentOf((yield* capture(Exit.fail(usage), json)).stdout)).toEqual({
        type: "InvalidValue",
        message: "Received unknown argument: '--bogus'",
        exitCode: 2,
        agentSessionUid: null,
        messageId: null,
        retrySafe: false,
        hint: "Fix the command line (see --help); nothing was sent",
        details: {}
      })
      const config = yield* capture(Exit.fail(ConfigError.MissingData(["MAINSEQUENCE_ENDPOINT"], "Expected it")), json)
      expect(errorDocumentOf(config.stdout)).toMatchObject({
        type: "CliConfigError",
        exitCode: 2,
        details: { variables: ["MAINSEQUENCE_ENDPOINT"], reason: "missing" }
      })
      const defect = yield* capture(Exit.die(new Error("boom\n    at somewhere (file.js:1:1)")), json)
      expect(errorDocumentOf(defect.stdout)).toMatchObject({
        type: "UnexpectedError",
        message: "boom at somewhere (file.js:1:1)",
        exitCode: 1,
        details: {}
      })
      // --output text: stdout stays empty.
      expect((yield* capture(Exit.fail(usage), { format: "text" })).stdout).toBe("")
    }))

  it.effect("an interruption with --output json: one document with the signal's exit code", () =>
    Effect.gen(function*() {
      let printed = ""
      const run = toExitCode(
        Effect.zipRight(RunRecord.record({ agentSessionUid: "s-1", messageId: "msg-3" }), Effect.never),
        { format: "json", interruptedExitCode: () => 143 }
      ).pipe(
        Effect.provide(Layer.succeed(Output, {
          stdout: (text) => Effect.sync(() => void (printed += text)),
          stderr: () => Effect.void,
          stderrIsTTY: false,
          stderrColumns: undefined
        }))
      )
      const fiber = yield* Effect.fork(run)
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(fiber)
      expect(errorDocumentOf(printed)).toMatchObject({
        type: "Interrupted",
        exitCode: 143,
        agentSessionUid: "s-1",
        messageId: "msg-3",
        retrySafe: true
      })
    }))

  it.effect("an interruption before the program starts, in an uninterruptible region: it never runs, reported", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<boolean>()
      let ran = false
      let result: { code: number; stderr: string; stdout: string } | undefined
      const run = captureWith(toExitCode(Effect.sync(() => void (ran = true)), json)).pipe(
        Effect.tap((captured) => void (result = captured))
      )
      const fiber = yield* Effect.fork(Effect.uninterruptible(Effect.zipRight(Deferred.await(gate), run)))
      yield* Effect.yieldNow()
      yield* Fiber.interruptFork(fiber)
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, true)
      yield* Fiber.await(fiber)
      expect([ran, result?.code, result?.stderr]).toEqual([false, 130, "Interrupted: the call was stopped\n"])
      expect(errorDocumentOf(result?.stdout ?? "")).toMatchObject({
        type: "Interrupted",
        exitCode: 130,
        retrySafe: true
      })
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
