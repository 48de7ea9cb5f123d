/**
 * `mainsequence agent session a2a send <agent_session_uid> (--message TEXT | --message-file PATH) …`
 * (SPEC §8): reads the command line into the SDK's `SendA2AMessageInput` and runs `sendA2AMessage`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as FileSystem from "@effect/platform/FileSystem"
import { A2AError, A2AProtocol } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as A2ACall from "../A2ACall.js"
import type { CliConfigError } from "../CliConfig.js"
import { files, mediaTypes, readAttachments } from "../flags/attachments.js"
import { agentSessionUid, debug, output, timeout } from "../flags/common.js"
import { message, messageFile, messageText } from "../flags/message.js"
import { parseInteger } from "../flags/number.js"
import { validatedBy } from "../flags/validated.js"
import * as GroupHelp from "../GroupHelp.js"
import { type Output, type OutputWriteError, printAnswer } from "../Output.js"
import * as RunRecord from "../RunRecord.js"

const flags = {
  agentSessionUid,
  message,
  messageFile,
  messageId: Options.text("message-id").pipe(
    Options.withPseudoName("ID"),
    Options.withDescription(
      "The A2A message id (^[A-Za-z0-9._:-]{1,128}$); give the id of a failed send to retry the same logical message"
    ),
    Options.optional
  ),
  strictDictionary: Options.boolean("strict-dictionary").pipe(
    Options.withDescription("Ask for a strict JSON dictionary answer")
  ),
  jsonRepairAttempts: Options.text("json-repair-attempts").pipe(
    Options.withPseudoName("N"),
    validatedBy((text: string) => parseInteger("json-repair-attempts", text)),
    Options.withDescription("With --strict-dictionary: how often the platform may repair invalid JSON (default 3)"),
    Options.optional
  ),
  files,
  mediaTypes,
  responseKind: Options.choice("response-kind", A2AProtocol.ResponseKind.literals).pipe(
    Options.withDescription("message (default): a direct answer; task: a Task, for Agents that support it"),
    Options.optional
  ),
  taskId: Options.text("task-id").pipe(
    Options.withPseudoName("ID"),
    Options.withDescription(
      "Answer the interrupted Task ID (INPUT_REQUIRED / AUTH_REQUIRED) with this message: a follow-up turn. " +
        "It does not imply Task mode: give --response-kind task with it (otherwise exit 2, nothing sent)"
    ),
    Options.optional
  ),
  referenceTaskIds: Options.text("reference-task-id").pipe(
    Options.withPseudoName("ID"),
    Options.withDescription("A Task this message refers to (sent as message.referenceTaskIds); repeat for more"),
    Options.repeated
  ),
  timeout,
  output,
  debug
} as const

/**
 * The parsed command line of `send`.
 *
 * @since 0.1.0
 * @category models
 */
export type SendFlags = Command.Command.ParseConfig<typeof flags>

const jsonRepairAttemptsValue = (
  flag: Option.Option<number>,
  strictDictionary: boolean
): Effect.Effect<number | undefined, A2AError.A2AInputError> =>
  Option.match(flag, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) =>
      strictDictionary
        // The SDK checks the value (≥ 1).
        ? Effect.succeed(text)
        : Effect.fail(
          new A2AError.A2AInputError({
            field: "json-repair-attempts",
            reason: "only applies with --strict-dictionary"
          })
        )
  })

// The SDK's own check, in the command line's words.
const taskIdValue = (
  taskId: Option.Option<string>,
  responseKind: A2AProtocol.ResponseKind | undefined
): Effect.Effect<string | undefined, A2AError.A2AInputError> =>
  Option.isNone(taskId) || responseKind === "task"
    ? Effect.succeed(Option.getOrUndefined(taskId))
    : Effect.fail(
      new A2AError.A2AInputError({
        field: "task-id",
        reason: "a follow-up turn for a Task is a Task-mode send: give --response-kind task with it"
      })
    )

/**
 * Runs `send`: every command-line check first, then the SDK call, then the answer on stdout.
 *
 * @since 0.1.0
 * @category handlers
 */
export const runSend = (
  flags: SendFlags
): Effect.Effect<
  void,
  A2AError.SendError | CliConfigError | OutputWriteError,
  A2ACall.ClientEnvironment | Output | FileSystem.FileSystem
> =>
  Effect.gen(function*() {
    const messageId = Option.getOrUndefined(Option.map(flags.messageId, (id) => id.trim()))
    yield* RunRecord.record({ agentSessionUid: flags.agentSessionUid, messageId })
    const responseKind = Option.getOrUndefined(flags.responseKind)
    const jsonRepairAttempts = yield* jsonRepairAttemptsValue(flags.jsonRepairAttempts, flags.strictDictionary)
    const taskId = yield* taskIdValue(flags.taskId, responseKind)
    const message = yield* messageText(flags)
    const attachments = yield* readAttachments(flags)
    const answer = yield* A2ACall.run((client) =>
      client.sendA2AMessage(flags.agentSessionUid, {
        message,
        messageId: Option.getOrUndefined(flags.messageId),
        strictDictionary: flags.strictDictionary,
        jsonRepairAttempts,
        attachments,
        responseKind,
        taskId,
        referenceTaskIds: flags.referenceTaskIds.length === 0 ? undefined : flags.referenceTaskIds,
        timeout: Option.getOrUndefined(flags.timeout)
      }), { messageId, debug: flags.debug })
    yield* printAnswer(answer, flags.output, flags.agentSessionUid)
  })

const description = "Send a message to an Agent session and print the Agent's answer"

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("send", flags, runSend).pipe(Command.withDescription(description))

/**
 * The command as listed in the help of the groups above it.
 *
 * @since 0.1.0
 * @category commands
 */
export const help: ReadonlyArray<GroupHelp.Leaf> = [GroupHelp.leaf(command, description)]
