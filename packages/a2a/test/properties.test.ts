import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import type { SessionScenario } from "@mainsequence/a2a-testing"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FC from "effect/FastCheck"
import * as Redacted from "effect/Redacted"
import type * as Timeout from "../src/Timeout.js"
import { client, clientOf, fakePlatform, platform, runFor, session, sessionUid, simulated } from "./fixtures.js"

const transientState = FC.constantFrom("checking" as const, "starting" as const, "waking" as const, "updating" as const)
const retry = FC.oneof(FC.integer({ min: 0, max: 5000 }), FC.constant(null))

const phase = FC.record({ state: transientState, retryAfterMs: retry, durationMs: FC.integer({ min: 0, max: 20_000 }) })

const access: FC.Arbitrary<NonNullable<SessionScenario.SessionScenarioInput["access"]>> = FC.oneof(
  FC.constant({ _tag: "Ready" as const }),
  FC.record({
    _tag: FC.constant("Terminal" as const),
    state: FC.constantFrom("unavailable" as const, "update_required" as const, "update_failed" as const)
  }),
  FC.record({
    _tag: FC.constant("ColdStart" as const),
    phases: FC.tuple(phase, FC.array(phase, { maxLength: 2 })).map(([first, rest]) => [first, ...rest] as const)
  }),
  FC.record({ _tag: FC.constant("StuckTransient" as const), state: transientState, retryAfterMs: retry })
)

const behaviour: FC.Arbitrary<NonNullable<NonNullable<SessionScenario.SessionScenarioInput["agent"]>["behaviour"]>> = FC
  .oneof(
    FC.record({
      _tag: FC.constant("Answer" as const),
      workMs: FC.integer({ min: 0, max: 120_000 }),
      trickle: FC.option(
        FC.record({ chunks: FC.integer({ min: 1, max: 5 }), gapMs: FC.integer({ min: 0, max: 5000 }) }),
        {
          nil: undefined
        }
      )
    }).map(({ trickle, ...rest }) => trickle === undefined ? rest : { ...rest, trickle }),
    FC.constant({ _tag: "Stall" as const }),
    FC.constant({ _tag: "Stall" as const, afterHead: true }),
    FC.constant({ _tag: "GatewayError" as const, status: 504 as const }),
    FC.constant({ _tag: "Unavailable" as const }),
    FC.constant({ _tag: "Invalid" as const, violation: "role_responder" as const }),
    FC.constant({ _tag: "ConnectionFailure" as const })
  )

const token = FC.record({
  rejectFirstSends: FC.integer({ min: 0, max: 3 }),
  rejectFirstSendsStatus: FC.constantFrom(401 as const, 403 as const),
  ttlSeconds: FC.constantFrom(null, 31, 3600)
})

const timeout: FC.Arbitrary<Timeout.Timeout> = FC.oneof(
  FC.integer({ min: 1, max: 60 }),
  FC.tuple(FC.integer({ min: 1, max: 10 }), FC.integer({ min: 1, max: 60 }))
)

const totalMillis = (t: Timeout.Timeout) => (typeof t === "number" ? t : t[0] + t[1]) * 1000

const wakeMillis = (a: NonNullable<SessionScenario.SessionScenarioInput["access"]>): number =>
  a._tag === "ColdStart" ? a.phases.reduce((sum, phase) => sum + phase.durationMs, 0) : 0

describe("properties over random platform behaviours", () => {
  it.effect.prop(
    "≤ 2 sends per call, none while blocked, identical bytes, ends within its budget",
    { access, behaviour, token, timeout },
    ({ access, behaviour, timeout, token }) =>
      Effect.gen(function*() {
        const a2a = yield* client
        const p = yield* platform
        const start = yield* Clock.currentTimeMillis
        const result = yield* runFor(
          a2a.sendA2AMessage(sessionUid, { message: "prop", timeout }),
          totalMillis(timeout) + 60_000
        )
        const log = yield* p.requestLog
        const sends = log.filter((e) => e.route === "message-send")
        // the call always ends, within its budget on the simulated clock
        expect(result.millis).toBeLessThanOrEqual(totalMillis(timeout))
        expect(sends.length).toBeLessThanOrEqual(2)
        expect(new Set(sends.map((s) => s.bodyText)).size).toBeLessThanOrEqual(1)
        if (access._tag === "Terminal" || access._tag === "StuckTransient") expect(sends).toEqual([])
        if (access._tag === "ColdStart") {
          for (const send of sends) expect(send.atMs - start).toBeGreaterThanOrEqual(wakeMillis(access))
        }
        if (result.error !== undefined && sends.length > 0 && "messageMayHaveBeenSent" in result.error) {
          expect(result.error.messageMayHaveBeenSent).toBe(true)
        }
      }).pipe(Effect.provide(simulated({ sessions: [session({ access, agent: { behaviour }, token })] }))),
    { timeout: 120_000, fastCheck: { numRuns: 50 } }
  )
})

// Hostile platforms: each route answers with a status, a media type and a body drawn from shapes close to the
// real answers, arbitrary JSON and texts made of what breaks parsers and scrubbers, echoing both tokens.
const userToken = "user-token" // the fixtures' access token
const runtimeToken = "rt-SECRET-token-0002"

const trap = FC.constantFrom(
  userToken,
  runtimeToken,
  `"token":"${runtimeToken}`,
  `http://${userToken}@proxy:3128`,
  `Bearer ${runtimeToken}`,
  `https://runtime.example/${runtimeToken}/`,
  "__proto__",
  `{"__proto__":{"status":{"state":"TASK_STATE_COMPLETED"}}}`,
  "<html><head><title>Bad \u001b[2J gateway</title>",
  "\u0000\u0007\u001b]52;c;eA==\u0007\u202e",
  "\\",
  "\uD800",
  "1e400",
  "-0"
)
const text = FC.array(FC.oneof(trap, FC.string({ maxLength: 20 })), { maxLength: 6 }).map((parts) => parts.join(""))
const value: FC.Arbitrary<unknown> = FC.oneof(text, FC.jsonValue({ maxDepth: 3 }))
const maybe = <A>(arbitrary: FC.Arbitrary<A>) => FC.oneof(arbitrary, value)

const resolveAnswer = FC.record({
  mode: maybe(FC.constant("token")),
  rpc_url: maybe(FC.constant("https://runtime.example/")),
  token: maybe(FC.constant(runtimeToken)),
  expires_at: maybe(FC.constant(null)),
  runtime_interaction: maybe(FC.record({
    state: maybe(FC.constantFrom("ready", "waking", "unavailable")),
    can_submit: maybe(FC.boolean()),
    retry_after_ms: maybe(FC.integer({ min: 0, max: 5000 })),
    notice: value
  }, { requiredKeys: [] })),
  runtime_presence: value
}, { requiredKeys: [] })

const part = FC.record({ text: maybe(text), data: value, url: value, mediaType: value }, { requiredKeys: [] })
const agentMessage = FC.record({
  messageId: maybe(FC.constant("a-1")),
  role: maybe(FC.constant("ROLE_AGENT")),
  contextId: maybe(FC.constant(sessionUid)),
  taskId: value,
  parts: maybe(FC.array(part, { maxLength: 3 })),
  metadata: value
}, { requiredKeys: [] })
const task = FC.record({
  id: maybe(FC.constant("t-1")),
  contextId: maybe(FC.constant(sessionUid)),
  status: maybe(FC.record({ state: maybe(FC.constant("TASK_STATE_WORKING")), message: maybe(agentMessage) })),
  artifacts: value,
  history: maybe(FC.array(agentMessage, { maxLength: 2 }))
}, { requiredKeys: [] })
const runtimeAnswer = FC.oneof(
  FC.record({ message: agentMessage }),
  FC.record({ task }),
  FC.record({ error: FC.record({ code: value, message: maybe(text), details: value }, { requiredKeys: [] }) })
)

const answer = (body: FC.Arbitrary<unknown>) =>
  FC.record({
    status: FC.constantFrom(200, 200, 200, 400, 401, 403, 404, 409, 413, 429, 500, 502, 503, 504),
    mediaType: FC.constantFrom("application/json", "application/a2a+json", "text/html", "text/plain", undefined),
    retryAfter: FC.option(text, { nil: undefined }),
    body: FC.oneof(body.map((json) => JSON.stringify(json)), text, value.map((json) => JSON.stringify(json)))
  })

interface Given {
  readonly status: number
  readonly mediaType: string | undefined
  readonly retryAfter: string | undefined
  readonly body: string
}

/** Whether a resolve answer's text is JSON that hands out the runtime token. */
const handsOut = (body: string): boolean => {
  try {
    const answer: unknown = JSON.parse(body)
    return typeof answer === "object" && answer !== null && "token" in answer && answer.token === runtimeToken
  } catch {
    return false
  }
}

/** Serves `answers` in turn, from the first again after the last. */
const inTurn = (answers: readonly [Given, ...Array<Given>]) => {
  let served = 0
  return (): Given => answers[served++ % answers.length] ?? answers[0]
}

const answers = (body: FC.Arbitrary<unknown>) =>
  FC.tuple(answer(body), FC.array(answer(body), { maxLength: 2 })).map(([first, rest]) => [first, ...rest] as const)

const respond = (request: HttpClientRequest.HttpClientRequest, given: Given) =>
  HttpClientResponse.fromWeb(
    request,
    new Response(given.body, {
      status: given.status,
      headers: {
        ...(given.mediaType === undefined ? {} : { "content-type": given.mediaType }),
        ...(given.retryAfter === undefined ? {} : { "retry-after": given.retryAfter.replace(/[^\x20-\x7e]/g, "") })
      }
    })
  )

describe("properties over hostile platforms", () => {
  it.effect.prop(
    "no answer makes a call die, and no error shows a token",
    {
      resolve: answers(resolveAnswer),
      runtime: answers(runtimeAnswer),
      backend: answer(FC.oneof(value, FC.record({ access: maybe(FC.constant("user-SECRET-token-0003")) }))),
      responseKind: FC.constantFrom("message" as const, "task" as const)
    },
    ({ backend, resolve, responseKind, runtime }) =>
      Effect.gen(function*() {
        const nextResolve = inTurn(resolve)
        const nextRuntime = inTurn(runtime)
        // The runtime token is a secret to the client once an answer gave it as one; before, it is any text.
        let runtimeTokenGiven = false
        const resolved = (given: Given) => {
          runtimeTokenGiven ||= given.status === 200 && handsOut(given.body)
          return given
        }
        const a2a = yield* clientOf(fakePlatform(
          (request) =>
            Effect.succeed(
              request.url.startsWith("https://runtime.example/")
                ? respond(request, nextRuntime())
                : request.url.includes("/resolve-runtime-access/")
                ? respond(request, resolved(nextResolve()))
                : respond(request, backend)
            ),
          { refreshToken: Redacted.make("user-SECRET-refresh-0004") }
        ))
        const { value: exit } = yield* runFor(
          Effect.exit(a2a.sendA2AMessage(sessionUid, { message: "hostile", responseKind, timeout: 30 })),
          "60 seconds"
        )
        if (exit === undefined || Exit.isSuccess(exit)) return
        expect(Cause.defects(exit.cause).length).toBe(0)
        const error = Cause.failureOption(exit.cause)
        expect(error._tag).toBe("Some")
        if (error._tag === "Some") {
          const shown = `${error.value.message} ${JSON.stringify(error.value)} ${String(error.value)}`
          const secrets = [userToken, "user-SECRET-token-0003", "user-SECRET-refresh-0004"]
          for (const secret of runtimeTokenGiven ? [...secrets, runtimeToken] : secrets) {
            expect(shown).not.toContain(secret)
          }
        }
      }).pipe(Effect.scoped),
    { timeout: 120_000, fastCheck: { numRuns: 300 } }
  )
})
