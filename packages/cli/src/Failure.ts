/**
 * How a run ends (SPEC §8): the exit code, and on failure exactly one line on stderr with the cause — plus,
 * once a send has begun, `A2A message id for request retry: <id>`.
 *
 * | exit | when |
 * |---|---|
 * | 0 | success (the answer is on stdout; also a Task that ended FAILED, CANCELED or REJECTED) |
 * | 1 | the call failed otherwise: invalid answer, server errors, rate limited, session/Task not found, Task not cancelable, Task mode not supported, stdout cannot be written (`OutputWriteError`), an unexpected defect |
 * | 2 | usage, bad input or missing configuration; nothing was sent: usage errors, `A2AInputError`, missing `MAINSEQUENCE_*` settings |
 * | 3 | the Agent's runtime cannot take the message now; nothing was sent: `AgentRuntimeNotReadyError`, `AgentRuntimeUnavailableError` |
 * | 4 | authentication or permission: `NotLoggedInError`, `PermissionDeniedError`, `RuntimeAuthError` |
 * | 5 | out of time; the message may have reached the Agent: `A2ATimeoutError`, `A2AMessageLimitExceededError` |
 * | 6 | the connection failed: `A2ATransportError` |
 * | 130 | interrupted (Ctrl-C, SIGINT) |
 * | 143 | stopped by SIGTERM (a supervisor, `timeout`, a container stop) |
 *
 * With `--output json` stdout also carries, in every failure, exactly one JSON document:
 * `{"error": {type, message, exitCode, agentSessionUid, messageId, retrySafe, hint, details}}` (see
 * {@link errorDocument}).
 *
 * @since 0.1.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import { A2AError } from "@mainsequence/a2a"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { fromConfigError } from "./CliConfig.js"
import { type Output, type OutputFormat, printErrorLine, printLine } from "./Output.js"
import { waitCommand } from "./Resume.js"
import * as RunRecord from "./RunRecord.js"
import * as TerminalText from "./TerminalText.js"

/**
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = {
  success: 0,
  failure: 1,
  usage: 2,
  notReady: 3,
  auth: 4,
  outOfTime: 5,
  connection: 6,
  interrupted: 130,
  terminated: 143
} as const

/**
 * The exit code of a run that a signal stopped: 143 (128 + 15) for SIGTERM, else 130 (Ctrl-C, SIGINT).
 *
 * @since 0.2.0
 * @category constants
 */
export const exitCodeOfSignal = (signal: NodeJS.Signals | undefined): number =>
  signal === "SIGTERM" ? ExitCode.terminated : ExitCode.interrupted

/**
 * The exit code of each tagged failure that does not exit {@link ExitCode.failure} (SPEC §8).
 *
 * @since 0.1.0
 * @category constants
 */
export const exitCodeByTag: Readonly<Record<string, number>> = {
  A2AInputError: ExitCode.usage,
  CliConfigError: ExitCode.usage,
  AgentRuntimeNotReadyError: ExitCode.notReady,
  AgentRuntimeUnavailableError: ExitCode.notReady,
  NotLoggedInError: ExitCode.auth,
  PermissionDeniedError: ExitCode.auth,
  RuntimeAuthError: ExitCode.auth,
  A2ATimeoutError: ExitCode.outOfTime,
  A2AMessageLimitExceededError: ExitCode.outOfTime,
  A2ATransportError: ExitCode.connection
}

const exitCodeOf = (error: unknown): number => {
  if (ConfigError.isConfigError(error)) return ExitCode.usage
  const tag = Predicate.hasProperty(error, "_tag") && Predicate.isString(error._tag) ? error._tag : undefined
  return (tag === undefined ? undefined : exitCodeByTag[tag]) ?? ExitCode.failure
}

/**
 * The line that tells the caller which message id to give `--message-id` to retry the same logical message.
 *
 * @since 0.1.0
 * @category rendering
 */
export const messageIdLine = (messageId: string): string => `A2A message id for request retry: ${messageId}`

/**
 * Collapses a text to one line safe for a terminal (`TerminalText.oneLine`).
 *
 * @since 0.1.0
 * @category rendering
 */
export const oneLine: (text: string) => string = TerminalText.oneLine

const messageIdOf = (error: unknown): string | undefined =>
  Predicate.hasProperty(error, "messageId") && Predicate.isString(error.messageId) ? error.messageId : undefined

const describe = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return fromConfigError(error).message
  if (error instanceof Error) return error.message === "" ? error.name : error.message
  return String(error)
}

/**
 * A failure as the report shows it: on stderr its message (and the message id line), on stdout with
 * `--output json` all of it (see {@link errorDocument}).
 *
 * @since 0.2.0
 * @category models
 */
export interface Described {
  /** the error's tag (`A2ATimeoutError`, `CliConfigError`, a usage error's `InvalidValue`, …) */
  readonly type: string
  readonly message: string
  readonly exitCode: number
  readonly agentSessionUid: string | undefined
  readonly messageId: string | undefined
  /** `A2AError.isRetrySafe` for the SDK's errors; false otherwise */
  readonly retrySafe: boolean
  /** the message may have reached the Agent (a retry would send it again) */
  readonly mayHaveBeenSent: boolean
  /** the error's own fields (no tag, no message) */
  readonly details: Readonly<Record<string, unknown>>
}

const sdkErrors = [
  A2AError.A2AInputError,
  A2AError.AgentRuntimeNotReadyError,
  A2AError.AgentRuntimeUnavailableError,
  A2AError.ServerError,
  A2AError.A2AMessageLimitExceededError,
  A2AError.RuntimeAuthError,
  A2AError.A2ATimeoutError,
  A2AError.A2ATransportError,
  A2AError.InvalidA2AResponseError,
  A2AError.TaskModeNotSupportedError,
  A2AError.TaskNotFoundError,
  A2AError.TaskNotCancelableError,
  A2AError.A2ARequestError,
  A2AError.NotLoggedInError,
  A2AError.PermissionDeniedError,
  A2AError.SessionNotFoundError,
  A2AError.RateLimitedError,
  A2AError.BackendContractError
]

const isA2AError = (error: unknown): error is A2AError.A2AError => sdkErrors.some((type) => error instanceof type)

const stringField = (error: unknown, name: string): string | undefined =>
  Predicate.hasProperty(error, name) && Predicate.isString(error[name]) ? error[name] : undefined

// The SDK's errors hold no token (their fields are built for messages); a Redacted field, if any, prints as
// `<redacted>` through its `toJSON`.
const ownFields = (error: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(error).filter(([name]) => name !== "_tag" && name !== "message"))

const mayHaveBeenSent = (error: unknown): boolean =>
  (Predicate.hasProperty(error, "messageMayHaveBeenSent") && error.messageMayHaveBeenSent === true) ||
  A2AError.isServerError(error) && error.origin === "runtime"

/**
 * Describes an expected failure (a typed error of the command), with what the run knew.
 *
 * @since 0.2.0
 * @category rendering
 */
export const describeFailure = (error: unknown, facts: RunRecord.Facts = {}): Described => {
  // An id the error refuses is not the call's: it stays in the message and details only.
  const refused = error instanceof A2AError.A2AInputError ? error.field : undefined
  const known = {
    agentSessionUid: refused === "agentSessionUid" ? undefined : stringField(error, "agentSessionUid") ??
      facts.agentSessionUid,
    messageId: refused === "messageId" ? undefined : messageIdOf(error) ?? facts.messageId
  }
  if (ValidationError.isValidationError(error)) {
    const text = oneLine(HelpDoc.toAnsiText(error.error))
    return {
      type: error._tag,
      message: text === "" ? "Invalid command line (see --help)" : text,
      exitCode: ExitCode.usage,
      ...known,
      retrySafe: false,
      mayHaveBeenSent: false,
      details: {}
    }
  }
  const typed = ConfigError.isConfigError(error) ? fromConfigError(error) : error
  return {
    type: stringField(typed, "_tag") ?? "UnexpectedError",
    message: oneLine(describe(typed)),
    exitCode: exitCodeOf(typed),
    ...known,
    retrySafe: isA2AError(typed) && A2AError.isRetrySafe(typed),
    mayHaveBeenSent: mayHaveBeenSent(typed),
    details: Predicate.isObject(typed) && stringField(typed, "_tag") !== undefined ? ownFields(typed) : {}
  }
}

/**
 * What to print and the exit code for an expected failure (a typed error of the command).
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderFailure = (error: unknown): { readonly lines: ReadonlyArray<string>; readonly exitCode: number } =>
  humanLines(describeFailure(error), messageIdOf(error))

const humanLines = (described: Described, messageId: string | undefined) => ({
  lines: [described.message, ...(messageId === undefined ? [] : [messageIdLine(messageId)])],
  exitCode: described.exitCode
})

const whatToDo: Readonly<Record<string, string>> = {
  A2AInputError: "Fix the command line (see --help); nothing was sent",
  CliConfigError: "Set the MAINSEQUENCE_* variables the message names; nothing was sent",
  AgentRuntimeNotReadyError: "The Agent runtime is still starting: run the command again, or give a longer --timeout",
  AgentRuntimeUnavailableError: "The Agent runtime cannot take messages now (see the message); nothing was sent",
  NotLoggedInError: "Give a valid MAINSEQUENCE_ACCESS_TOKEN (or a MAINSEQUENCE_REFRESH_TOKEN to renew it)",
  PermissionDeniedError: "The user may not use this Agent session: check the session uid and the permissions",
  RuntimeAuthError: "The Agent runtime refused fresh credentials twice: check the user's access to this session",
  A2ATimeoutError: "The call ran out of time: give a longer --timeout",
  A2AMessageLimitExceededError:
    "The Agent needs longer than the platform's Message limit: send with --response-kind task, then task wait",
  A2ATransportError: "Check MAINSEQUENCE_ENDPOINT, the network and the proxy settings (HTTPS_PROXY, NO_PROXY)",
  RateLimitedError: "The backend rate-limits this user: wait (see retryAfter), then run the command again",
  ServerError: "The platform failed: try again later",
  SessionNotFoundError: "Check the Agent session uid",
  TaskNotFoundError: "Check the Task id and the Agent session uid",
  TaskNotCancelableError: "The Task cannot be canceled (it may have ended): task get shows its state",
  TaskModeNotSupportedError: "The Agent answers with Messages only: send without --response-kind task",
  InvalidA2AResponseError: "The Agent's answer breaks A2A: report it to the Agent's owner",
  A2ARequestError: "The Agent runtime refused the request (see details.reason): change the request",
  BackendContractError: "The backend's answer was unusable: try again later, or report it",
  Interrupted: "The run was stopped by a signal",
  UnexpectedError: "A defect of the CLI: report it with this message"
}

const backendSteps: ReadonlyArray<string | undefined> = ["resolve-runtime-access", "await-runtime"]

// Where the type alone would point the wrong way: a runtime's address comes from the backend, a redirect has
// no reason to read, a refused refresh token cannot renew the access token.
const specificHint = ({ details, type }: Described): string | undefined =>
  type === "A2ATransportError" && !backendSteps.includes(stringField(details, "step"))
    ? "Check the network and the proxy settings (HTTPS_PROXY, NO_PROXY); the Agent runtime's address is the one " +
      "the backend gave"
    : type === "A2ARequestError" && typeof details["status"] === "number" && details["status"] < 400
    ? "The Agent runtime's address redirects, which is never followed: report it to the platform's operators"
    : type === "NotLoggedInError" && stringField(details, "refreshFailure") !== undefined
    ? "Log in again: give a new MAINSEQUENCE_ACCESS_TOKEN (and MAINSEQUENCE_REFRESH_TOKEN); the refresh token " +
      "was not accepted either"
    : undefined

/**
 * What the caller can do next, in one sentence or two: by the error's type, then whether and how to retry.
 *
 * @since 0.2.0
 * @category rendering
 */
export const hintOf = (described: Described): string => {
  const base = specificHint(described) ?? whatToDo[described.type] ??
    (described.exitCode === ExitCode.usage ? "Fix the command line (see --help); nothing was sent" : "")
  const sameId = described.messageId === undefined ? "" : ` with --message-id ${described.messageId}`
  const retry = described.retrySafe
    ? `Retrying is safe: run the same command${sameId}`
    : described.mayHaveBeenSent
    ? `The message may have reached the Agent: check before sending it again; a resend${sameId} is the same ` +
      "logical message"
    : ""
  const taskId = stringField(described.details, "taskId")
  const follow = described.type === "A2ATimeoutError" && taskId !== undefined && described.agentSessionUid !== undefined
    ? `Follow the Task with: ${waitCommand(described.agentSessionUid, taskId)}`
    : ""
  return [base, retry, follow].filter((part) => part !== "").join(". ")
}

/**
 * The `--output json` document of a failure, as a Schema: a script or a test may decode stdout with it.
 *
 * @since 0.2.0
 * @category models
 */
export const ErrorDocument = Schema.Struct({
  error: Schema.Struct({
    type: Schema.String,
    message: Schema.String,
    exitCode: Schema.Number,
    agentSessionUid: Schema.NullOr(Schema.String),
    messageId: Schema.NullOr(Schema.String),
    retrySafe: Schema.Boolean,
    hint: Schema.String,
    details: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  })
})

/**
 * @since 0.2.0
 * @category models
 */
export type ErrorDocument = typeof ErrorDocument.Type

/**
 * The `--output json` document of a failure: `{"error": …}` with the type, message, exit code, session uid and
 * message id (`null` when unknown), whether a retry is safe, a hint and the error's own fields.
 *
 * @since 0.2.0
 * @category rendering
 */
export const errorDocument = (described: Described): string => {
  const document: ErrorDocument = {
    error: {
      type: described.type,
      message: described.message,
      exitCode: described.exitCode,
      agentSessionUid: described.agentSessionUid ?? null,
      messageId: described.messageId ?? null,
      retrySafe: described.retrySafe,
      hint: hintOf(described),
      details: described.details
    }
  }
  return TerminalText.json(document)
}

/**
 * The message of an interruption: what became of the call, by whether the message may have reached the
 * runtime (see `RunRecord.Facts.messageSending`).
 *
 * @since 0.2.0
 * @category rendering
 */
export const interruptionMessage = (mayHaveBeenSent: boolean): string =>
  mayHaveBeenSent
    ? "Interrupted: the send was stopped; the message may already have reached the runtime and is not sent again"
    : "Interrupted: the call was stopped"

/**
 * How a run reports: the output format (`json` adds the error document on stdout) and the exit code of an
 * interruption (130 unless a SIGTERM stopped it).
 *
 * @since 0.2.0
 * @category models
 */
export interface ReportOptions {
  readonly format?: OutputFormat | undefined
  readonly interruptedExitCode?: (() => number) | undefined
}

// A document stdout cannot take is left out: the exit code and the lines on stderr already tell the failure.
const printDocument = (described: Described, options: ReportOptions) =>
  options.format === "json" ? Effect.ignore(printLine(errorDocument(described))) : Effect.void

/**
 * Prints the outcome of a run on stderr (nothing for success), with `--output json` its error document on
 * stdout, and returns its exit code. An interruption prints nothing here: {@link toExitCode} reports it when
 * it happens, with what the run recorded.
 *
 * @since 0.1.0
 * @category running
 */
export const report = <A, E>(
  exit: Exit.Exit<A, E>,
  options: ReportOptions = {},
  facts: RunRecord.Facts = {}
): Effect.Effect<number, never, Output> => {
  if (Exit.isSuccess(exit)) return Effect.succeed(ExitCode.success)
  const cause = exit.cause
  if (Cause.isInterruptedOnly(cause)) return Effect.succeed(options.interruptedExitCode?.() ?? ExitCode.interrupted)
  const rendered = Option.match(Cause.failureOption(cause), {
    onSome: (error) => {
      const described = describeFailure(error, facts)
      return { described, ...humanLines(described, messageIdOf(error)) }
    },
    onNone: () => {
      const described: Described = {
        ...describeFailure(Cause.squash(cause), facts),
        type: "UnexpectedError",
        exitCode: ExitCode.failure,
        retrySafe: false,
        details: {}
      }
      return { described, lines: [`Unexpected error: ${described.message}`], exitCode: ExitCode.failure }
    }
  })
  return Effect.forEach(rendered.lines, printErrorLine, { discard: true }).pipe(
    Effect.zipRight(printDocument(rendered.described, options)),
    Effect.as(rendered.exitCode)
  )
}

const interrupted = (record: RunRecord.Service, options: ReportOptions) =>
  Effect.flatMap(record.facts, (facts) => {
    const mayHaveBeenSent = facts.messageSending === true
    const described: Described = {
      type: "Interrupted",
      message: interruptionMessage(mayHaveBeenSent),
      exitCode: options.interruptedExitCode?.() ?? ExitCode.interrupted,
      agentSessionUid: facts.agentSessionUid,
      messageId: facts.messageId,
      retrySafe: !mayHaveBeenSent,
      mayHaveBeenSent,
      details: {}
    }
    return Effect.forEach(
      humanLines(described, facts.messageId).lines,
      printErrorLine,
      { discard: true }
    ).pipe(Effect.zipRight(printDocument(described, options)))
  })

/**
 * Runs a program to its exit code, reporting its failure (and, with `--output json`, its interruption) with
 * what the run recorded (see `RunRecord`). The program is interruptible, the rest is not: run inside an
 * uninterruptible region, an interruption that comes before the program starts stops it there.
 *
 * @since 0.1.0
 * @category running
 */
export const toExitCode = <A, E, R>(
  program: Effect.Effect<A, E, R>,
  options: ReportOptions = {}
): Effect.Effect<number, never, Exclude<R, RunRecord.RunRecord> | Output> =>
  Effect.uninterruptible(
    Effect.flatMap(RunRecord.make, (record) =>
      Effect.interruptible(program).pipe(
        Effect.onInterrupt(() => interrupted(record, options)),
        Effect.provideService(RunRecord.RunRecord, record),
        Effect.exit,
        Effect.flatMap((exit) => Effect.flatMap(record.facts, (facts) => report(exit, options, facts)))
      ))
  )
