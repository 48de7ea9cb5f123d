/**
 * Runtime error answers (SPEC §4): the google.rpc.Status JSON form, with its `ErrorInfo` found anywhere in
 * `details`; status and `reason` decide the error. Non-JSON bodies (gateway HTML pages) still give a clear
 * error.
 */
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import {
  A2AMessageLimitExceededError,
  A2ARequestError,
  ServerError,
  TaskNotCancelableError,
  TaskNotFoundError
} from "../A2AError.js"
import { describeBody, type HttpAnswer, jsonOf, maxDetailLength, platformText } from "./exchange.js"

/** @internal */
export const ErrorInfo = Schema.Struct({
  "@type": Schema.optional(Schema.String),
  reason: Schema.String,
  domain: Schema.optional(Schema.String),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

/** @internal */
export interface ErrorInfo extends Schema.Schema.Type<typeof ErrorInfo> {}

const isErrorInfoType = (u: unknown): boolean =>
  Predicate.hasProperty(u, "@type") && Predicate.isString(u["@type"]) && u["@type"].endsWith("google.rpc.ErrorInfo")

const findErrorInfo = (u: unknown, depth = 0): Option.Option<ErrorInfo> => {
  if (depth > 8) return Option.none()
  if (Array.isArray(u)) {
    for (const item of u) {
      const found = findErrorInfo(item, depth + 1)
      if (Option.isSome(found)) return found
    }
    return Option.none()
  }
  if (!Predicate.isRecord(u)) return Option.none()
  if (isErrorInfoType(u)) {
    const info = Schema.decodeUnknownOption(ErrorInfo)(u)
    if (Option.isSome(info)) return info
  }
  return findErrorInfo(Object.values(u), depth + 1)
}

/**
 * The parts of a google.rpc.Status answer we use.
 *
 * @internal
 */
export interface RpcStatus {
  readonly message: string | undefined
  readonly errorInfo: Option.Option<ErrorInfo>
}

/** @internal */
export const parseRpcStatus = (json: unknown): RpcStatus => {
  const status = Predicate.hasProperty(json, "error") && Predicate.isRecord(json.error) ? json.error : json
  const message = Predicate.hasProperty(status, "message") && Predicate.isString(status.message)
    ? status.message
    : Predicate.hasProperty(status, "error") && Predicate.isString(status.error)
    ? status.error
    : undefined
  const details = Predicate.hasProperty(status, "details") ? status.details : undefined
  return { message, errorInfo: findErrorInfo(details) }
}

const limitSecondsOf = (info: ErrorInfo): number => {
  const raw = info.metadata?.["limitSeconds"]
  // Stryker disable next-line MethodExpression: Number() ignores surrounding whitespace itself
  const seconds = Predicate.isString(raw) ? Number(raw.trim()) : Predicate.isNumber(raw) ? raw : Number.NaN
  // The platform's documented Message limit when the metadata is missing or malformed.
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 90
}

const classify = (answer: HttpAnswer, scrub: (text: string) => string) => {
  const status = Option.match(jsonOf(answer), {
    onNone: (): RpcStatus => ({ message: undefined, errorInfo: Option.none() }),
    onSome: parseRpcStatus
  })
  const info = Option.getOrUndefined(status.errorInfo)
  return {
    info,
    reason: info === undefined ? undefined : platformText(info.reason, scrub, 200),
    detail: status.message === undefined
      ? describeBody(answer, scrub)
      : platformText(status.message, scrub, maxDetailLength),
    fields: {
      method: answer.method,
      url: scrub(answer.url),
      status: answer.status
    }
  }
}

/**
 * The error for a `message:send` answer that is neither 2xx nor 401/403.
 *
 * @internal
 */
export const messageError = (
  answer: HttpAnswer,
  scrub: (text: string) => string
): A2AMessageLimitExceededError | ServerError | A2ARequestError => {
  const { detail, fields, info, reason } = classify(answer, scrub)
  if (
    answer.status === 504 && info !== undefined && info.reason === "MESSAGE_RESPONSE_LIMIT_EXCEEDED" &&
    info.domain === "mainsequence.ai"
  ) {
    return new A2AMessageLimitExceededError({
      ...fields,
      origin: "runtime",
      reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
      limitSeconds: limitSecondsOf(info)
    })
  }
  if (answer.status >= 500) return new ServerError({ ...fields, origin: "runtime", reason, detail })
  return new A2ARequestError({ ...fields, reason, detail })
}

/**
 * The error for a Task request's answer that is neither 2xx nor 401/403, keyed on `reason`.
 *
 * @internal
 */
export const taskError = (
  taskId: string,
  answer: HttpAnswer,
  scrub: (text: string) => string
): ServerError | TaskNotFoundError | TaskNotCancelableError | A2ARequestError => {
  const { detail, fields, info, reason } = classify(answer, scrub)
  if (answer.status >= 500) return new ServerError({ ...fields, origin: "runtime", reason, detail })
  if (info?.reason === "TASK_NOT_FOUND") {
    return new TaskNotFoundError({ ...fields, taskId, reason: info.reason, detail })
  }
  if (info?.reason === "TASK_NOT_CANCELABLE") {
    return new TaskNotCancelableError({ ...fields, taskId, reason: info.reason, detail })
  }
  return new A2ARequestError({ ...fields, reason, detail })
}

/**
 * Whether an answer's status is 2xx.
 *
 * @internal
 */
export const isSuccessStatus = (status: number): boolean => {
  // Stryker disable next-line all: no HTTP client hands over a 1xx as the final answer
  if (status < 200) return false
  return status < 300
}

/**
 * A runtime answer: 401/403 → `onRejected` (the credentials were rejected: `refreshOnce` handles it), other
 * non-2xx → `toError`, 2xx → `decode`.
 *
 * @internal
 */
export const checkRuntimeAnswer = <A, E, E2, B, E3>(
  answer: HttpAnswer,
  onRejected: (answer: HttpAnswer) => Effect.Effect<B, E3>,
  toError: (answer: HttpAnswer) => E,
  decode: (answer: HttpAnswer) => Either.Either<A, E2>
): Effect.Effect<A | B, E | E2 | E3> => {
  if (answer.status === 401 || answer.status === 403) return onRejected(answer)
  if (!isSuccessStatus(answer.status)) return Effect.fail(toError(answer))
  return decode(answer)
}
