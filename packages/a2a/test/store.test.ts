import { describe, expect, it } from "@effect/vitest"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as A2AClient from "../src/A2AClient.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import { sendBodiesConform, session, sessionUid } from "./fixtures.js"

describe("RuntimeAccessCache.layerStore", () => {
  it.effect("persists admitted access through the store, removes it on a runtime 401, never stores blocked access", () =>
    Effect.gen(function*() {
      const entries = new Map<string, RuntimeAccessCache.CachedRuntimeAccess>()
      const calls: Array<string> = []
      const store: RuntimeAccessCache.RuntimeAccessStore = {
        get: (key) => Effect.sync(() => Option.fromNullable(entries.get(key))),
        set: (key, access) => Effect.sync(() => void (calls.push("set"), entries.set(key, access))),
        remove: (key) => Effect.sync(() => void (calls.push("remove"), entries.delete(key)))
      }
      const simulation = layerTest({ sessions: [session({ token: { rejectFirstSends: 1 } })] })
      const layer = A2AClient.layer({
        backendUrl: SimulatedPlatform.defaultBaseUrl,
        accessToken: SimulatedPlatform.defaultUserAccessToken
      }).pipe(
        Layer.provideMerge(Layer.merge(simulation, RuntimeAccessCache.layerStore(store))),
        Layer.merge(Layer.provide(sendBodiesConform, simulation)),
        Layer.orDie
      )
      yield* Effect.gen(function*() {
        const a2a = yield* A2AClient.A2AClient
        const platform = yield* SimulatedPlatform.SimulatedPlatform
        yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
        expect(calls).toEqual(["set", "remove", "set"])
        const [key, stored] = [...entries][0] ?? []
        expect(key).toMatch(/^[0-9a-f]{64}$/)
        expect(key).not.toContain(sessionUid)
        expect(Redacted.isRedacted(stored?.token)).toBe(true)
        expect(JSON.stringify(stored)).not.toContain(Redacted.value(SimulatedPlatform.defaultUserAccessToken))
        // a blocked answer is never stored
        entries.clear()
        yield* platform.updateSession(
          sessionUid,
          (s) => ({ ...s, access: { _tag: "Terminal", state: "update_required" } })
        )
        yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
        expect(entries.size).toBe(0)
      }).pipe(Effect.provide(layer))
    }))
})
