/**
 * The small deterministic Agent: what it answers, valid or deliberately
 * broken, and how its Tasks progress over simulated time.
 *
 * @internal
 */
import type * as SessionScenario from "../SessionScenario.js"
import type { ValidSendRequest } from "./validate.js"
import { RESPONSE_KIND_EXTENSION } from "./wire.js"

/** @internal */
export type JsonObject = Record<string, unknown>

/** @internal */
export const replyText = (agent: SessionScenario.Agent, request: ValidSendRequest): string => {
  switch (agent.reply._tag) {
    case "Text":
      return agent.reply.text
    case "Echo": {
      const files = request.attachments.map((file) =>
        `${file.filename ?? "(unnamed)"} (${file.mediaType ?? "unknown type"}, ${file.bytes} bytes)`
      )
      const note = files.length === 0 ? "" : ` [attachments: ${files.join(", ")}]`
      return `${agent.reply.prefix}${request.text}${note}`
    }
  }
}

/**
 * The parts of a valid answer: plain text, or the strict dictionary (SPEC §2)
 * as a `data` part and/or a JSON text part.
 *
 * @internal
 */
export const answerParts = (agent: SessionScenario.Agent, request: ValidSendRequest): ReadonlyArray<JsonObject> => {
  const text = replyText(agent, request)
  if (!request.strictDictionary) return [{ text }]
  const value = agent.dictionary.value ?? { ok: true, answer: text }
  const dataPart = { data: value, mediaType: "application/json" }
  const textPart = { text: JSON.stringify(value), mediaType: "application/json" }
  switch (agent.dictionary.parts) {
    case "data":
      return [dataPart]
    case "text":
      return [textPart]
    case "both":
      return [dataPart, textPart]
  }
}

/**
 * Unknown fields in every place a client must preserve them (SPEC §4).
 *
 * @internal
 */
export const withExtraFields = (message: JsonObject): JsonObject => {
  const parts = Array.isArray(message.parts) ? message.parts : []
  return {
    ...message,
    parts: [
      ...parts.map((part: unknown, index: number) =>
        typeof part === "object" && part !== null
          ? { ...part, metadata: { "sim.partIndex": index }, "x-sim-part-extra": { kept: true } }
          : part
      ),
      { data: { table: [["a", 1], ["b", 2]] }, mediaType: "application/json" },
      { url: "https://files.sim.mainsequence.test/report.pdf", filename: "report.pdf", mediaType: "application/pdf" },
      { raw: "JVBERi0xLjQK", filename: "tiny.pdf", mediaType: "application/pdf" }
    ],
    metadata: {
      "https://mainsequence.ai/a2a/extensions/sim-trace/v1": { traceId: "sim-trace-0001" },
      "x-sim-metadata": { nested: [1, { deep: true }] }
    },
    extensions: [RESPONSE_KIND_EXTENSION, "https://example.test/a2a/extensions/unknown/v1"],
    "x-sim-message-extra": { kept: true, number: 42 }
  }
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const nullMessageFields = (message: JsonObject, messageId: boolean): JsonObject => ({
  taskId: null,
  metadata: null,
  extensions: null,
  referenceTaskIds: null,
  ...message,
  ...(messageId ? { messageId: null } : {}),
  parts: Array.isArray(message.parts)
    ? message.parts.map((part: unknown) => isObject(part) ? { metadata: null, ...part } : part)
    : message.parts
})

/**
 * A Message, or a Task, with the optional fields it leaves out set to `null`
 * (proto3 JSON for "not set", SPEC §4). In a Task the status message also has
 * `messageId: null`, a detail SPEC §7 does not name.
 *
 * @internal
 */
export const withNullFields = (answer: JsonObject, isTask: boolean): JsonObject => {
  if (!isTask) return nullMessageFields(answer, false)
  const status = isObject(answer.status) ? answer.status : {}
  return {
    artifacts: null,
    metadata: null,
    ...answer,
    status: {
      message: null,
      ...status,
      ...(isObject(status.message) ? { message: nullMessageFields(status.message, true) } : {})
    }
  }
}

/** @internal */
export const agentMessage = (options: {
  readonly messageId: string
  readonly contextId: string
  readonly parts: ReadonlyArray<unknown>
}): JsonObject => ({
  messageId: options.messageId,
  role: "ROLE_AGENT",
  contextId: options.contextId,
  parts: options.parts
})

/**
 * Breaks a valid `message` object as the violation says (message-shaped
 * violations only).
 *
 * @internal
 */
export const breakMessage = (message: JsonObject, violation: SessionScenario.InvalidAnswer): JsonObject => {
  switch (violation) {
    case "role_user":
      return { ...message, role: "ROLE_USER" }
    case "role_requester":
      return { ...message, role: "ROLE_REQUESTER" }
    case "role_responder":
      return { ...message, role: "ROLE_RESPONDER" }
    case "missing_role": {
      const { role: _role, ...rest } = message
      return rest
    }
    case "blank_message_id":
      return { ...message, messageId: "  " }
    case "empty_parts":
      return { ...message, parts: [] }
    case "missing_parts": {
      const { parts: _parts, ...rest } = message
      return rest
    }
    case "other_context_id":
      return { ...message, contextId: "00000000-0000-4000-8000-0000000000ff" }
    default:
      return message
  }
}

/**
 * Breaks a Task as the violation says (Task-shaped violations only).
 *
 * @internal
 */
export const breakTask = (
  task: JsonObject,
  violation: SessionScenario.InvalidAnswer,
  statusMessage: JsonObject
): JsonObject => {
  const status = typeof task.status === "object" && task.status !== null ? task.status : {}
  switch (violation) {
    case "other_context_id":
      return { ...task, contextId: "00000000-0000-4000-8000-0000000000ff" }
    case "unknown_task_state":
      return { ...task, status: { ...status, state: "TASK_STATE_DAYDREAMING" } }
    case "blank_task_id":
      return { ...task, id: "" }
    case "role_user":
    case "role_requester":
    case "role_responder":
    case "missing_role":
    case "blank_message_id":
    case "empty_parts":
    case "missing_parts":
      return { ...task, status: { ...status, message: breakMessage(statusMessage, violation) } }
    default:
      return task
  }
}
