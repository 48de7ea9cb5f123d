/**
 * How a run ends (SPEC §8): the exit code, and on failure exactly one line on stderr with the cause — plus,
 * once a send has begun, `A2A message id for request retry: <id>`.
 *
 * | exit | when |
 * |---|---|
 * | 0 | success (the answer is on stdout; also a Task that ended FAILED, CANCELED or REJECTED) |
 * | 1 | the call failed otherwise: invalid answer, server errors, rate limited, session/Task not found, Task not cancelable, Task mode not supported, an unexpected defect |
 * | 2 | usage, bad input or missing configuration; nothing was sent: usage errors, `A2AInputError`, missing `MAINSEQUENCE_*` settings |
 * | 3 | the Agent's runtime cannot take the message now; nothing was sent: `AgentRuntimeNotReadyError`, `AgentRuntimeUnavailableError` |
 * | 4 | authentication or permission: `NotLoggedInError`, `PermissionDeniedError`, `RuntimeAuthError` |
 * | 5 | out of time; the message may have reached the Agent: `A2ATimeoutError`, `A2AMessageLimitExceededError` |
 * | 6 | the connection failed: `A2ATransportError` |
 * | 130 | interrupted (Ctrl-C, SIGINT) |
 * | 143 | stopped by SIGTERM (a supervisor, `timeout`, a container stop) |
 *
 * @since 0.1.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { stripVTControlCharacters } from "node:util"
import { fromConfigError } from "./CliConfig.js"
import { type Output, printErrorLine } from "./Output.js"

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
 * Collapses a text to one line (no control characters, no line breaks).
 *
 * @since 0.1.0
 * @category rendering
 */
export const oneLine = (text: string): string =>
  stripVTControlCharacters(text).split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "").join(" ")

const messageIdOf = (error: unknown): string | undefined =>
  Predicate.hasProperty(error, "messageId") && Predicate.isString(error.messageId) ? error.messageId : undefined

const describe = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return fromConfigError(error).message
  if (error instanceof Error) return error.message === "" ? error.name : error.message
  return String(error)
}

/**
 * What to print and the exit code for an expected failure (a typed error of the command).
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderFailure = (error: unknown): { readonly lines: ReadonlyArray<string>; readonly exitCode: number } => {
  if (ValidationError.isValidationError(error)) {
    const text = oneLine(HelpDoc.toAnsiText(error.error))
    return { lines: [text === "" ? "Invalid command line (see --help)" : text], exitCode: ExitCode.usage }
  }
  const messageId = messageIdOf(error)
  return {
    lines: [oneLine(describe(error)), ...(messageId === undefined ? [] : [messageIdLine(messageId)])],
    exitCode: exitCodeOf(error)
  }
}

/**
 * Prints the outcome of a run on stderr (nothing for success) and returns its exit code. An interruption
 * prints nothing here: the command that was interrupted says what it knows (see `send`).
 *
 * @since 0.1.0
 * @category running
 */
export const report = <A, E>(exit: Exit.Exit<A, E>): Effect.Effect<number, never, Output> => {
  if (Exit.isSuccess(exit)) return Effect.succeed(ExitCode.success)
  const cause = exit.cause
  if (Cause.isInterruptedOnly(cause)) return Effect.succeed(ExitCode.interrupted)
  const rendered = Option.match(Cause.failureOption(cause), {
    onSome: renderFailure,
    onNone: () => ({
      lines: [`Unexpected error: ${oneLine(describe(Cause.squash(cause)))}`],
      exitCode: ExitCode.failure
    })
  })
  return Effect.as(Effect.forEach(rendered.lines, printErrorLine, { discard: true }), rendered.exitCode)
}

/**
 * Runs a program to its exit code, reporting its failure.
 *
 * @since 0.1.0
 * @category running
 */
export const toExitCode = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<number, never, R | Output> =>
  Effect.exit(program).pipe(Effect.flatMap(report))
