/**
 * Validation of runtime answers (SPEC §4, §7): every rule has its own `rule` name and message. A valid
 * answer is returned whole, unknown fields included.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { InvalidA2AResponseError } from "../A2AError.js"
import * as A2AProtocol from "../A2AProtocol.js"
import { maxJsonDepth, parseBoundedJson } from "./boundedJson.js"
import type { Call } from "./callContext.js"
import { describeBody, type HttpAnswer, maxDetailLength, mediaTypeOf, platformText, textOf } from "./exchange.js"

type Result<A> = Either.Either<A, InvalidA2AResponseError>

const invalid = (call: Call, answer: HttpAnswer, rule: string, reason: string): Result<never> =>
  Either.left(
    new InvalidA2AResponseError({
      agentSessionUid: call.agentSessionUid,
      messageId: call.messageId,
      url: answer.url,
      status: answer.status,
      rule,
      reason
    })
  )

/** The error with its reason (which may quote the answer) and url (the platform's rpc_url) `scrub`bed. */
const scrubbed = <A>(scrub: Scrub, result: Result<A>): Result<A> =>
  Either.mapLeft(result, (error) =>
    new InvalidA2AResponseError({
      agentSessionUid: error.agentSessionUid,
      messageId: error.messageId,
      url: scrub(error.url),
      status: error.status,
      rule: error.rule,
      reason: platformText(error.reason, scrub, maxDetailLength) ?? error.rule
    }))

/**
 * A value of the answer as a reason quotes it: a string in quotes (its controls and secrets go when the reason
 * is scrubbed, its length when it is cut), anything else by its kind.
 */
const quoted = (value: unknown): string =>
  Predicate.isString(value)
    ? `"${value}"`
    : Predicate.isNumber(value) || Predicate.isBoolean(value) || value === null
    ? String(value)
    : value === undefined
    ? "none"
    : Array.isArray(value)
    ? "an array"
    : "an object"

const isNonBlankString = (u: unknown): u is string => Predicate.isString(u) && u.trim() !== ""

/**
 * Where a schema failed, as ` at a.b.0` (keys only, never values: they may be secrets).
 *
 * @internal
 */
export const schemaPath = (error: ParseResult.ParseError): string => {
  const path = ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.path ?? []
  return path.length === 0 ? "" : ` at ${path.map(String).join(".")}`
}

type Scrub = (text: string) => string

const jsonObject = (call: Call, answer: HttpAnswer, scrub: Scrub): Result<Record<string, unknown>> =>
  Either.flatMap(
    Either.mapLeft(parseBoundedJson(textOf(answer)), (refusal) => {
      if (refusal === "too-deep") return `the answer nests arrays and objects deeper than ${maxJsonDepth} levels`
      const what = describeBody(answer, scrub)
      const mediaType = mediaTypeOf(answer)
      return `the answer is not JSON (${mediaType === undefined ? "no media type" : mediaType}${
        what === undefined ? ", empty body" : `: ${what}`
      })`
    }).pipe(Either.orElse((reason) => invalid(call, answer, "json", reason))),
    (json) =>
      Predicate.isRecord(json) && !Array.isArray(json)
        ? Either.right(json)
        : invalid(call, answer, "envelope", "the answer is not a JSON object")
  )

const contextIdRule = (call: Call, answer: HttpAnswer, what: string, contextId: unknown): Result<void> =>
  contextId === call.agentSessionUid
    ? Either.void
    : contextId === undefined || contextId === null
    ? invalid(
      call,
      answer,
      "context-id",
      `the ${what} has no contextId; it must be the session uid ${call.agentSessionUid}`
    )
    : invalid(
      call,
      answer,
      "context-id",
      `the ${what} belongs to another session: contextId ${
        quoted(contextId)
      } is not the session uid ${call.agentSessionUid}`
    )

const validateMessage = (call: Call, answer: HttpAnswer, message: unknown): Result<A2AProtocol.Message> => {
  if (!Predicate.isRecord(message)) return invalid(call, answer, "envelope", "\"message\" is not an object")
  const role = message["role"]
  if (role === "ROLE_REQUESTER" || role === "ROLE_RESPONDER") {
    return invalid(
      call,
      answer,
      "role",
      `the message has the internal platform direction ${role}, which is not a public A2A role; an Agent's answer must have role ROLE_AGENT`
    )
  }
  if (role !== "ROLE_AGENT") {
    return invalid(call, answer, "role", `the message role must be ROLE_AGENT (got ${quoted(role)})`)
  }
  if (!isNonBlankString(message["messageId"])) {
    return invalid(call, answer, "message-id", "the message's messageId must be a non-blank string")
  }
  const parts = message["parts"]
  if (!Array.isArray(parts)) {
    return invalid(call, answer, "parts", "the message has no parts array; it must have a non-empty one")
  }
  if (parts.length === 0) return invalid(call, answer, "parts", "the message's parts array is empty")
  return Either.flatMap(
    contextIdRule(call, answer, "message", message["contextId"]),
    () =>
      Schema.decodeUnknownEither(A2AProtocol.Message)(message).pipe(
        Either.orElse((error) =>
          invalid(call, answer, "schema", `the message does not match the A2A v1 Message shape${schemaPath(error)}`)
        )
      )
  )
}

/**
 * Validates a Task object (SPEC §7): non-blank `id`, `contextId` equal to the session uid, a known state.
 *
 * @internal
 */
export const validateTask = (call: Call, answer: HttpAnswer, task: unknown): Result<A2AProtocol.Task> => {
  if (!Predicate.isRecord(task)) return invalid(call, answer, "envelope", "the task is not an object")
  if (!isNonBlankString(task["id"])) return invalid(call, answer, "task-id", "the task's id must be a non-blank string")
  const status = task["status"]
  const state = Predicate.hasProperty(status, "state") ? status.state : undefined
  if (!Schema.is(A2AProtocol.TaskState)(state)) {
    return invalid(
      call,
      answer,
      "task-state",
      `the task's status.state ${state === undefined ? "(missing)" : quoted(state)} is not a known Task state`
    )
  }
  return Either.flatMap(
    contextIdRule(call, answer, "task", task["contextId"]),
    () =>
      Schema.decodeUnknownEither(A2AProtocol.Task)(task).pipe(
        Either.orElse((error) =>
          invalid(call, answer, "schema", `the task does not match the A2A v1 Task shape${schemaPath(error)}`)
        )
      )
  )
}

/**
 * The answer to `message:send`: `{"message": …}` for `responseKind: "message"`, `{"task": …}` for `"task"`;
 * the other one is a response-kind mismatch, and both at once an invalid envelope.
 *
 * @internal
 */
export const decodeSendAnswer = (
  call: Call,
  answer: HttpAnswer,
  scrub: Scrub,
  responseKind: A2AProtocol.ResponseKind,
  followUpTaskId?: string | undefined
): Result<A2AProtocol.Message | A2AProtocol.Task> =>
  scrubbed(scrub, decodeSend(call, answer, scrub, responseKind, followUpTaskId))

const decodeSend = (
  call: Call,
  answer: HttpAnswer,
  scrub: Scrub,
  responseKind: A2AProtocol.ResponseKind,
  followUpTaskId: string | undefined
): Result<A2AProtocol.Message | A2AProtocol.Task> =>
  Either.flatMap(jsonObject(call, answer, scrub), (json): Result<A2AProtocol.Message | A2AProtocol.Task> => {
    const expected = responseKind === "message" ? "message" : "task"
    const other = responseKind === "message" ? "task" : "message"
    // One member of the proto's `oneof`: proto3 JSON writes an unset one as absent or `null`.
    const holds = (member: string) => member in json && json[member] !== null
    if (holds(expected) && holds(other)) {
      return invalid(call, answer, "envelope", "the answer holds both a \"message\" and a \"task\"; A2A allows one")
    }
    if (!holds(expected)) {
      return holds(other)
        ? invalid(
          call,
          answer,
          "response-kind",
          `response-kind mismatch: the Agent answered a ${
            responseKind === "message" ? "Message" : "Task"
          } request with a ${other === "task" ? "Task" : "Message"}`
        )
        : invalid(call, answer, "envelope", `the answer has no "${expected}" object`)
    }
    return responseKind === "message"
      ? validateMessage(call, answer, json[expected])
      : Either.flatMap(
        validateTask(call, answer, json[expected]),
        (task) =>
          followUpTaskId === undefined || task.id === followUpTaskId
            ? Either.right(task)
            : invalid(
              call,
              answer,
              "task-id",
              `the answer to a follow-up turn for Task ${quoted(followUpTaskId)} is another Task (id ${
                quoted(task.id)
              }); it must be the same Task`
            )
      )
  })

/**
 * The answer of get / cancel task: a Task, bare or wrapped in `{"task": …}`.
 *
 * @internal
 */
export const decodeTaskAnswer = (call: Call, answer: HttpAnswer, scrub: Scrub): Result<A2AProtocol.Task> =>
  scrubbed(scrub, decodeTask(call, answer, scrub))

const decodeTask = (call: Call, answer: HttpAnswer, scrub: Scrub): Result<A2AProtocol.Task> =>
  Either.flatMap(jsonObject(call, answer, scrub), (json) => {
    if ("message" in json && !("task" in json) && !("id" in json)) {
      return invalid(
        call,
        answer,
        "response-kind",
        "response-kind mismatch: the runtime answered with a Message, not a Task"
      )
    }
    return Either.flatMap(
      validateTask(call, answer, Predicate.isRecord(json["task"]) ? json["task"] : json),
      (task) =>
        call.taskId === undefined || task.id === call.taskId
          ? Either.right(task)
          : invalid(
            call,
            answer,
            "task-id",
            `the answer for Task ${quoted(call.taskId)} is another Task (id ${quoted(task.id)})`
          )
    )
  })
