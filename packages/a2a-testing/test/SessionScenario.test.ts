import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { SessionScenario, SimulatedPlatform } from "../src/index.js"
import { AGENT, scenario, SERVICE, SESSION } from "./support.js"

describe("SessionScenario", () => {
  it.effect("the three uids are enough; defaults describe a ready echo Agent", () =>
    Effect.gen(function*() {
      const decoded = yield* SessionScenario.decode({ sessionUid: SESSION, agentUid: AGENT, serviceUid: SERVICE })
      expect(decoded.access).toEqual({ _tag: "Ready" })
      expect(decoded.token).toEqual({
        ttlSeconds: 3600,
        staleTokenStatus: 401,
        mintOnEveryResolve: false,
        rejectFirstSends: 0,
        rejectFirstSendsStatus: 401
      })
      expect(decoded.agent).toMatchObject({
        reply: { _tag: "Echo", prefix: "You said: " },
        workMs: 0,
        taskSupport: false,
        behaviour: { _tag: "Answer", extraFields: false },
        script: [],
        task: { queuedMs: 1000, outcome: "completed", cancelable: true }
      })
    }))

  it.effect("decoded scenarios survive a JSON round trip (an admin endpoint can take them)", () =>
    Effect.gen(function*() {
      const decoded = yield* SessionScenario.decode(scenario({
        access: {
          _tag: "ColdStart",
          phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 3000, detail: "Waking." }]
        },
        backend: { resolveFault: { status: 429, retryAfter: "5", times: 1 }, resolveDelay: "forever" },
        agent: { script: [{ _tag: "GatewayError", status: 502 }], behaviour: { _tag: "Stall", afterHead: true } }
      }))
      const json = JSON.parse(JSON.stringify(Schema.encodeSync(SessionScenario.SessionScenario)(decoded)))
      expect(yield* SessionScenario.decode(json)).toEqual(decoded)
    }))

  it.effect("typos and bad values are refused with a readable issue", () =>
    Effect.gen(function*() {
      const typo = yield* SessionScenario.decode({ ...scenario(), acess: { _tag: "Ready" } }).pipe(Effect.flip)
      expect(typo._tag).toBe("InvalidScenarioError")
      expect(typo.message).toContain("acess")
      const notUuid = yield* SessionScenario.decode(scenario({ sessionUid: "session-1" })).pipe(Effect.flip)
      expect(notUuid.message).toContain("sessionUid")
      const negative = yield* SessionScenario.decode(scenario({ agent: { workMs: -1 } })).pipe(Effect.flip)
      expect(negative.message).toContain("workMs")
    }))

  it.effect("the platform refuses invalid scenarios and unknown sessions", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.make()
      const invalid = yield* platform.addSession(scenario({ serviceUid: "nope" })).pipe(Effect.flip)
      expect(invalid._tag).toBe("InvalidScenarioError")
      const missing = yield* platform.rotateRuntimeToken(SESSION).pipe(Effect.flip)
      expect(missing).toMatchObject({ _tag: "SimulatedSessionNotFoundError", sessionUid: SESSION })
      yield* platform.addSession(scenario())
      const renamed = yield* platform.updateSession(SESSION, (current) => ({ ...current, sessionUid: AGENT })).pipe(
        Effect.flip
      )
      expect(renamed.message).toContain("cannot change sessionUid")
      yield* platform.removeSession(SESSION)
      expect(yield* platform.sessions).toEqual([])
    }))
})
