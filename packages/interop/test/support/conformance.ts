/**
 * A2A v1 conformance for the interop suites, through `A2ASchema` of `@mainsequence/a2a-testing` (the one
 * vendored schema bundle, `packages/a2a-testing/vendor/a2a-v1/a2a.json`): problem lists for the wire check
 * of request bytes, and throwing assertions for answers (unknown extra fields tolerated, as the SDK keeps them).
 */
import { A2ASchema } from "@mainsequence/a2a-testing"
import * as Either from "effect/Either"

/** `field: description` of every issue, or `[]` when the value conforms. */
export const problemsOf = (result: Either.Either<unknown, A2ASchema.A2ASchemaViolation>): ReadonlyArray<string> =>
  Either.match(result, {
    onLeft: (violation) => violation.issues.map((issue) => `${issue.field}: ${issue.description}`),
    onRight: () => []
  })

/** Problems of raw `message:send` body bytes: not UTF-8 JSON, or not a Main Sequence `Send Message Request`. */
export const sendMessageRequestProblems = (bytes: Uint8Array | string): ReadonlyArray<string> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(typeof bytes === "string" ? bytes : new TextDecoder("utf-8", { fatal: true }).decode(bytes))
  } catch (error) {
    return [`(root): is not UTF-8 JSON: ${String(error)}`]
  }
  return problemsOf(A2ASchema.validateSendMessageRequest(parsed))
}

const assertConforms = (result: Either.Either<unknown, A2ASchema.A2ASchemaViolation>, value: unknown): void => {
  if (Either.isLeft(result)) {
    throw new Error(
      `${result.left.message}\n  - ${problemsOf(result).join("\n  - ")}\n${JSON.stringify(value).slice(0, 2000)}`
    )
  }
}

/** Throws unless `message` is a valid A2A v1 Message (extra fields aside). */
export const assertMessage = (message: unknown): void =>
  assertConforms(A2ASchema.validateMessage(message, { allowUnknownFields: true }), message)

/** Throws unless `task` is a valid A2A v1 Task (extra fields aside). */
export const assertTask = (task: unknown): void =>
  assertConforms(A2ASchema.validateTask(task, { allowUnknownFields: true }), task)

/** Throws unless an accepted answer is a valid Message or Task (picked by shape: a Task has `status`). */
export const assertAnswer = (answer: unknown): void =>
  typeof answer === "object" && answer !== null && "status" in answer ? assertTask(answer) : assertMessage(answer)
