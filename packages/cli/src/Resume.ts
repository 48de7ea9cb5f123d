/**
 * The command that answers a Task stopped for its caller (`TASK_STATE_INPUT_REQUIRED`,
 * `TASK_STATE_AUTH_REQUIRED`; SPEC §7): a follow-up turn, `send <uid> --task-id <id> --response-kind task`
 * with the answer as `--message TEXT` or `--message-file -`. Shown on stderr, and as `"resume"` in the
 * `--output json` document. A Task still under way gets the `task wait` that follows it, and one that ended
 * without completing its state, on stderr only.
 *
 * @since 0.2.0
 */
import { A2AProtocol } from "@mainsequence/a2a"
import { escapeUnsafe, isUnsafe } from "./TerminalText.js"

/**
 * The executable's name, as the commands shown to the caller start.
 *
 * @since 0.2.0
 * @category constants
 */
export const executable = "mainsequence"

/**
 * A word as a shell reads it back unchanged: as is when it is plain, else in single quotes; a word holding a
 * character a terminal would act on (a control, a bidirectional override) in `$'…'` with that character escaped.
 *
 * @since 0.2.0
 * @category rendering
 */
export const shellWord = (word: string): string =>
  /^[A-Za-z0-9._:/=@%+,-]+$/.test(word)
    ? word
    : isUnsafe(word)
    ? `$'${escapeUnsafe(word.replace(/[\\']/g, "\\$&"), utf8Escapes)}'`
    : `'${word.replaceAll("'", `'\\''`)}'`

// In `$'…'` (bash, zsh, ksh, POSIX.1-2024 sh) a character a terminal would act on is written as its UTF-8 bytes:
// the command stays exact and prints as it is.
const utf8Escapes = (char: string): string =>
  Array.from(new TextEncoder().encode(char), (byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("")

/**
 * @since 0.2.0
 * @category models
 */
export interface Resume {
  /** the Task's state */
  readonly state: string
  /** the command to run, with `--message TEXT` for the answer */
  readonly command: string
  /** its arguments after the executable, without the answer: add `--message TEXT` or `--message-file -` */
  readonly args: ReadonlyArray<string>
}

/**
 * How to answer the answer, when it is a Task that waits for its caller.
 *
 * @since 0.2.0
 * @category constructors
 */
export const resumeOf = (
  answer: A2AProtocol.Message | A2AProtocol.Task,
  agentSessionUid: string
): Resume | undefined => {
  if (!A2AProtocol.isTask(answer) || !A2AProtocol.interruptedTaskStates.has(answer.status.state)) return undefined
  const args = [
    "agent",
    "session",
    "a2a",
    "send",
    agentSessionUid.trim(),
    // An id the parser would read as an option (`-x`) is given joined to its flag.
    ...(answer.id.startsWith("-") ? [`--task-id=${answer.id}`] : ["--task-id", answer.id]),
    "--response-kind",
    "task"
  ]
  return {
    state: answer.status.state,
    command: [executable, ...args.map(shellWord), "--message", "TEXT"].join(" "),
    args
  }
}

/**
 * The stderr line that names the command.
 *
 * @since 0.2.0
 * @category rendering
 */
export const resumeLine = (resume: Resume): string =>
  `The Task waits for you (${resume.state}); answer it with: ${resume.command} (or --message-file - to read the answer from standard input)`

/**
 * The command that waits for a Task to end or to need its caller; an id the parser would read as a flag goes
 * after `--`.
 *
 * @since 0.2.0
 * @category rendering
 */
export const waitCommand = (agentSessionUid: string, taskId: string): string =>
  [
    executable,
    "agent session a2a task wait",
    shellWord(agentSessionUid.trim()),
    ...(taskId.startsWith("-") ? ["--"] : []),
    shellWord(taskId)
  ].join(" ")

/**
 * How stderr says a Task is still under way (submitted, working): the start of {@link stateLine}, and the
 * progress of `task wait`.
 *
 * @since 0.2.0
 * @category rendering
 */
export const underWay = (taskId: string, state: string): string => `The Task ${taskId} is under way (${state})`

/**
 * The stderr line for a Task that neither waits for its caller nor completed: one still under way (submitted,
 * working) names `waitCommand`, one that failed, was canceled or rejected its state. `--output text` prints only
 * text parts, which show neither the Task's id nor its state.
 *
 * @since 0.2.0
 * @category rendering
 */
export const stateLine = (
  answer: A2AProtocol.Message | A2AProtocol.Task,
  agentSessionUid: string
): string | undefined => {
  if (!A2AProtocol.isTask(answer)) return undefined
  const { id, status: { state } } = answer
  return state === "TASK_STATE_COMPLETED" || A2AProtocol.interruptedTaskStates.has(state)
    ? undefined
    : A2AProtocol.terminalTaskStates.has(state)
    ? `The Task ${id} ended without completing (${state})`
    : `${underWay(id, state)}; follow it with: ${waitCommand(agentSessionUid, id)}`
}
