import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Random from "effect/Random"
import * as Attachment from "../src/Attachment.js"
import { encodeBase64 } from "../src/internal/base64.js"
import { buildRequestBody, validateSessionUid, validateTaskId } from "../src/internal/buildRequestBody.js"

const uid = "0b2701a1-e777-4cfe-8437-b94025f00069"
const decode = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes))

describe("buildRequestBody", () => {
  it.effect("serialises the exact body of SPEC §2 with the caller's trimmed messageId", () =>
    Effect.gen(function*() {
      const body = yield* buildRequestBody(uid, { message: "What can you do?", messageId: "  msg-client-uuid-1 " })
      expect(body.messageId).toBe("msg-client-uuid-1")
      expect(new TextDecoder().decode(body.bytes)).toBe(
        JSON.stringify({
          message: {
            messageId: "msg-client-uuid-1",
            role: "ROLE_USER",
            contextId: uid,
            parts: [{ text: "What can you do?" }]
          },
          configuration: { acceptedOutputModes: ["text/plain"], responseKind: "message" }
        })
      )
    }))

  it.effect("generates msg-<uuid v4> when no messageId is given, deterministic under a seeded Random", () =>
    Effect.gen(function*() {
      const a = yield* buildRequestBody(uid, { message: "hi" }).pipe(Effect.withRandom(Random.make("seed")))
      const b = yield* buildRequestBody(uid, { message: "hi" }).pipe(Effect.withRandom(Random.make("seed")))
      expect(a.messageId).toMatch(/^msg-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(b.messageId).toBe(a.messageId)
      const c = yield* buildRequestBody(uid, { message: "hi" })
      expect(c.messageId).not.toBe(a.messageId)
      expect(decode(a.bytes)).toMatchObject({ message: { messageId: a.messageId } })
    }))

  it.effect("adds the strict dictionary metadata and application/json output mode", () =>
    Effect.gen(function*() {
      const body = yield* buildRequestBody(uid, { message: "json please", messageId: "m1", strictDictionary: true })
      expect(decode(body.bytes)).toEqual({
        message: { messageId: "m1", role: "ROLE_USER", contextId: uid, parts: [{ text: "json please" }] },
        configuration: { acceptedOutputModes: ["application/json"], responseKind: "message" },
        metadata: {
          "https://mainsequence.ai/a2a/extensions/output-contract/v1": {
            response_format: { type: "dictionary", strict: true },
            jsonRepairAttempts: 3
          }
        }
      })
      const five = yield* buildRequestBody(uid, { message: "x", strictDictionary: true, jsonRepairAttempts: 5 })
      expect(decode(five.bytes)).toMatchObject({
        metadata: { "https://mainsequence.ai/a2a/extensions/output-contract/v1": { jsonRepairAttempts: 5 } }
      })
    }))

  it.effect("never sends returnImmediately, blocking or kind; responseKind task is explicit", () =>
    Effect.gen(function*() {
      const body = yield* buildRequestBody(uid, { message: "x", responseKind: "task" })
      const text = new TextDecoder().decode(body.bytes)
      expect(text).not.toMatch(/returnImmediately|blocking|"kind"/)
      expect(decode(body.bytes)).toMatchObject({ configuration: { responseKind: "task" } })
      expect(text).not.toContain("metadata")
    }))

  it.effect("puts attachments as raw base64 parts after the text; 15 MiB exactly is allowed", () =>
    Effect.gen(function*() {
      const small = yield* Attachment.fromBytes("a.pdf", new Uint8Array([1, 2, 3]))
      const big = yield* Attachment.fromBytes(
        "big.bin",
        new Uint8Array(Attachment.maxBytes),
        "application/octet-stream"
      )
      const body = yield* buildRequestBody(uid, { message: "files", messageId: "m", attachments: [small, big] })
      const parts = (decode(body.bytes) as { message: { parts: Array<Record<string, string>> } }).message.parts
      expect(parts[0]).toEqual({ text: "files" })
      expect(parts[1]).toEqual({ raw: "AQID", filename: "a.pdf", mediaType: "application/pdf" })
      expect(parts[2]?.filename).toBe("big.bin")
      expect(parts[2]?.raw.length).toBe(Math.ceil(Attachment.maxBytes / 3) * 4)
    }))

  it.effect("refuses a file one byte over 15 MiB, naming the file and its size", () =>
    Effect.gen(function*() {
      const over = {
        filename: "huge.pdf",
        mediaType: "application/pdf",
        bytes: new Uint8Array(Attachment.maxBytes + 1)
      }
      const error = yield* Effect.flip(buildRequestBody(uid, { message: "x", attachments: [over] }))
      expect(error._tag).toBe("A2AInputError")
      expect(error.message).toContain("huge.pdf")
      expect(error.message).toContain(String(Attachment.maxBytes + 1))
      const viaBytes = yield* Effect.flip(Attachment.fromBytes("huge.pdf", over.bytes))
      expect(viaBytes.message).toContain("huge.pdf")
    }))

  it.effect("each bad input gets its own clear error", () =>
    Effect.gen(function*() {
      const fail = (input: Parameters<typeof buildRequestBody>[1]) =>
        Effect.map(Effect.flip(buildRequestBody(uid, input)), (e) => [e.field, e.message] as const)
      expect(yield* fail({ message: "   " })).toEqual(["message", "Invalid message: must not be blank"])
      expect((yield* fail({ message: "x", messageId: "has space" }))[0]).toBe("messageId")
      expect((yield* fail({ message: "x", messageId: "a".repeat(129) }))[0]).toBe("messageId")
      expect((yield* fail({ message: "x", messageId: "" }))[0]).toBe("messageId")
      expect((yield* fail({ message: "x", strictDictionary: true, jsonRepairAttempts: 0 }))[0]).toBe(
        "jsonRepairAttempts"
      )
      expect((yield* fail({ message: "x", strictDictionary: true, jsonRepairAttempts: 1.5 }))[1]).toContain(
        "integer"
      )
      // @ts-expect-error: an unknown response kind from an untyped caller
      expect((yield* fail({ message: "x", responseKind: "stream" }))[0]).toBe("responseKind")
      const noType = yield* Effect.flip(Attachment.fromBytes("notes.txt", new Uint8Array(1)))
      expect(noType.message).toContain("notes.txt needs a media type")
    }))

  it("validates session uids and task ids", () => {
    expect(Either.isRight(Effect.runSync(Effect.either(validateSessionUid(uid))))).toBe(true)
    const bad = Effect.runSync(Effect.flip(validateSessionUid("../../admin")))
    expect(bad.field).toBe("agentSessionUid")
    expect(Effect.runSync(Effect.flip(validateTaskId("  "))).field).toBe("taskId")
    expect(Effect.runSync(validateTaskId(" t-1 "))).toBe("t-1")
  })
})

describe("Attachment.fromPath", () => {
  const fs = (size: number, onRead: () => void) =>
    FileSystem.layerNoop({
      stat: () =>
        Effect.succeed({
          type: "File",
          size: FileSystem.Size(size)
        } as FileSystem.File.Info),
      readFile: () =>
        Effect.sync(() => {
          onRead()
          return new Uint8Array(size)
        })
    })

  it.effect("refuses an oversized file without reading it", () =>
    Effect.gen(function*() {
      let reads = 0
      const error = yield* Effect.flip(Attachment.fromPath("/tmp/big.pdf")).pipe(
        Effect.provide(fs(Attachment.maxBytes + 1, () => reads++))
      )
      expect(error.message).toContain("big.pdf")
      expect(reads).toBe(0)
    }))

  it.effect("reads a .pdf with application/pdf, other names need a media type", () =>
    Effect.gen(function*() {
      const pdf = yield* Attachment.fromPath("/tmp/doc.pdf").pipe(Effect.provide(fs(10, () => {})))
      expect(pdf).toMatchObject({ filename: "doc.pdf", mediaType: "application/pdf" })
      const csv = yield* Attachment.fromPath("/tmp/t.csv", "text/csv").pipe(Effect.provide(fs(10, () => {})))
      expect(csv.mediaType).toBe("text/csv")
      const error = yield* Effect.flip(Attachment.fromPath("/tmp/t.csv")).pipe(Effect.provide(fs(10, () => {})))
      expect(error._tag).toBe("A2AInputError")
    }))

  it.effect("a missing file is an A2AInputError naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Attachment.fromPath("/nope/missing.pdf")).pipe(
        Effect.provide(FileSystem.layerNoop({}))
      )
      expect(error._tag).toBe("A2AInputError")
      expect(error.message).toContain("/nope/missing.pdf")
    }))
})

describe("base64", () => {
  it("matches the standard encoding for every tail length", () => {
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 37) & 255)
    for (let n = 0; n < 40; n++) {
      expect(encodeBase64(bytes.subarray(0, n))).toBe(Encoding.encodeBase64(bytes.subarray(0, n)))
    }
  })
})
