// SPEC §9, bad input: a clear error and nothing sent, hostile answers included.
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FC from "effect/FastCheck"
import * as Predicate from "effect/Predicate"
import * as Random from "effect/Random"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as A2AClient from "../src/A2AClient.js"
import type { SendA2AMessageInput } from "../src/A2AClient.js"
import * as A2AError from "../src/A2AError.js"
import * as A2AProtocol from "../src/A2AProtocol.js"
import * as Attachment from "../src/Attachment.js"
import {
  client,
  clientOf,
  errorTexts,
  fakePlatform,
  platform,
  readyAccessForTests,
  recordSpans,
  runFor,
  runtimeSends,
  session,
  sessionUid,
  simulated,
  spanTexts
} from "./fixtures.js"

// SPEC §2 / §9: bad input is a clear A2AInputError naming the field, before any request; JavaScript
// callers can pass values of any type. A generated messageId is `msg-<uuid v4>`.

/** An input as an untyped JavaScript caller may pass it. */
const untyped = (input: Record<string, unknown>) => input as unknown as SendA2AMessageInput

const nothingSent = Effect.flatMap(platform, (p) => p.requestLog).pipe(
  Effect.map((log) => expect(log).toEqual([]))
)

describe("rules: bad input from JavaScript callers (SPEC §9)", () => {
  it.effect("a session uid that is not a string → A2AInputError agentSessionUid, quoting it", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      for (const [uid, got] of [[42, "42"], [null, "null"], [` ${sessionUid}x`, JSON.stringify(` ${sessionUid}x`)]]) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(uid as unknown as string, { message: "hi" }))
        expect({ ...error }).toEqual({
          _tag: "A2AInputError",
          field: "agentSessionUid",
          reason: `must be a UUID (got ${got})`
        })
      }
      // a padded uid is trimmed, not refused
      yield* a2a.sendA2AMessage(` ${sessionUid} `, { message: "hi", messageId: "m-1" })
      expect((yield* runtimeSends).map((s) => JSON.parse(s.bodyText).message.contextId)).toEqual([sessionUid])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a Task id that is not a string or blank → A2AInputError taskId, for get, wait and cancel", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [7, "must be a string (got 7)"],
        [null, "must be a string (got null)"],
        ["   ", "must not be blank"],
        [undefined, "must not be blank"]
      ]
      for (const [id, reason] of cases) {
        for (const call of [a2a.getA2ATask, a2a.waitForA2ATask, a2a.cancelA2ATask]) {
          const error = yield* Effect.flip(call(sessionUid, id as string))
          expect({ ...error }).toEqual({ _tag: "A2AInputError", field: "taskId", reason })
        }
      }
      yield* nothingSent
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a Task id \".\" or \"..\" (a dot segment of the URL path) → A2AInputError taskId, nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      for (const id of [".", " .. "]) {
        for (const call of [a2a.getA2ATask, a2a.waitForA2ATask, a2a.cancelA2ATask]) {
          const error = yield* Effect.flip(call(sessionUid, id))
          expect({ ...error }).toEqual({
            _tag: "A2AInputError",
            field: "taskId",
            reason: `must not be "${id.trim()}" (it goes into the URL path)`
          })
        }
      }
      yield* nothingSent
      // dots inside an id are an id like any other
      const error = yield* Effect.flip(a2a.getA2ATask(sessionUid, "..task"))
      expect(error._tag).not.toBe("A2AInputError")
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a follow-up taskId that is not a string or blank → A2AInputError taskId, in a Task call's words", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      for (const [taskId, reason] of [[5, "must be a string (got 5)"], [" ", "must not be blank"]] as const) {
        const error = yield* Effect.flip(
          a2a.sendA2AMessage(sessionUid, untyped({ message: "hi", responseKind: "task", taskId }))
        )
        expect({ ...error }).toEqual({ _tag: "A2AInputError", field: "taskId", reason })
      }
      yield* nothingSent
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { taskSupport: true } })] }))))

  it.effect("referenceTaskIds that is not a list, or holds a blank or non-string id → A2AInputError naming it", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const refused = (referenceTaskIds: unknown) =>
        Effect.map(
          Effect.flip(a2a.sendA2AMessage(sessionUid, untyped({ message: "hi", referenceTaskIds }))),
          (error) => ({ ...error })
        )
      expect(yield* refused("t-1")).toEqual({
        _tag: "A2AInputError",
        field: "referenceTaskIds",
        reason: "must be a list of Task ids"
      })
      expect(yield* refused(["t-1", "  "])).toEqual({
        _tag: "A2AInputError",
        field: "referenceTaskIds",
        reason: "must not hold a blank Task id (at index 1)"
      })
      expect(yield* refused([3, "t-2"])).toEqual({
        _tag: "A2AInputError",
        field: "referenceTaskIds",
        reason: "at index 0: must be a string (got 3)"
      })
      expect(yield* refused(["t-1", "", null])).toEqual({
        _tag: "A2AInputError",
        field: "referenceTaskIds",
        reason: "must not hold a blank Task id (at index 1)"
      })
      yield* nothingSent
      // a valid list is copied as given
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", referenceTaskIds: ["t-1", " t-2"] })
      expect((yield* runtimeSends).map((s) => JSON.parse(s.bodyText).message.referenceTaskIds)).toEqual([
        ["t-1", " t-2"]
      ])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a blank message, or one that is not a string (quoted) → A2AInputError message; a messageId too", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const messages: ReadonlyArray<readonly [unknown, string]> = [
        [undefined, "must not be blank"],
        [" \n ", "must not be blank"],
        [12, "must be a string (got 12)"],
        [["hi"], "must be a string (got [\"hi\"])"],
        [null, "must be a string (got null)"]
      ]
      for (const [message, reason] of messages) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, untyped({ message })))
        expect({ ...error }).toEqual({ _tag: "A2AInputError", field: "message", reason })
      }
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, untyped({ message: "hi", messageId: 12 })))
      expect({ ...error }).toEqual({
        _tag: "A2AInputError",
        field: "messageId",
        reason: "must match ^[A-Za-z0-9._:-]{1,128}$ after trimming (got 12)"
      })
      const attempts = yield* Effect.flip(
        a2a.sendA2AMessage(sessionUid, { message: "hi", strictDictionary: true, jsonRepairAttempts: 0 })
      )
      expect({ ...attempts }).toEqual({
        _tag: "A2AInputError",
        field: "jsonRepairAttempts",
        reason: "must be an integer ≥ 1 (got 0)"
      })
      const kind = yield* Effect.flip(
        a2a.sendA2AMessage(sessionUid, untyped({ message: "hi", responseKind: "stream" }))
      )
      expect({ ...kind }).toEqual({
        _tag: "A2AInputError",
        field: "responseKind",
        reason: "must be \"message\" or \"task\" (got \"stream\")"
      })
      yield* nothingSent
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

describe("rules: bad input of any JavaScript type is an A2AInputError, never a crash (SPEC §9)", () => {
  const circular: Record<string, unknown> = {}
  circular["self"] = circular

  it.effect("an input that is not an object → A2AInputError input, nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const reasons: Array<string> = []
      for (const input of [null, undefined, "Hello", 12, ["Hello"]]) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, input as unknown as SendA2AMessageInput))
        expect([input, error._tag, error._tag === "A2AInputError" && error.field]).toEqual([
          input,
          "A2AInputError",
          "input"
        ])
        reasons.push(error.message)
      }
      expect(reasons[2]).toContain(`must be an object such as { message: "…" } (got "Hello")`)
      yield* nothingSent
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("an input or Task options field the SDK does not read → A2AInputError naming it, nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const fields = "message, messageId, strictDictionary, jsonRepairAttempts, attachments, responseKind, taskId, " +
        "referenceTaskIds, agentProfile, timeout"
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ message: "hi", timeOut: 5 }, `has an unknown field "timeOut" (did you mean "timeout"?)`],
        [{ message: "hi", responsekind: "task" }, `has an unknown field "responsekind" (did you mean "responseKind"?)`],
        [{ message: "hi", files: [] }, `has an unknown field "files" (the fields are ${fields})`],
        [{ mesage: "hi" }, `has an unknown field "mesage" (did you mean "message"?)`],
        [{ message: "hi", atachment: [] }, `has an unknown field "atachment" (did you mean "attachments"?)`]
      ]
      for (const [input, reason] of cases) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, untyped(input)))
        expect({ ...error }).toEqual({ _tag: "A2AInputError", field: "input", reason })
      }
      const taskOptions: ReadonlyArray<readonly [unknown, string]> = [
        [{ timout: 5 }, `has an unknown field "timout" (did you mean "timeout"?)`],
        [{ deadline: 5 }, `has an unknown field "deadline" (the fields are timeout)`],
        [5, "must be an object such as { timeout: 30 } (got 5)"],
        [null, "must be an object such as { timeout: 30 } (got null)"]
      ]
      for (const [options, reason] of taskOptions) {
        for (const call of [a2a.getA2ATask, a2a.waitForA2ATask, a2a.cancelA2ATask]) {
          const error = yield* Effect.flip(call(sessionUid, "t-1", options as A2AClient.TaskCallOptions))
          expect({ ...error }).toEqual({ _tag: "A2AInputError", field: "options", reason })
        }
      }
      yield* nothingSent
      // A field set to undefined (a spread of optional values) is no unknown field.
      const answer = yield* a2a.sendA2AMessage(sessionUid, untyped({ message: "hi", extra: undefined }))
      expect(A2AProtocol.textOf(answer)).toEqual(["You said: hi"])
      const task = yield* Effect.either(a2a.getA2ATask(sessionUid, "t-1", untyped({ timeout: 5, extra: undefined })))
      expect(Either.isLeft(task) && task.left._tag).toBe("TaskNotFoundError")
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a value JSON cannot write (a bigint, a circular object) is quoted by its kind in the error", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string, string]> = [
        [{ message: "hi", timeout: 10n }, "timeout", "(got 10n)"],
        [{ message: "hi", timeout: [circular, 1] }, "timeout", "(got a list)"],
        [{ message: "hi", messageId: circular }, "messageId", "(got an object)"],
        [{ message: "hi", responseKind: 5n }, "responseKind", "(got 5n)"],
        [{ message: "hi", responseKind: Symbol.for("task") }, "responseKind", "(got Symbol(task))"],
        [{ message: "hi", responseKind: "task", taskId: 5n }, "taskId", "(got 5n)"],
        [{ message: "hi", strictDictionary: true, jsonRepairAttempts: 2n }, "jsonRepairAttempts", "(got 2n)"]
      ]
      for (const [input, field, got] of cases) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, untyped(input)))
        expect([field, error._tag, error._tag === "A2AInputError" && error.field]).toEqual([
          field,
          "A2AInputError",
          field
        ])
        expect(error.message).toContain(got)
      }
      const uid = yield* Effect.flip(a2a.sendA2AMessage(10n as unknown as string, { message: "hi" }))
      expect(uid.message).toContain("must be a UUID (got 10n)")
      const task = yield* Effect.flip(a2a.getA2ATask(sessionUid, "t-1", { timeout: 10n as unknown as number }))
      expect(task.message).toContain("(got 10n)")
      yield* nothingSent
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("strictDictionary that is not a boolean → A2AInputError strictDictionary, never read as false", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(
        a2a.sendA2AMessage(sessionUid, untyped({ message: "hi", strictDictionary: "yes" }))
      )
      expect({ ...error }).toEqual({
        _tag: "A2AInputError",
        field: "strictDictionary",
        reason: `must be true or false (got "yes")`
      })
      yield* nothingSent
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("attachments that are not a list of { filename, mediaType, bytes } → A2AInputError attachments", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const bytes = new Uint8Array([1, 2, 3])
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        ["report.pdf", `must be a list of attachments (got "report.pdf")`],
        [[null], "must hold { filename, mediaType, bytes } (at index 0)"],
        [[undefined], "must hold { filename, mediaType, bytes } (at index 0)"],
        [[12], "must hold { filename, mediaType, bytes } (at index 0)"],
        [[{ filename: "a.pdf", bytes }, "b.pdf"], "must hold { filename, mediaType, bytes } (at index 1)"],
        [[{ filename: 7, mediaType: "text/plain", bytes }], "must hold { filename, mediaType, bytes } (at index 0)"],
        [[{ filename: "a.pdf", bytes: "AQID" }], "a.pdf: bytes must be a Uint8Array"],
        [[{ filename: "a.pdf", bytes: [1, 2, 3] }], "a.pdf: bytes must be a Uint8Array"],
        [[{ filename: "a.txt", mediaType: 5, bytes }], "a.txt: mediaType must be a string (got 5)"],
        [[{ filename: " ", mediaType: "text/plain", bytes }], "a file name must not be blank"]
      ]
      for (const [attachments, reason] of cases) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, untyped({ message: "hi", attachments })))
        expect({ ...error }).toEqual({ _tag: "A2AInputError", field: "attachments", reason })
      }
      // The public constructors answer the same way.
      const made = [
        Attachment.fromBytes(7 as unknown as string, bytes),
        Attachment.fromBytes("a.pdf", "AQID" as unknown as Uint8Array),
        Attachment.fromBytes("a.txt", bytes, 5 as unknown as string),
        Attachment.fromBytes("", bytes, "text/plain"),
        Attachment.fromPath(7 as unknown as string).pipe(Effect.provide(NodeFileSystem.layer))
      ]
      const reasons = yield* Effect.forEach(
        made,
        (attachment) => Effect.map(Effect.flip(attachment), (error) => error.reason)
      )
      expect(reasons).toEqual([
        "a file name must be a string (got 7)",
        "a.pdf: bytes must be a Uint8Array",
        "a.txt: mediaType must be a string (got 5)",
        "a file name must not be blank",
        "a path must be a string (got 7)"
      ])
      yield* nothingSent
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

describe("rules: the generated messageId (SPEC §2)", () => {
  it.effect("msg-<uuid v4>: version 4 and the RFC 4122 variant for every draw, 128 bits spread over the hex", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const seen = new Set<string>()
      for (let seed = 0; seed < 40; seed++) {
        yield* a2a.sendA2AMessage(sessionUid, { message: "hi" }).pipe(Effect.withRandom(Random.make(`seed-${seed}`)))
      }
      const ids = (yield* runtimeSends).map((s) => String(JSON.parse(s.bodyText).message.messageId))
      for (const id of ids) {
        expect(id).toMatch(/^msg-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        seen.add(id)
      }
      expect(seen.size).toBe(40)
      // every hex position except the version nibble takes more than one value across the draws
      const hex = ids.map((id) => id.slice(4).replace(/-/g, ""))
      const fixed = Array.from({ length: 32 }, (_, i) => i).filter((i) => new Set(hex.map((h) => h[i])).size === 1)
      expect(fixed).toEqual([12])
      // the variant nibble takes all four of its values
      expect(new Set(hex.map((h) => h[16])).size).toBe(4)
      // only bytes 6 and 8 are masked: every other byte's high nibble also takes values below 8
      const highNibbles = Array.from({ length: 16 }, (_, byte) => byte * 2).filter((i) => i !== 12 && i !== 16)
      expect(highNibbles.filter((i) => hex.every((h) => parseInt(h[i] ?? "0", 16) >= 8))).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})

// Random mutations of valid backend and runtime answers thrown at the client: every call ends with a valid
// answer or one of the SDK's typed errors (never a defect), within its budget, and no secret the client
// holds shows in the error or a span. CI runs a fixed seed and 100 cases; to run longer by hand:
//   A2A_HOSTILE_RUNS=5000 A2A_HOSTILE_SEED=$RANDOM npx vitest run --project a2a test/properties.hostile.test.ts

const runs = Number(process.env["A2A_HOSTILE_RUNS"] ?? 100)
const seed = Number(process.env["A2A_HOSTILE_SEED"] ?? 33)

const userToken = "user-token" // fakePlatform's
const refreshToken = "refresh-token-8c1e"
/** Replaced by the bearer token of the request being answered (the user's or a runtime token). */
const bearer = "$BEARER"
/** Replaced by arrays nested `levels` deep (as text: the value itself would be too deep to print). */
const deep = (levels: number) => `$DEEP${levels}`

const validResolves: ReadonlyArray<unknown> = [
  readyAccessForTests,
  {
    ...readyAccessForTests,
    runtime_interaction: { state: "waking", can_submit: false, retry_after_ms: 1500, notice: { title: "Waking" } },
    runtime_presence: { phase: "starting", detail: "pulling the image" }
  },
  {
    mode: "unavailable",
    detail: `the session is archived (${bearer})`,
    runtime_interaction: { state: "unavailable", can_submit: false, notice: { title: "Gone", message: "archived" } }
  }
]
const validRuntimeAnswers: ReadonlyArray<readonly [number, unknown]> = [
  [200, {
    message: { messageId: "a-1", role: "ROLE_AGENT", contextId: sessionUid, parts: [{ text: "hello" }, { data: [1] }] }
  }],
  [400, {
    error: {
      code: 400,
      message: `bad bearer ${bearer}`,
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "INVALID", domain: "mainsequence.ai" }]
    }
  }]
]

type Path = ReadonlyArray<string | number>

/** Every path into a (small, valid) JSON value. */
const pathsOf = (value: unknown, path: Path = []): Array<Path> => [
  path,
  ...(Array.isArray(value)
    ? value.flatMap((item, i) => pathsOf(item, [...path, i]))
    : typeof value === "object" && value !== null
    ? Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...path, key]))
    : [])
]

/** Stands for "remove the member" in {@link setAt}. */
const removed = Symbol("removed")

const setAt = (value: unknown, path: Path, replacement: unknown): unknown => {
  const [head, ...rest] = path
  if (head === undefined) return replacement
  const at = (item: unknown): Array<unknown> =>
    rest.length === 0 && replacement === removed ? [] : [setAt(item, rest, replacement)]
  if (Array.isArray(value)) return value.flatMap((item, i) => i === head ? at(item) : [item])
  if (!Predicate.isRecord(value)) return value
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, item]) => key === head ? at(item).map((v) => [key, v]) : [[key, item]])
  )
}

/** The `n`-th path of `value` (modulo their number). */
const pathAt = (value: unknown, n: number): Path => {
  const paths = pathsOf(value)
  return paths.at(n % paths.length) ?? []
}

const secretText = FC.tuple(FC.string({ maxLength: 8 }), FC.constantFrom(bearer, userToken, refreshToken), FC.string())
  .map(([before, secret, after]) => `${before}${secret}${after}`)

type Mutation =
  | { readonly _tag: "Replace"; readonly at: number; readonly with: unknown }
  | { readonly _tag: "Remove"; readonly at: number }
  | { readonly _tag: "Truncate"; readonly at: number }
  | { readonly _tag: "Nest"; readonly at: number; readonly levels: number }
  | { readonly _tag: "Status"; readonly status: number }

const mutation: FC.Arbitrary<Mutation> = FC.oneof(
  FC.record({
    _tag: FC.constant("Replace" as const),
    at: FC.nat(),
    with: FC.oneof(FC.jsonValue({ maxDepth: 3 }), secretText, FC.constantFrom("file:///x", "blob:https://x/", "/rt"))
  }),
  FC.record({ _tag: FC.constant("Remove" as const), at: FC.nat() }),
  FC.record({ _tag: FC.constant("Truncate" as const), at: FC.nat() }),
  FC.record({ _tag: FC.constant("Nest" as const), at: FC.nat(), levels: FC.integer({ min: 500, max: 6000 }) }),
  FC.record({
    _tag: FC.constant("Status" as const),
    status: FC.constantFrom(200, 201, 204, 300, 400, 401, 403, 404, 409, 429, 500, 502, 503, 504)
  })
)

/** The answer `mutations` make of `valid` (status and body text), a secret placeholder filled in. */
const mutate = (status: number, valid: unknown, mutations: ReadonlyArray<Mutation>, token: string) => {
  let value = valid
  let code = status
  let wrap = (text: string) => text
  let deepest = 0
  for (const m of mutations) {
    if (m._tag === "Replace") value = setAt(value, pathAt(value, m.at), m.with)
    else if (m._tag === "Remove") value = setAt(value, pathAt(value, m.at), removed)
    else if (m._tag === "Status") code = m.status
    else if (m._tag === "Truncate") wrap = (text) => text.slice(0, m.at % (text.length + 1))
    else {
      value = setAt(value, pathAt(value, m.at), deep(m.levels))
      deepest = m.levels
    }
  }
  const text = (JSON.stringify(value) ?? "").split(bearer).join(token)
    .split(`"${deep(deepest)}"`).join(`${"[".repeat(deepest)}${"]".repeat(deepest)}`)
  return { status: code, text: wrap(text) }
}

/** The tags of the SDK's errors. */
const errorTags = new Set(
  Object.values(A2AError).flatMap((v) => Predicate.hasProperty(v, "_tag") && Predicate.isString(v._tag) ? [v._tag] : [])
)
const isAnswer = Schema.is(Schema.Union(A2AProtocol.Message, A2AProtocol.Task))

describe("properties over hostile answers", () => {
  it.effect.prop(
    "a typed error or a valid answer, within the budget, no secret in any error or span text",
    {
      resolve: FC.constantFrom(...validResolves),
      runtime: FC.constantFrom(...validRuntimeAnswers),
      backendMutations: FC.array(mutation, { maxLength: 3 }),
      runtimeMutations: FC.array(mutation, { maxLength: 3 })
    },
    ({ backendMutations, resolve, runtime, runtimeMutations }) =>
      Effect.scoped(Effect.gen(function*() {
        const secrets = new Set([userToken, refreshToken, readyAccessForTests.token])
        const answer = (request: HttpClientRequest.HttpClientRequest) => {
          const token = (request.headers["authorization"] ?? "").replace(/^Bearer /, "")
          if (token.length >= 8) secrets.add(token)
          const { status, text } = request.url.includes("/token/refresh/")
            ? { status: 401, text: "{}" }
            : request.url.endsWith("/resolve-runtime-access/")
            ? mutate(200, resolve, backendMutations, token)
            : mutate(...runtime, runtimeMutations, token)
          return Effect.succeed(HttpClientResponse.fromWeb(
            request,
            new Response(status === 204 ? null : text, { status, headers: { "content-type": "application/json" } })
          ))
        }
        const a2a = yield* clientOf(fakePlatform(answer, { refreshToken: Redacted.make(refreshToken) }))
        const { spans, tracer } = yield* recordSpans
        const result = yield* runFor(
          a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: 5 }).pipe(Effect.withTracer(tracer)),
          "70 seconds"
        )
        expect(result.millis).toBeLessThanOrEqual(5000)
        if (result.error === undefined) {
          expect(isAnswer(result.value)).toBe(true)
        } else {
          expect(result.error).toBeInstanceOf(Error)
          expect(errorTags).toContain(result.error._tag)
          for (const text of [...errorTexts(result.error), ...spanTexts(spans)]) {
            for (const secret of secrets) expect(text).not.toContain(secret)
          }
        }
      })),
    // a run by hand may be long: give it time in proportion
    { timeout: Math.max(120_000, runs * 250), fastCheck: { numRuns: runs, seed } }
  )
})
