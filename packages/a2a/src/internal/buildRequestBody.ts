/**
 * Step 1 (SPEC §2, §9): validate the input and serialise the exact request body, once, to bytes.
 * No I/O: bad input fails here and nothing is sent.
 */
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import type { SendA2AMessageInput } from "../A2AClient.js"
import { A2AInputError } from "../A2AError.js"
import * as A2AProtocol from "../A2AProtocol.js"
import * as Attachment from "../Attachment.js"
import { encodeBase64 } from "./base64.js"
import { annotateTraced, traced } from "./spanned.js"

const utf8 = new TextEncoder()

/** @internal */
export interface RequestBody {
  readonly messageId: string
  readonly responseKind: A2AProtocol.ResponseKind
  /** A follow-up turn: the Task the answer must be (SPEC §7). */
  readonly taskId: string | undefined
  readonly bytes: Uint8Array
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const messageIdPattern = /^[A-Za-z0-9._:-]{1,128}$/

const inputError = (field: string, reason: string) => new A2AInputError({ field, reason })

/**
 * The session uid goes into URL paths and `contextId`, so it must be a UUID.
 *
 * @internal
 */
export const validateSessionUid = (agentSessionUid: string): Effect.Effect<string, A2AInputError> => {
  // Stryker disable next-line StringLiteral: equivalent: any fallback that is not a UUID fails the same test
  const uid = typeof agentSessionUid === "string" ? agentSessionUid.trim() : ""
  return uuidPattern.test(uid)
    ? Effect.succeed(uid)
    : Effect.fail(inputError("agentSessionUid", `must be a UUID (got ${JSON.stringify(agentSessionUid)})`))
}

/** @internal */
export const validateTaskId = (taskId: string): Effect.Effect<string, A2AInputError> => {
  const id = typeof taskId === "string" ? taskId.trim() : ""
  return id === "" ? Effect.fail(inputError("taskId", "must not be blank")) : Effect.succeed(id)
}

const hex = (n: number) => n.toString(16).padStart(2, "0")

/**
 * A random UUID v4 from Effect's `Random` service, so a test can seed it.
 *
 * @internal
 */
export const randomUuidV4: Effect.Effect<string> = Effect.map(
  Effect.all([Random.next, Random.next, Random.next]),
  (draws) => {
    // 48 random bits from each draw (a double in [0, 1)), 16 bytes in all.
    const bytes: Array<number> = []
    for (const draw of draws) {
      let bits = Math.floor(draw * 2 ** 48)
      for (let i = 0; i < 6 && bytes.length < 16; i++) {
        const byte = bits % 256
        bits = Math.floor(bits / 256)
        // Version 4 in byte 6, RFC 4122 variant in byte 8.
        const index = bytes.length
        bytes.push(index === 6 ? (byte & 0x0f) | 0x40 : index === 8 ? (byte & 0x3f) | 0x80 : byte)
      }
    }
    const h = bytes.map(hex).join("")
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
)

const resolveMessageId = (messageId: string | undefined): Effect.Effect<string, A2AInputError> => {
  if (messageId === undefined) return Effect.map(randomUuidV4, (uuid) => `msg-${uuid}`)
  // Stryker disable next-line StringLiteral: equivalent: any fallback with a space or a '!' fails the same pattern
  const id = typeof messageId === "string" ? messageId.trim() : ""
  return messageIdPattern.test(id)
    ? Effect.succeed(id)
    : Effect.fail(
      inputError("messageId", `must match ^[A-Za-z0-9._:-]{1,128}$ after trimming (got ${JSON.stringify(messageId)})`)
    )
}

const resolveResponseKind = (
  kind: string | undefined
): Effect.Effect<A2AProtocol.ResponseKind, A2AInputError> =>
  kind === undefined || kind === "message"
    ? Effect.succeed("message")
    : kind === "task"
    ? Effect.succeed("task")
    : Effect.fail(inputError("responseKind", `must be "message" or "task" (got ${JSON.stringify(kind)})`))

/**
 * A follow-up turn is a Task-mode send (SPEC §7, §9): a `taskId` needs an explicit `responseKind: "task"`.
 */
const resolveTaskId = (
  taskId: string | undefined,
  responseKind: A2AProtocol.ResponseKind
): Effect.Effect<string | undefined, A2AInputError> => {
  if (taskId === undefined) return Effect.succeed(undefined)
  const id = typeof taskId === "string" ? taskId.trim() : ""
  if (id === "") return Effect.fail(inputError("taskId", `must not be blank (got ${JSON.stringify(taskId)})`))
  return responseKind === "task"
    ? Effect.succeed(id)
    : Effect.fail(
      inputError("taskId", "a follow-up turn for a Task is a Task-mode send: give responseKind: \"task\" with it")
    )
}

const resolveReferenceTaskIds = (
  ids: ReadonlyArray<string> | undefined
): Effect.Effect<ReadonlyArray<string> | undefined, A2AInputError> => {
  if (ids === undefined) return Effect.succeed(undefined)
  if (!Array.isArray(ids)) return Effect.fail(inputError("referenceTaskIds", "must be a list of Task ids"))
  const blank = ids.findIndex((id) => typeof id !== "string" || id.trim() === "")
  return blank === -1
    ? Effect.succeed(ids)
    : Effect.fail(inputError("referenceTaskIds", `must not hold a blank Task id (at index ${blank})`))
}

const resolveRepairAttempts = (attempts: number | undefined): Effect.Effect<number, A2AInputError> =>
  attempts === undefined
    ? Effect.succeed(3)
    : Number.isInteger(attempts) && attempts >= 1
    ? Effect.succeed(attempts)
    : Effect.fail(inputError("jsonRepairAttempts", `must be an integer ≥ 1 (got ${String(attempts)})`))

const attachmentPart = (attachment: Attachment.Attachment) =>
  Effect.gen(function*() {
    yield* Attachment.checkSize(attachment.filename, attachment.bytes.byteLength)
    const mediaType = yield* Attachment.resolveMediaType(attachment.filename, attachment.mediaType)
    return { raw: encodeBase64(attachment.bytes), filename: attachment.filename, mediaType }
  })

/**
 * Validates the input and builds the body of SPEC §2 as bytes. `agentSessionUid` must already be validated.
 *
 * @internal
 */
export const buildRequestBody = (agentSessionUid: string, input: SendA2AMessageInput) =>
  Effect.gen(function*() {
    if (typeof input.message !== "string" || input.message.trim() === "") {
      return yield* Effect.fail(inputError("message", "must not be blank"))
    }
    const responseKind = yield* resolveResponseKind(input.responseKind)
    const taskId = yield* resolveTaskId(input.taskId, responseKind)
    const referenceTaskIds = yield* resolveReferenceTaskIds(input.referenceTaskIds)
    const jsonRepairAttempts = yield* resolveRepairAttempts(input.jsonRepairAttempts)
    const attachments = yield* Effect.forEach(input.attachments ?? [], attachmentPart)
    const messageId = yield* resolveMessageId(input.messageId)
    yield* annotateTraced(() => ({ "a2a.session_uid": agentSessionUid, "a2a.message_id": messageId }))
    const strict = input.strictDictionary === true
    const body = {
      message: {
        messageId,
        role: "ROLE_USER",
        contextId: agentSessionUid,
        // Stryker disable next-line ConditionalExpression: equivalent: JSON.stringify leaves out a field whose value is undefined
        ...(taskId === undefined ? {} : { taskId }),
        // Stryker disable next-line ConditionalExpression: equivalent: JSON.stringify leaves out a field whose value is undefined
        ...(referenceTaskIds === undefined ? {} : { referenceTaskIds }),
        parts: [{ text: input.message }, ...attachments]
      },
      configuration: {
        acceptedOutputModes: [strict ? "application/json" : "text/plain"],
        responseKind
      },
      ...(strict
        ? {
          metadata: {
            [A2AProtocol.outputContractExtensionUri]: {
              response_format: { type: "dictionary", strict: true },
              jsonRepairAttempts
            }
          }
        }
        : {})
    }
    const result: RequestBody = {
      messageId,
      responseKind,
      taskId,
      bytes: utf8.encode(JSON.stringify(body))
    }
    return result
  }).pipe((build) => traced(build, "a2a.buildRequestBody"))
