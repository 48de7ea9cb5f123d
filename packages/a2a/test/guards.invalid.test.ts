import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { client, platform, runtimeSends, serviceUid, session, sessionUid, simulated } from "./fixtures.js"

const url = `https://platform.sim.mainsequence.test/runtimes/${serviceUid}/api/a2a/v1/message:send`

// SPEC §2, §4: ROLE_REQUESTER / ROLE_RESPONDER are internal platform directions, never accepted, and the
// error says so rather than only "must be ROLE_AGENT".
describe("guards: answers with an internal platform role", () => {
  it.effect("each internal role is named in its own InvalidA2AResponseError; sent once, not retried", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const cases = [
        ["role_requester", "ROLE_REQUESTER"],
        ["role_responder", "ROLE_RESPONDER"]
      ] as const
      for (const [violation, role] of cases) {
        yield* p.updateSession(
          sessionUid,
          (s) => ({ ...s, agent: { ...s.agent, behaviour: { _tag: "Invalid", violation } } })
        )
        yield* p.clearRequestLog
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
        expect(error).toMatchObject({
          _tag: "InvalidA2AResponseError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          url,
          status: 200,
          rule: "role",
          reason: `the message has the internal platform direction ${role}, which is not a public A2A role; ` +
            "an Agent's answer must have role ROLE_AGENT"
        })
        expect((yield* runtimeSends).map((s) => s.status)).toEqual([200])
      }
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("ROLE_USER gets the generic role rule, naming the role it got", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
      expect(error).toMatchObject({
        _tag: "InvalidA2AResponseError",
        rule: "role",
        reason: "the message role must be ROLE_AGENT (got \"ROLE_USER\")"
      })
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Invalid", violation: "role_user" } } })]
    }))))
})
