import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { client, platform, runFor, session, sessionUid, simulated } from "./fixtures.js"

describe("debug", () => {
  it.effect("terminal [1,1]", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      const result = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "prop", timeout: [1, 1] }), 62_000)
      console.log(result.millis, result.error, yield* p.requestLog)
      expect(result.millis).toBeLessThanOrEqual(2000)
    }).pipe(Effect.provide(simulated({ sessions: [session({ access: { _tag: "Terminal", state: "unavailable" } })] }))))
})
