import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import type { SendA2AMessageInput } from "../src/A2AClient.js"
import { client, platform, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

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
      for (const id of [7, "   ", undefined]) {
        for (const call of [a2a.getA2ATask, a2a.waitForA2ATask, a2a.cancelA2ATask]) {
          const error = yield* Effect.flip(call(sessionUid, id as unknown as string))
          expect({ ...error }).toEqual({ _tag: "A2AInputError", field: "taskId", reason: "must not be blank" })
        }
      }
      yield* nothingSent
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a follow-up taskId that is not a string or blank → A2AInputError taskId quoting it", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      for (const [taskId, got] of [[5, "5"], [" ", "\" \""]] as const) {
        const error = yield* Effect.flip(
          a2a.sendA2AMessage(sessionUid, untyped({ message: "hi", responseKind: "task", taskId }))
        )
        expect({ ...error }).toEqual({
          _tag: "A2AInputError",
          field: "taskId",
          reason: `must not be blank (got ${got})`
        })
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
        reason: "must not hold a blank Task id (at index 0)"
      })
      yield* nothingSent
      // a valid list is copied as given
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", referenceTaskIds: ["t-1", " t-2"] })
      expect((yield* runtimeSends).map((s) => JSON.parse(s.bodyText).message.referenceTaskIds)).toEqual([
        ["t-1", " t-2"]
      ])
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))

  it.effect("a blank or non-string message → A2AInputError message; a messageId that is not a string too", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      for (const message of [undefined, 12, " \n "]) {
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, untyped({ message })))
        expect({ ...error }).toEqual({ _tag: "A2AInputError", field: "message", reason: "must not be blank" })
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
