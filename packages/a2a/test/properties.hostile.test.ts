import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FC from "effect/FastCheck"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as A2AError from "../src/A2AError.js"
import * as A2AProtocol from "../src/A2AProtocol.js"
import {
  clientOf,
  errorTexts,
  fakePlatform,
  readyAccessForTests,
  recordSpans,
  runFor,
  sessionUid,
  spanTexts
} from "./fixtures.js"

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
