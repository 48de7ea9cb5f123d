/**
 * Flags shared by every A2A command: `--timeout`, `--output` and `--debug`.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Options from "@effect/cli/Options"
import type { Timeout } from "@mainsequence/a2a"
import type * as Option from "effect/Option"
import { outputFormats } from "../Output.js"
import { parseTimeout } from "./timeout.js"
import { validatedBy } from "./validated.js"

/**
 * `<agent_session_uid>`: the backend `AgentSession.uid` (the SDK checks it is a UUID).
 *
 * @since 0.1.0
 * @category args
 */
export const agentSessionUid = Args.text({ name: "agent_session_uid" }).pipe(
  Args.withDescription("The Agent session uid (a UUID), the conversation the message belongs to")
)

/**
 * The value of `--timeout`: the SDK's `Timeout`, or none for the SDK's default.
 *
 * @since 0.1.0
 * @category models
 */
export type TimeoutFlag = Option.Option<Timeout.Timeout>

/**
 * `--timeout SECONDS` or `--timeout CONNECT,READ`: the SDK's `Timeout`, checked by its rule while the command
 * line is parsed (absent: the SDK's default).
 *
 * @since 0.1.0
 * @category options
 */
export const timeout: Options.Options<TimeoutFlag> = Options.text("timeout").pipe(
  Options.withPseudoName("SECONDS"),
  Options.withDescription(
    "The call's total budget in seconds, or CONNECT,READ phase limits (total = their sum); default 5,900"
  ),
  validatedBy(parseTimeout),
  Options.optional
)

/**
 * `--output json|text`.
 *
 * @since 0.1.0
 * @category options
 */
export const output = Options.choice("output", outputFormats).pipe(
  Options.withAlias("o"),
  Options.withDescription(
    "json (default): stdout carries exactly one JSON document whatever the outcome: the A2A answer in its wire " +
      "shape ({\"message\": …} or {\"task\": …}, with \"resume\" when the Task waits for input), or " +
      "{\"error\": {type, message, exitCode, agentSessionUid, messageId, retrySafe, hint, details}}; " +
      "text: only the answer's text parts (stderr counts the parts left out). stderr keeps the human lines either " +
      "way (for a Task not completed: the command that answers or follows it, or the state it ended in)"
  ),
  Options.withDefault("json" as const)
)

/**
 * `--debug`.
 *
 * @since 0.2.0
 * @category options
 */
export const debug = Options.boolean("debug").pipe(
  Options.withDescription(
    "Write each HTTP exchange to stderr (method, URL, status, timing, headers, a body excerpt), every " +
      "credential redacted"
  )
)
