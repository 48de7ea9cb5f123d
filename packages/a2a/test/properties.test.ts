import { describe, expect, it } from "@effect/vitest"
import type { SessionScenario } from "@mainsequence/a2a-testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FC from "effect/FastCheck"
import type * as Timeout from "../src/Timeout.js"
import { client, platform, runFor, session, sessionUid, simulated } from "./fixtures.js"

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
