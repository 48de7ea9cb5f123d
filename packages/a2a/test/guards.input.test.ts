import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SendA2AMessageInput } from "../src/A2AClient.js"
import { client, platform, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const contract = "https://mainsequence.ai/a2a/extensions/output-contract/v1"

// SPEC §2, §9: the body on the wire, byte for byte; bad input is a clear error and nothing is sent.
describe("guards: request input", () => {
  it.effect("an explicit responseKind \"message\" sends the default body, byte for byte", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", responseKind: "message" })
      expect((yield* runtimeSends).map((s) => s.bodyText)).toEqual([
        JSON.stringify({
          message: { messageId: "m-1", role: "ROLE_USER", contextId: sessionUid, parts: [{ text: "hi" }] },
          configuration: { acceptedOutputModes: ["text/plain"], responseKind: "message" }
        })
      ])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("jsonRepairAttempts 1 is allowed and sent as given", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      yield* a2a.sendA2AMessage(sessionUid, {
        message: "hi",
        messageId: "m-1",
        strictDictionary: true,
        jsonRepairAttempts: 1
      })
      expect((yield* runtimeSends).map((s) => s.bodyText)).toEqual([
        JSON.stringify({
          message: { messageId: "m-1", role: "ROLE_USER", contextId: sessionUid, parts: [{ text: "hi" }] },
          configuration: { acceptedOutputModes: ["application/json"], responseKind: "message" },
          metadata: { [contract]: { response_format: { type: "dictionary", strict: true }, jsonRepairAttempts: 1 } }
        })
      ])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a '/' in messageId, and non-string inputs from JavaScript callers: A2AInputError, no request", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const p = yield* platform
      // what an untyped JavaScript caller can pass
      const untyped = (input: Record<string, unknown>) => input as unknown as SendA2AMessageInput
      const cases: ReadonlyArray<readonly [SendA2AMessageInput, string]> = [
        [{ message: "hi", messageId: "a/b" }, "messageId"],
        [untyped({ message: "hi", messageId: 42 }), "messageId"],
        [untyped({ message: 42 }), "message"],
        [untyped({ message: "hi", responseKind: 1 }), "responseKind"],
        [untyped({ message: "hi", strictDictionary: true, jsonRepairAttempts: "3" }), "jsonRepairAttempts"]
      ]
      for (const [input, field] of cases) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, input))
        expect([input, error]).toMatchObject([input, { _tag: "A2AInputError", field }])
      }
      expect(yield* p.requestLog).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})
