/**
 * The runtime's checks of an A2A v1 `message:send` request body (SPEC §2, §4).
 * A faithful runtime refuses what a real one would, so a client bug shows up
 * as a 400 `INVALID_ARGUMENT` naming the field.
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"
import { type FieldViolation, OUTPUT_CONTRACT_EXTENSION } from "./wire.js"

/** @internal */
export const MESSAGE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/

/** @internal */
export const MAX_ATTACHMENT_BYTES = 15 * 1024 * 1024

const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/

/** @internal */
export interface Attachment {
  readonly filename: string | undefined
  readonly mediaType: string | undefined
  readonly bytes: number
}

/** A request body that passed every check. */
export interface ValidSendRequest {
  readonly message: Readonly<Record<string, unknown>>
  readonly messageId: string
  readonly text: string
  readonly attachments: ReadonlyArray<Attachment>
  readonly responseKind: "message" | "task"
  readonly strictDictionary: boolean
  /** `message.taskId`: the request is a follow-up turn for that Task */
  readonly taskId: string | undefined
}

/** @internal */
export type Validation =
  | { readonly _tag: "Valid"; readonly request: ValidSendRequest }
  | { readonly _tag: "Invalid"; readonly violation: FieldViolation }

const invalid = (field: string, description: string): Validation => ({
  _tag: "Invalid",
  violation: { field, description }
})

const FORBIDDEN_CONFIGURATION_FIELDS = ["returnImmediately", "blocking", "kind"] as const

const base64Length = (value: string): number => {
  const padding = value.endsWith("==") ? 2 : value.endsWith("=") ? 1 : 0
  return (value.length / 4) * 3 - padding
}

const validatePart = (part: unknown, field: string): FieldViolation | Attachment | "text" | "other" => {
  if (!Predicate.isRecord(part)) return { field, description: "a part must be a JSON object" }
  if ("kind" in part) return { field: `${field}.kind`, description: "unknown field (A2A v1 parts have no kind)" }
  const contents = ["text", "raw", "url", "data"].filter((key) => key in part)
  if (contents.length !== 1) {
    return { field, description: "a part must have exactly one of text, raw, url, data" }
  }
  if ("text" in part) {
    return typeof part.text === "string" ? "text" : { field: `${field}.text`, description: "must be a string" }
  }
  if ("raw" in part) {
    const raw = part.raw
    if (typeof raw !== "string" || raw.length % 4 !== 0 || !BASE64_PATTERN.test(raw)) {
      return { field: `${field}.raw`, description: "must be standard base64" }
    }
    const filename = part.filename
    const mediaType = part.mediaType
    if (filename !== undefined && typeof filename !== "string") {
      return { field: `${field}.filename`, description: "must be a string" }
    }
    if (mediaType !== undefined && typeof mediaType !== "string") {
      return { field: `${field}.mediaType`, description: "must be a string" }
    }
    const bytes = base64Length(raw)
    if (bytes > MAX_ATTACHMENT_BYTES) {
      return { field: `${field}.raw`, description: `file is ${bytes} bytes; the limit is ${MAX_ATTACHMENT_BYTES}` }
    }
    return { filename, mediaType, bytes }
  }
  if ("url" in part && typeof part.url !== "string") {
    return { field: `${field}.url`, description: "must be a string" }
  }
  return "other"
}

const validateOutputContract = (metadata: unknown): FieldViolation | boolean => {
  if (metadata === undefined) return false
  if (!Predicate.isRecord(metadata)) return { field: "metadata", description: "must be a JSON object" }
  if (!(OUTPUT_CONTRACT_EXTENSION in metadata)) return false
  const field = `metadata["${OUTPUT_CONTRACT_EXTENSION}"]`
  const contract = metadata[OUTPUT_CONTRACT_EXTENSION]
  if (!Predicate.isRecord(contract)) return { field, description: "must be a JSON object" }
  const format = contract.response_format
  if (!Predicate.isRecord(format) || format.type !== "dictionary" || format.strict !== true) {
    return { field: `${field}.response_format`, description: "must be {\"type\": \"dictionary\", \"strict\": true}" }
  }
  const attempts = contract.jsonRepairAttempts
  if (attempts !== undefined && !(typeof attempts === "number" && Number.isInteger(attempts) && attempts >= 1)) {
    return { field: `${field}.jsonRepairAttempts`, description: "must be an integer >= 1" }
  }
  return true
}

/**
 * Checks a parsed `message:send` body for the session `sessionUid`.
 *
 * @internal
 */
export const validateSendRequest = (body: unknown, sessionUid: string): Validation => {
  if (!Predicate.isRecord(body)) return invalid("(body)", "must be a JSON object")
  if ("kind" in body) return invalid("kind", "unknown field")
  const message = body.message
  if (!Predicate.isRecord(message)) return invalid("message", "is required and must be a JSON object")
  if ("kind" in message) return invalid("message.kind", "unknown field (A2A v1 messages have no kind)")

  const role = message.role
  if (role === "ROLE_REQUESTER" || role === "ROLE_RESPONDER") {
    return invalid(
      "message.role",
      `${role} is an internal Main Sequence direction, not an A2A v1 role; send ROLE_USER`
    )
  }
  if (role !== "ROLE_USER") return invalid("message.role", "must be ROLE_USER")

  const messageId = message.messageId
  if (typeof messageId !== "string" || messageId.trim() === "") {
    return invalid("message.messageId", "is required")
  }
  if (!MESSAGE_ID_PATTERN.test(messageId)) {
    return invalid("message.messageId", "must match ^[A-Za-z0-9._:-]{1,128}$")
  }

  const contextId = message.contextId
  if (typeof contextId !== "string" || contextId === "") {
    return invalid("message.contextId", "is required (the agent session uid)")
  }
  if (contextId !== sessionUid) {
    return invalid("message.contextId", "must be the uid of the agent session this runtime token was issued for")
  }

  const taskId = message.taskId
  if (taskId !== undefined && (typeof taskId !== "string" || taskId.trim() === "")) {
    return invalid("message.taskId", "must be a non-blank string (the id of the Task this turn answers)")
  }
  const referenceTaskIds = message.referenceTaskIds
  if (
    referenceTaskIds !== undefined && !(Array.isArray(referenceTaskIds) && referenceTaskIds.every(Predicate.isString))
  ) {
    return invalid("message.referenceTaskIds", "must be an array of strings")
  }

  const parts = message.parts
  if (!Array.isArray(parts) || parts.length === 0) {
    return invalid("message.parts", "must be a non-empty array")
  }
  const attachments: Array<Attachment> = []
  let text: string | undefined
  for (let index = 0; index < parts.length; index++) {
    const part: unknown = parts[index]
    const result = validatePart(part, `message.parts[${index}]`)
    if (result === "text") {
      if (text === undefined && Predicate.isRecord(part) && typeof part.text === "string") text = part.text
    } else if (result !== "other") {
      if ("field" in result) return { _tag: "Invalid", violation: result }
      attachments.push(result)
    }
  }
  if (text === undefined || text.trim() === "") {
    return invalid("message.parts", "must contain a non-blank text part")
  }

  let responseKind: "message" | "task" = "message"
  const configuration = body.configuration
  if (configuration !== undefined) {
    if (!Predicate.isRecord(configuration)) return invalid("configuration", "must be a JSON object")
    for (const key of FORBIDDEN_CONFIGURATION_FIELDS) {
      if (key in configuration) {
        return invalid(`configuration.${key}`, "is not part of the Main Sequence send contract; use responseKind")
      }
    }
    const modes = configuration.acceptedOutputModes
    if (modes !== undefined && !(Array.isArray(modes) && modes.every(Predicate.isString))) {
      return invalid("configuration.acceptedOutputModes", "must be an array of strings")
    }
    const kind = configuration.responseKind
    if (kind === "task" || kind === "message") {
      responseKind = kind
    } else if (kind !== undefined) {
      return invalid("configuration.responseKind", "must be \"message\" or \"task\"")
    }
  }

  const contract = validateOutputContract(body.metadata)
  if (typeof contract !== "boolean") return { _tag: "Invalid", violation: contract }
  if (taskId !== undefined && responseKind !== "task") {
    return invalid("configuration.responseKind", "must be \"task\" for a follow-up turn (message.taskId)")
  }

  return {
    _tag: "Valid",
    request: { message, messageId, text, attachments, responseKind, strictDictionary: contract, taskId }
  }
}
