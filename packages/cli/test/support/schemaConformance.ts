/**
 * A2A v1 schema conformance of what the CLI sends and prints.
 *
 * - Sends: every platform a test runs the CLI against is watched (`watch`, `layerWatched`); after the test,
 *   `expectConformantSends` (register it with `afterEach`) fails it when any `message:send` body the platform
 *   received has a `schemaViolation`. A watched platform's `clearRequestLog` keeps the violations it clears.
 * - Output: `printedMessage` / `printedTask` parse the CLI's stdout (`{"message": …}` / `{"task": …}`) and check
 *   the value with `A2ASchema.validateMessage` / `validateTask` (unknown fields allowed: the SDK keeps them).
 */
import { expect } from "@effect/vitest"
import { A2ASchema, type SessionScenario, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/** A `message:send` request whose body breaks A2A v1. */
export interface SendViolation {
  readonly seq: number
  readonly messageId: string | null
  readonly schemaViolation: string
}

/** The log entries with a schema violation (only `message:send` entries carry one). */
export const violationsIn = (
  log: ReadonlyArray<Pick<SimulatedPlatform.RequestLogEntry, "seq" | "messageId" | "schemaViolation">>
): ReadonlyArray<SendViolation> =>
  log.flatMap((entry) =>
    entry.schemaViolation === null
      ? []
      : [{ seq: entry.seq, messageId: entry.messageId, schemaViolation: entry.schemaViolation }]
  )

const watched = new Set<SimulatedPlatform.Service>()
const clearedViolations: Array<SendViolation> = []
const external: Array<Promise<ReadonlyArray<SendViolation>>> = []

/**
 * Watches a platform for the current test: its log is checked by `expectConformantSends`. Use the returned
 * service (its `clearRequestLog` keeps the violations it clears in view).
 */
export const watch = (platform: SimulatedPlatform.Service): SimulatedPlatform.Service => {
  watched.add(platform)
  return {
    ...platform,
    clearRequestLog: Effect.flatMap(platform.requestLog, (log) =>
      Effect.zipRight(
        Effect.sync(() => void clearedViolations.push(...violationsIn(log))),
        platform.clearRequestLog
      ))
  }
}

/** `SimulatedPlatform.layer`, watched. */
export const layerWatched = (
  options: SimulatedPlatform.Options
): Layer.Layer<SimulatedPlatform.SimulatedPlatform, SessionScenario.InvalidScenarioError> =>
  Layer.effect(SimulatedPlatform.SimulatedPlatform, Effect.map(SimulatedPlatform.make(options), watch))

const RemoteLog = Schema.parseJson(Schema.Array(Schema.Struct({
  seq: Schema.Number,
  messageId: Schema.NullOr(Schema.String),
  schemaViolation: Schema.NullOr(Schema.String)
})))

/**
 * Reads the request log of a platform served by another process (`GET {url}/__sim/log`) for the current test's
 * check; run it before that platform stops.
 */
export const watchRemote = (url: string): Promise<void> => {
  const violations = fetch(`${url}/__sim/log`).then((response) => response.text()).then((text) =>
    violationsIn(Schema.decodeUnknownSync(RemoteLog)(text))
  )
  external.push(violations)
  return violations.then(() => undefined)
}

/**
 * Fails the test when a `message:send` body any watched platform received breaks A2A v1 (for `afterEach`).
 */
export const expectConformantSends = async (): Promise<void> => {
  const platforms = [...watched]
  const remote = external.splice(0)
  watched.clear()
  const violations = clearedViolations.splice(0)
  for (const platform of platforms) violations.push(...violationsIn(await Effect.runPromise(platform.requestLog)))
  for (const found of await Promise.all(remote)) violations.push(...found)
  expect(violations, "message:send bodies that break the A2A v1 Send Message Request schema").toEqual([])
}

const PrintedAnswer = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

const printed = (
  stdout: string,
  kind: "message" | "task"
): A2ASchema.JsonObject => {
  const answer = Schema.decodeUnknownSync(PrintedAnswer)(stdout)
  // A Task that waits for its caller also carries the command that answers it (Resume.ts).
  const keys = Object.keys(answer).filter((key) => !(kind === "task" && key === "resume"))
  expect(keys, `stdout is {"${kind}": …}`).toEqual([kind])
  const validated = kind === "message"
    ? A2ASchema.validateMessage(answer[kind], { allowUnknownFields: true })
    : A2ASchema.validateTask(answer[kind], { allowUnknownFields: true })
  return Either.match(validated, {
    onLeft: (violation) => expect.fail(`the printed ${kind} is not A2A v1: ${violation.message}`),
    onRight: (value) => value
  })
}

/** The Message the CLI printed (`{"message": …}` on stdout), checked against A2A v1 `Message`. */
export const printedMessage = (stdout: string): A2ASchema.JsonObject => printed(stdout, "message")

/** The Task the CLI printed (`{"task": …}`, maybe with `"resume"`, on stdout), checked against A2A v1 `Task`. */
export const printedTask = (stdout: string): A2ASchema.JsonObject => printed(stdout, "task")

/** The id of a checked Task. */
export const taskIdOf = (task: A2ASchema.JsonObject): string =>
  Schema.decodeUnknownSync(Schema.Struct({ id: Schema.String }))(task).id
