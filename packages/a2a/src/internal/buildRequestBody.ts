/**
 * Step 1 (SPEC §2, §9): validate the input and serialise the exact request body, once, to bytes.
 * No I/O: bad input fails here and nothing is sent.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { A2AInputError } from "../A2AError.js"
import * as A2AProtocol from "../A2AProtocol.js"
import * as Attachment from "../Attachment.js"
import { encodeBase64 } from "./base64.js"
import { describeValue, notAStringReason, optionsObjectReason } from "./describeValue.js"
import { fieldsOf, type SendA2AMessageInput, type TaskCallOptions } from "./options.js"

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
    : Effect.fail(inputError("agentSessionUid", `must be a UUID (got ${describeValue(agentSessionUid)})`))
}

const validateFields = <A>(
  field: string,
  value: A,
  fields: ReadonlyArray<string>,
  example: string
): Effect.Effect<A, A2AInputError> => {
  const problem = optionsObjectReason(value, fields, example)
  return problem === undefined ? Effect.succeed(value) : Effect.fail(inputError(field, problem))
}

/**
 * The input of a send must be an object (`{ message: "…" }`) of known fields.
 *
 * @internal
 */
export const validateInput = (input: SendA2AMessageInput): Effect.Effect<SendA2AMessageInput, A2AInputError> =>
  validateFields("input", input, fieldsOf.sendInput, `{ message: "…" }`)

/**
 * A Task call's options, when given, must be an object (`{ timeout: 30 }`) of known fields.
 *
 * @internal
 */
export const validateTaskCallOptions = (
  options: TaskCallOptions | undefined
): Effect.Effect<TaskCallOptions | undefined, A2AInputError> =>
  options === undefined
    ? Effect.succeed(undefined)
    : validateFields("options", options, fieldsOf.taskCallOptions, "{ timeout: 30 }")

/** A Task id, trimmed, or why it is none: missing, not a string, or blank. */
const checkTaskIdText = (taskId: string | undefined): Checked<string> => {
  if (taskId !== undefined && typeof taskId !== "string") {
    return Either.left(inputError("taskId", notAStringReason(taskId)))
  }
  const id = taskId === undefined ? "" : taskId.trim()
  return id === "" ? Either.left(inputError("taskId", "must not be blank")) : Either.right(id)
}

/** @internal */
export const validateTaskId = (taskId: string): Effect.Effect<string, A2AInputError> =>
  Either.flatMap(checkTaskIdText(taskId), (id) =>
    // A URL keeps "." and ".." (encoded or not) as dot segments: /tasks/.. would be another path.
    id === "." || id === ".."
      ? Either.left(inputError("taskId", `must not be "${id}" (it goes into the URL path)`))
      : Either.right(id))

const hex = (n: number) => n.toString(16).padStart(2, "0")

/** A UUID v4 from three draws (each a double in [0, 1), 48 random bits apiece; 16 bytes in all). */
const uuidOf = (draws: ReadonlyArray<number>): string => {
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

/**
 * A random UUID v4 from Effect's `Random` service, so a test can seed it.
 *
 * @internal
 */
export const randomUuidV4: Effect.Effect<string> = Effect.randomWith((random) =>
  Effect.flatMap(
    random.next,
    (a) => Effect.flatMap(random.next, (b) => Effect.map(random.next, (c) => uuidOf([a, b, c])))
  )
)

type Checked<A> = Either.Either<A, A2AInputError>

const checkMessageId = (messageId: string): Checked<string> => {
  // Stryker disable next-line StringLiteral: equivalent: any fallback with a space or a '!' fails the same pattern
  const id = typeof messageId === "string" ? messageId.trim() : ""
  return messageIdPattern.test(id)
    ? Either.right(id)
    : Either.left(
      inputError("messageId", `must match ^[A-Za-z0-9._:-]{1,128}$ after trimming (got ${describeValue(messageId)})`)
    )
}

const checkResponseKind = (kind: string | undefined): Checked<A2AProtocol.ResponseKind> =>
  kind === undefined || kind === "message"
    ? Either.right("message")
    : kind === "task"
    ? Either.right("task")
    : Either.left(inputError("responseKind", `must be "message" or "task" (got ${describeValue(kind)})`))

/**
 * A follow-up turn is a Task-mode send (SPEC §7, §9): a `taskId` needs an explicit `responseKind: "task"`.
 */
const checkTaskId = (
  taskId: string | undefined,
  responseKind: A2AProtocol.ResponseKind
): Checked<string | undefined> => {
  if (taskId === undefined) return Either.right(undefined)
  return Either.flatMap(checkTaskIdText(taskId), (id) =>
    responseKind === "task"
      ? Either.right(id)
      : Either.left(
        inputError("taskId", "a follow-up turn for a Task is a Task-mode send: give responseKind: \"task\" with it")
      ))
}

const checkReferenceTaskIds = (
  ids: ReadonlyArray<string> | undefined
): Checked<ReadonlyArray<string> | undefined> => {
  if (ids === undefined) return Either.right(undefined)
  if (!Array.isArray(ids)) return Either.left(inputError("referenceTaskIds", "must be a list of Task ids"))
  const wrong = ids.findIndex((id) => typeof id !== "string" || id.trim() === "")
  const id: unknown = ids[wrong]
  return wrong === -1
    ? Either.right(ids)
    : typeof id === "string"
    ? Either.left(inputError("referenceTaskIds", `must not hold a blank Task id (at index ${wrong})`))
    : Either.left(inputError("referenceTaskIds", `at index ${wrong}: ${notAStringReason(id)}`))
}

const checkRepairAttempts = (attempts: number | undefined): Checked<number> =>
  attempts === undefined
    ? Either.right(3)
    : Number.isInteger(attempts) && attempts >= 1
    ? Either.right(attempts)
    : Either.left(inputError("jsonRepairAttempts", `must be an integer ≥ 1 (got ${describeValue(attempts)})`))

const checkStrictDictionary = (strict: boolean | undefined): Checked<boolean> =>
  strict === undefined || typeof strict === "boolean"
    ? Either.right(strict === true)
    : Either.left(inputError("strictDictionary", `must be true or false (got ${describeValue(strict)})`))

const checkAttachmentList = (
  attachments: ReadonlyArray<Attachment.Attachment> | undefined
): Checked<ReadonlyArray<Attachment.Attachment>> =>
  attachments === undefined
    ? Either.right([])
    : Array.isArray(attachments)
    ? Either.right(attachments)
    : Either.left(inputError("attachments", `must be a list of attachments (got ${describeValue(attachments)})`))

/** The input's fields that need no effect to check, in the order their errors are reported. */
const checkFields = (input: SendA2AMessageInput) => {
  if (input.message !== undefined && typeof input.message !== "string") {
    return Either.left(inputError("message", notAStringReason(input.message)))
  }
  if (input.message === undefined || input.message.trim() === "") {
    return Either.left(inputError("message", "must not be blank"))
  }
  return Either.flatMap(checkResponseKind(input.responseKind), (responseKind) =>
    Either.all({
      responseKind: Either.right(responseKind),
      taskId: checkTaskId(input.taskId, responseKind),
      referenceTaskIds: checkReferenceTaskIds(input.referenceTaskIds),
      strictDictionary: checkStrictDictionary(input.strictDictionary),
      jsonRepairAttempts: checkRepairAttempts(input.jsonRepairAttempts),
      attachments: checkAttachmentList(input.attachments)
    }))
}

// An untyped caller's attachment must at least have the shape of one; `Attachment.fromBytes` checks the rest.
const checkAttachment = (attachment: Attachment.Attachment, index: number): Checked<Attachment.Attachment> =>
  typeof attachment?.filename !== "string"
    ? Either.left(inputError("attachments", `must hold { filename, mediaType, bytes } (at index ${index})`))
    : Either.right(attachment)

const attachmentPart = (given: Attachment.Attachment, index: number) =>
  Effect.gen(function*() {
    const checked = yield* checkAttachment(given, index)
    const attachment = yield* Attachment.fromBytes(checked.filename, checked.bytes, checked.mediaType)
    return { raw: encodeBase64(attachment.bytes), filename: attachment.filename, mediaType: attachment.mediaType }
  })

type FilePart = Effect.Effect.Success<ReturnType<typeof attachmentPart>>

const noParts: ReadonlyArray<FilePart> = []

/**
 * Validates the input and builds the body of SPEC §2 as bytes. `agentSessionUid` must already be validated.
 * The fields are checked in order (the first bad one is the error): the message, `responseKind`, `taskId`,
 * `referenceTaskIds`, `strictDictionary`, `jsonRepairAttempts`, the attachments, `messageId`.
 *
 * @internal
 */
export const buildRequestBody = (
  agentSessionUid: string,
  input: SendA2AMessageInput
): Effect.Effect<RequestBody, A2AInputError> =>
  Effect.suspend((): Effect.Effect<RequestBody, A2AInputError> => {
    const fields = checkFields(input)
    if (Either.isLeft(fields)) return Effect.fail(fields.left)
    const { attachments: given, jsonRepairAttempts, referenceTaskIds, responseKind, strictDictionary, taskId } =
      fields.right
    const attachments: Effect.Effect<ReadonlyArray<FilePart>, A2AInputError> =
      // Stryker disable next-line ConditionalExpression: equivalent: forEach over no attachments gives no parts
      given.length === 0 ? Effect.succeed(noParts) : Effect.forEach(given, attachmentPart)
    return Effect.flatMap(attachments, (parts) => {
      const messageId = input.messageId === undefined
        ? Effect.map(randomUuidV4, (uuid) => `msg-${uuid}`)
        : checkMessageId(input.messageId)
      return Effect.flatMap(messageId, (messageId) => {
        const body = {
          message: {
            messageId,
            role: "ROLE_USER",
            contextId: agentSessionUid,
            // Stryker disable next-line ConditionalExpression: equivalent: JSON.stringify leaves out undefined
            ...(taskId === undefined ? {} : { taskId }),
            // Stryker disable next-line ConditionalExpression: equivalent: JSON.stringify leaves out undefined
            ...(referenceTaskIds === undefined ? {} : { referenceTaskIds }),
            parts: [{ text: input.message }, ...parts]
          },
          configuration: {
            acceptedOutputModes: [strictDictionary ? "application/json" : "text/plain"],
            responseKind
          },
          ...(strictDictionary
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
        const built: RequestBody = { messageId, responseKind, taskId, bytes: utf8.encode(JSON.stringify(body)) }
        return Effect.succeed(built)
      })
    })
  })
