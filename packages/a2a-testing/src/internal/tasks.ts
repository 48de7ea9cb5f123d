/**
 * The Tasks of the simulated runtimes as domain operations: create, follow
 * up, cancel, find, and the state a Task is in at a Clock reading. The HTTP
 * faces call these and turn a {@link TaskFailure} into an A2A error answer.
 *
 * A Task moves by simulated time: `SUBMITTED` for the script's `queuedMs`,
 * `WORKING` for the Agent's work, then either the next of the script's
 * `questions` (`INPUT_REQUIRED`, until a follow-up turn arrives) or the
 * script's `outcome`. A follow-up turn on an interrupted Task starts a new
 * round of work at once.
 *
 * @internal
 */
import type * as SessionScenario from "../SessionScenario.js"
import { agentMessage, type JsonObject } from "./agent.js"
import type { TaskRecord } from "./model.js"
import type { PlatformState } from "./state.js"
import { isoTime } from "./wire.js"

/** @internal */
export type TaskStateName =
  | "TASK_STATE_SUBMITTED"
  | "TASK_STATE_WORKING"
  | "TASK_STATE_INPUT_REQUIRED"
  | "TASK_STATE_AUTH_REQUIRED"
  | "TASK_STATE_COMPLETED"
  | "TASK_STATE_FAILED"
  | "TASK_STATE_CANCELED"
  | "TASK_STATE_REJECTED"

/** @internal */
export const isTerminalTaskState = (state: TaskStateName): boolean =>
  state === "TASK_STATE_COMPLETED" || state === "TASK_STATE_FAILED" || state === "TASK_STATE_CANCELED" ||
  state === "TASK_STATE_REJECTED"

/** @internal */
export const isInterruptedTaskState = (state: TaskStateName): boolean =>
  state === "TASK_STATE_INPUT_REQUIRED" || state === "TASK_STATE_AUTH_REQUIRED"

export type { TaskRecord }

/** What a domain operation refuses, as the official A2A server names it. @internal */
export type TaskFailure =
  | { readonly _tag: "TaskNotFound"; readonly taskId: string }
  | { readonly _tag: "TaskTerminal"; readonly taskId: string; readonly state: TaskStateName }
  | {
    readonly _tag: "TaskNotCancelable"
    readonly taskId: string
    readonly state: TaskStateName
    readonly cancelable: boolean
  }

/** @internal */
export type TaskResult =
  | { readonly _tag: "Ok"; readonly task: TaskRecord }
  | { readonly _tag: "Refused"; readonly failure: TaskFailure }

const ok = (task: TaskRecord): TaskResult => ({ _tag: "Ok", task })
const refused = (failure: TaskFailure): TaskResult => ({ _tag: "Refused", failure })

const outcomeState = (outcome: SessionScenario.TaskScript["outcome"]): TaskStateName => {
  switch (outcome) {
    case "completed":
      return "TASK_STATE_COMPLETED"
    case "failed":
      return "TASK_STATE_FAILED"
    case "input_required":
      return "TASK_STATE_INPUT_REQUIRED"
    case "auth_required":
      return "TASK_STATE_AUTH_REQUIRED"
    case "rejected":
      return "TASK_STATE_REJECTED"
  }
}

/** The question the Agent asks after the current round of work, if any. */
const pendingQuestion = (task: TaskRecord): string | undefined => task.script.questions[task.turns]

/**
 * The state of a Task at a Clock reading, and since when it holds.
 *
 * @internal
 */
export const taskStateAt = (
  task: TaskRecord,
  nowMs: number
): { readonly state: TaskStateName; readonly sinceMs: number } => {
  if (task.canceledAtMs !== null && task.canceledAtMs <= nowMs) {
    return { state: "TASK_STATE_CANCELED", sinceMs: task.canceledAtMs }
  }
  const doneAt = task.workStartsAtMs + task.workMs
  if (nowMs < task.workStartsAtMs) return { state: "TASK_STATE_SUBMITTED", sinceMs: task.createdAtMs }
  if (nowMs < doneAt) return { state: "TASK_STATE_WORKING", sinceMs: task.workStartsAtMs }
  return pendingQuestion(task) === undefined
    ? { state: outcomeState(task.script.outcome), sinceMs: doneAt }
    : { state: "TASK_STATE_INPUT_REQUIRED", sinceMs: doneAt }
}

const defaultStatusText = (state: TaskStateName): string | undefined => {
  switch (state) {
    case "TASK_STATE_FAILED":
      return "The job failed."
    case "TASK_STATE_INPUT_REQUIRED":
      return "More input is needed to go on."
    case "TASK_STATE_AUTH_REQUIRED":
      return "Authorization is needed to go on."
    case "TASK_STATE_REJECTED":
      return "The Agent rejected the job."
    case "TASK_STATE_CANCELED":
      return "The job was canceled."
    default:
      return undefined
  }
}

const statusText = (task: TaskRecord, state: TaskStateName): string | undefined => {
  if (state === "TASK_STATE_COMPLETED" || state === "TASK_STATE_SUBMITTED" || state === "TASK_STATE_WORKING") {
    return undefined
  }
  const question = state === "TASK_STATE_INPUT_REQUIRED" ? pendingQuestion(task) : undefined
  return question ?? task.script.statusMessage ?? defaultStatusText(state)
}

const statusMessageOf = (task: TaskRecord, text: string): JsonObject =>
  agentMessage({ messageId: task.statusMessageId, contextId: task.sessionUid, parts: [{ text }] })

/**
 * The Task as A2A v1 JSON (the bare Task object).
 *
 * @internal
 */
export const renderTask = (task: TaskRecord, nowMs: number): JsonObject => {
  const { sinceMs, state } = taskStateAt(task, nowMs)
  const text = statusText(task, state)
  return {
    id: task.id,
    contextId: task.sessionUid,
    status: {
      state,
      timestamp: isoTime(sinceMs),
      ...(text === undefined ? {} : { message: statusMessageOf(task, text) })
    },
    ...(state === "TASK_STATE_COMPLETED"
      ? { artifacts: [{ artifactId: task.artifactId, name: "answer", parts: task.answerParts }] }
      : {}),
    history: [...task.history]
  }
}

/** One user turn: the message as sent and the parts the Agent answers it with. @internal */
export interface Turn {
  readonly message: unknown
  readonly answerParts: ReadonlyArray<unknown>
}

/**
 * Creates a Task for the session's Agent.
 *
 * @internal
 */
export const createTask = (
  state: PlatformState,
  session: { readonly sessionUid: string; readonly serviceUid: string; readonly script: SessionScenario.TaskScript },
  turn: Turn,
  workMs: number,
  nowMs: number
): TaskRecord => {
  const task: TaskRecord = {
    id: state.nextTaskId(),
    sessionUid: session.sessionUid,
    serviceUid: session.serviceUid,
    createdAtMs: nowMs,
    script: session.script,
    workMs,
    answerParts: turn.answerParts,
    history: [turn.message],
    statusMessageId: state.nextAgentMessageId(),
    artifactId: state.nextArtifactId(),
    turns: 0,
    workStartsAtMs: nowMs + session.script.queuedMs,
    canceledAtMs: null
  }
  state.tasks.set(task.id, task)
  return task
}

/**
 * The session's Task with that id (a Task of another session is not found).
 *
 * @internal
 */
export const findTask = (state: PlatformState, sessionUid: string, taskId: string): TaskResult => {
  const task = state.tasks.get(taskId)
  return task !== undefined && task.sessionUid === sessionUid ? ok(task) : refused({ _tag: "TaskNotFound", taskId })
}

/**
 * Takes a follow-up turn (`message.taskId`): a terminal Task refuses it (as the official server does), an
 * interrupted one records its question and the answer and starts a new round of work, another records the turn.
 *
 * @internal
 */
export const followUp = (
  state: PlatformState,
  sessionUid: string,
  taskId: string,
  turn: Turn,
  nowMs: number
): TaskResult => {
  const found = findTask(state, sessionUid, taskId)
  if (found._tag === "Refused") return found
  const task = found.task
  const current = taskStateAt(task, nowMs).state
  if (isTerminalTaskState(current)) return refused({ _tag: "TaskTerminal", taskId, state: current })
  if (isInterruptedTaskState(current)) {
    const question = statusText(task, current)
    if (question !== undefined) task.history.push(statusMessageOf(task, question))
    task.history.push(turn.message)
    task.answerParts = turn.answerParts
    task.turns++
    task.workStartsAtMs = nowMs
    task.statusMessageId = state.nextAgentMessageId()
  } else {
    task.history.push(turn.message)
  }
  return ok(task)
}

/**
 * Cancels a Task that is neither terminal nor scripted as not cancelable.
 *
 * @internal
 */
export const cancelTask = (state: PlatformState, sessionUid: string, taskId: string, nowMs: number): TaskResult => {
  const found = findTask(state, sessionUid, taskId)
  if (found._tag === "Refused") return found
  const task = found.task
  const current = taskStateAt(task, nowMs).state
  if (!task.script.cancelable || isTerminalTaskState(current)) {
    return refused({ _tag: "TaskNotCancelable", taskId, state: current, cancelable: task.script.cancelable })
  }
  task.canceledAtMs = nowMs
  return ok(task)
}
