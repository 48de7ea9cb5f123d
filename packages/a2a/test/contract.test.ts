import { describe, expect, it } from "@effect/vitest"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as A2AClient from "../src/A2AClient.js"
import * as A2AProtocol from "../src/A2AProtocol.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import { client, failFor, resolves, runFor, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

describe("diagnostic fields never decide (SPEC §3)", () => {
  for (const odd of ["string", "array", "mistyped"] as const) {
    it.effect(`an admitted answer with a ${odd} presence, notice and operation still sends`, () =>
      Effect.gen(function*() {
        const a2a = yield* client
        const answer = yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
        expect(answer).toMatchObject({ role: "ROLE_AGENT", parts: [{ text: "You said: hi" }] })
        expect(yield* runtimeSends).toHaveLength(1)
      }).pipe(Effect.provide(simulated({ sessions: [session({ backend: { oddDiagnostics: odd } })] }))))

    it.effect(`a transient answer with a ${odd} presence still waits, then sends`, () =>
      Effect.gen(function*() {
        const a2a = yield* client
        const { error, millis } = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "10 seconds")
        expect(error).toBeUndefined()
        expect(millis).toBe(3000)
        expect(yield* resolves).toHaveLength(4)
        expect(yield* runtimeSends).toHaveLength(1)
      }).pipe(Effect.provide(simulated({
        sessions: [session({
          access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 3000 }] },
          backend: { oddDiagnostics: odd }
        })]
      }))))
  }

  it.effect("a terminal answer with mistyped diagnostics fails as unavailable, keeping what has the expected shape", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "1 second")
      expect(error._tag).toBe("AgentRuntimeUnavailableError")
      if (error._tag !== "AgentRuntimeUnavailableError") return
      expect(error.state).toBe("update_required")
      expect(error.notice).toEqual({ message: "Maintenance tonight." })
      expect(error.detail).toBeUndefined()
      expect(error.presenceDetail).toBeUndefined()
      expect(error.message).toContain("(state update_required): Maintenance tonight.")
      expect(yield* runtimeSends).toHaveLength(0)
    }).pipe(Effect.provide(simulated({
      sessions: [
        session({ access: { _tag: "Terminal", state: "update_required" }, backend: { oddDiagnostics: "mistyped" } })
      ]
    }))))

  it.effect("a deciding field that breaks the contract is still a contract error and nothing is sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "1 second")
      expect(error).toMatchObject({ _tag: "BackendContractError" })
      expect(yield* runtimeSends).toHaveLength(0)
    }).pipe(Effect.provide(simulated({
      sessions: [
        session({
          backend: { extraResolveFields: {}, oddDiagnostics: "string" },
          access: { _tag: "ContractBreaking", violation: "mode_not_token" }
        })
      ]
    }))))
})

describe("proto-JSON null is absent (SPEC §4, §7)", () => {
  it.effect("a Message answer whose optional fields are null is accepted and returned as it came", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const answer = yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
      expect(answer).toMatchObject({
        role: "ROLE_AGENT",
        contextId: sessionUid,
        taskId: null,
        metadata: null,
        extensions: null,
        referenceTaskIds: null,
        parts: [{ text: "You said: hi", metadata: null }]
      })
      expect(A2AProtocol.textOf(answer)).toEqual(["You said: hi"])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Answer", nullFields: true } } })]
    }))))

  it.effect("a Task answer with null optional fields and a status message without messageId is accepted as it came", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const task = yield* a2a.sendA2AMessage(sessionUid, { message: "hi", responseKind: "task" })
      expect(task).toMatchObject({
        contextId: sessionUid,
        artifacts: null,
        metadata: null,
        status: {
          state: "TASK_STATE_INPUT_REQUIRED",
          message: {
            messageId: null,
            taskId: null,
            metadata: null,
            parts: [{ text: "More input is needed to go on." }]
          }
        }
      })
      expect(A2AProtocol.textOf(task)).toEqual(["More input is needed to go on."])
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        agent: {
          taskSupport: true,
          task: { queuedMs: 0, outcome: "input_required" },
          behaviour: { _tag: "Answer", nullFields: true }
        }
      })]
    }))))
})

describe("read bounds the wait for the response head (SPEC §5)", () => {
  it.effect("[2, 0.4]: a runtime that accepts the message and never answers ends the call after 0.4 s, the read limit", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: [2, 0.4] }),
        "1 minute"
      )
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        step: "send-message",
        limit: "read",
        seconds: 0.4,
        messageMayHaveBeenSent: true
      })
      expect(error.message).toContain("0.4 s read limit ran out during send-message")
      expect(millis).toBe(400)
      expect(yield* runtimeSends).toHaveLength(1)
    }).pipe(Effect.provide(simulated({ sessions: [session({ agent: { behaviour: { _tag: "Stall" } } })] }))))

  it.effect("a generic HttpClient that cannot tell the phases apart falls back to connect + read for the head", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "hi", timeout: [2, 0.4] }),
        "1 minute"
      )
      // connect + read is the whole budget here, so the budget is what ends the call
      expect(error).toMatchObject({ _tag: "A2ATimeoutError", step: "send-message", limit: "total", seconds: 2.4 })
      expect(millis).toBe(2400)
    }).pipe(Effect.provide(
      A2AClient.layer({
        backendUrl: SimulatedPlatform.defaultBaseUrl,
        accessToken: SimulatedPlatform.defaultUserAccessToken
      }).pipe(
        Layer.provide(Layer.merge(
          layerTest({ sessions: [session({ agent: { behaviour: { _tag: "Stall" } } })] }),
          RuntimeAccessCache.layerMemory
        )),
        Layer.orDie
      )
    )))
})
