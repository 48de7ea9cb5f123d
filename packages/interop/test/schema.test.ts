import { A2ASchema } from "@mainsequence/a2a-testing"
import * as Fs from "node:fs"
import { describe, expect, it } from "vitest"
import { problemsOf, sendMessageRequestProblems } from "./support/conformance.js"

const validateSendMessageRequest = (body: unknown) => problemsOf(A2ASchema.validateSendMessageRequest(body))
const validateMessage = (message: unknown) =>
  problemsOf(A2ASchema.validateMessage(message, { allowUnknownFields: true }))
const validateTask = (task: unknown) => problemsOf(A2ASchema.validateTask(task, { allowUnknownFields: true }))

/** The standard `Send Message Configuration` of the one vendored bundle. */
const standardConfiguration = (): Record<string, unknown> => {
  const bundle = JSON.parse(Fs.readFileSync(A2ASchema.bundleUrl, "utf8")) as {
    definitions: Record<string, Record<string, unknown>>
  }
  return bundle.definitions["Send Message Configuration"] ?? {}
}

const uid = "0b2701a1-e777-4cfe-8437-b94025f00069"

/** SPEC §2 / ADR-0029 "Plain text". */
const plain = {
  message: { messageId: "msg-client-uuid-1", role: "ROLE_USER", contextId: uid, parts: [{ text: "What can you do?" }] },
  configuration: { acceptedOutputModes: ["text/plain"], responseKind: "message" }
}

/** SPEC §2 / ADR-0029 "Strict dictionary". */
const strict = {
  message: {
    messageId: "msg-client-json-1",
    role: "ROLE_USER",
    contextId: uid,
    parts: [{ text: "Return a JSON dictionary with keys ok and answer." }]
  },
  configuration: { acceptedOutputModes: ["application/json"], responseKind: "message" },
  metadata: {
    "https://mainsequence.ai/a2a/extensions/output-contract/v1": {
      response_format: { type: "dictionary", strict: true },
      jsonRepairAttempts: 3
    }
  }
}

const withAttachment = {
  message: {
    ...plain.message,
    parts: [{ text: "Summarise" }, { raw: "JVBERi0xLjQK", filename: "a.pdf", mediaType: "application/pdf" }]
  },
  configuration: { acceptedOutputModes: ["text/plain"], responseKind: "task" }
}

describe("A2ASchema (@mainsequence/a2a-testing) as the interop wire check uses it", () => {
  it("accepts SPEC §2's example bodies", () => {
    expect(validateSendMessageRequest(plain)).toEqual([])
    expect(validateSendMessageRequest(strict)).toEqual([])
    expect(validateSendMessageRequest(withAttachment)).toEqual([])
    expect(sendMessageRequestProblems(JSON.stringify(plain))).toEqual([])
  })

  it("allows configuration.responseKind only in the Main Sequence profile", () => {
    // the standard definition does not list it and allows nothing else…
    const standard = standardConfiguration()
    expect(standard["additionalProperties"]).toBe(false)
    expect(Object.keys(standard["properties"] as object)).not.toContain("responseKind")
    // …the Main Sequence profile allows exactly that one field, with its two values
    const { responseKind: _, ...standardConfig } = plain.configuration
    expect(validateSendMessageRequest({ ...plain, configuration: standardConfig })).toEqual([])
    expect(validateSendMessageRequest({ ...plain, configuration: { ...standardConfig, responseKind: "task" } }))
      .toEqual([])
  })

  it("rejects a body with blocking, returnImmediately-typos, kind, or an unknown responseKind", () => {
    const blocking = { ...plain, configuration: { ...plain.configuration, blocking: true } }
    expect(validateSendMessageRequest(blocking).join()).toMatch(/blocking/)
    const kind = { ...plain, message: { ...plain.message, kind: "message" } }
    expect(validateSendMessageRequest(kind).join()).toMatch(/kind/)
    const topLevel = { ...plain, responseKind: "message" }
    expect(validateSendMessageRequest(topLevel).join()).toMatch(/responseKind/)
    const badKind = { ...plain, configuration: { ...plain.configuration, responseKind: "stream" } }
    expect(validateSendMessageRequest(badKind)).not.toEqual([])
  })

  it("rejects internal roles, non-base64 raw and non-JSON bytes", () => {
    const requester = { ...plain, message: { ...plain.message, role: "ROLE_REQUESTER" } }
    expect(validateSendMessageRequest(requester)).not.toEqual([])
    const badRaw = { ...plain, message: { ...plain.message, parts: [{ raw: "not base64!", filename: "x" }] } }
    expect(validateSendMessageRequest(badRaw).join()).toMatch(/raw/)
    expect(sendMessageRequestProblems("{not json").join()).toMatch(/not UTF-8 JSON/)
  })

  it("accepts Messages and Tasks with unknown extra fields, rejects wrong types", () => {
    const message = { messageId: "m1", role: "ROLE_AGENT", contextId: uid, parts: [{ text: "hi", extra: 1 }], x: {} }
    expect(validateMessage(message)).toEqual([])
    expect(validateMessage({ ...message, role: "ROLE_RESPONDER" })).not.toEqual([])
    expect(validateMessage({ ...message, parts: "hi" })).not.toEqual([])
    const task = {
      id: "t1",
      contextId: uid,
      status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-11-29T20:00:00.123Z", message },
      artifacts: [{ artifactId: "a1", parts: [{ data: { ok: true } }] }],
      unknown: true
    }
    expect(validateTask(task)).toEqual([])
    expect(validateTask({ ...task, status: { state: "DONE" } })).not.toEqual([])
    expect(validateTask({ ...task, status: { state: "TASK_STATE_WORKING", timestamp: "yesterday" } })).not.toEqual([])
  })
})
