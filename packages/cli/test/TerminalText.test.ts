import { describe, expect, it } from "@effect/vitest"
import { A2AError } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { report } from "../src/Failure.js"
import { Output, renderAnswer } from "../src/Output.js"
import { plainLine } from "../src/Progress.js"
import { json, oneLine, printable } from "../src/TerminalText.js"

// What a hostile platform or Agent could make a terminal do: clear it, rewrite the line, ring, set the
// clipboard (OSC 52), reverse what follows (U+202E), start a control sequence with the 8-bit CSI (U+009B).
const hostile =
  "one\r\nFAKE: exit 0\rOVER\u0007\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u202egnp.exe\u009b31m\u0000\u007f\tend"
const terminalWouldAct = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u
/** Whether a document's text has anything but its own line breaks that a terminal would act on. */
const documentWouldAct = (text: string): boolean => terminalWouldAct.test(text.replaceAll("\n", ""))

describe("text from the platform reaches a terminal as text (hostile answers)", () => {
  it("oneLine: escape sequences and controls gone, line breaks and tabs one space", () => {
    expect(oneLine(hostile)).toBe("one FAKE: exit 0 OVERgnp.exe end")
    expect(oneLine("a\u2028b\u2029c\u0085d\u000be\u000cf")).toBe("a b c d e f")
    expect(oneLine("  plain text, ünïcode ✓ 👨‍👩‍👧  ")).toBe("plain text, ünïcode ✓ 👨‍👩‍👧")
  })

  it("printable: the lines and tabs kept, nothing else a terminal acts on", () => {
    expect(printable(hostile)).toBe("one\nFAKE: exit 0\nOVERgnp.exe\tend")
    expect(printable("Report\n\tline two\n")).toBe("Report\n\tline two\n")
  })

  it("a text made to overflow an escape-sequence pattern's stack (16 MiB in one sequence) is printable", () => {
    const parameters = ";a".repeat(8 * 1024 * 1024)
    expect(printable(`\u001b]${parameters}x`)).toBe(`${parameters}x`)
    expect(oneLine(`\u001b[${"1;".repeat(8 * 1024 * 1024)}`)).toBe("1;".repeat(8 * 1024 * 1024))
    expect(printable(`a\u001b]8;;${"u".repeat(16 * 1024 * 1024)}\u001b\\b\u001b[1;31mc\u001b(Bd`)).toBe("abcd")
  })

  it("json: the same document, with what JSON leaves raw written as escapes", () => {
    const value = { text: hostile, uid: "u-1" }
    const text = json(value)
    expect(documentWouldAct(text)).toBe(false)
    expect(JSON.parse(text)).toEqual(value)
    expect(text).toBe(
      JSON.stringify(value, null, 2).replace("\u202e", "\\u202e").replace("\u009b", "\\u009b")
        .replace("\u007f", "\\u007f")
    )
  })

  it("an Agent's answer: --output text printable, --output json escaped, both the same text", () => {
    const answer = {
      messageId: "m-1",
      role: "ROLE_AGENT" as const,
      contextId: "0b2701a1-e777-4cfe-8437-b94025f00069",
      parts: [{ text: hostile }]
    }
    expect(renderAnswer(answer, "text")).toBe(printable(hostile))
    const document = renderAnswer(answer, "json")
    expect(documentWouldAct(document)).toBe(false)
    expect(JSON.parse(document)).toEqual({ message: answer })
  })

  it("a progress line: the backend's state, presence detail and notice each one safe line", () => {
    const line = plainLine({
      _tag: "RuntimeAccessProgress",
      agentSessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
      messageId: "msg-1",
      state: "waking\u001b[2J",
      notice: { title: "Waking\nup", message: hostile },
      presencePhase: undefined,
      presenceDetail: "Loading\r\nthe Agent",
      retryAfterMs: 1000,
      attempt: 1
    })
    expect(line).toBe(
      "Agent runtime waking — Loading the Agent. Waking up: one FAKE: exit 0 OVERgnp.exe end. Next check in 1 s"
    )
  })

  it.effect("a failure: one safe line on stderr, the document on stdout without raw controls", () =>
    Effect.gen(function*() {
      let stderr = ""
      let stdout = ""
      const error = new A2AError.ServerError({
        agentSessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
        messageId: "msg-1",
        method: "POST",
        url: "http://x/api/a2a/v1/message:send",
        status: 500,
        origin: "runtime",
        detail: hostile
      })
      const code = yield* report(Exit.fail(error), { format: "json" }).pipe(
        Effect.provide(Layer.succeed(Output, {
          stdout: (text) => Effect.sync(() => void (stdout += text)),
          stderr: (text) => Effect.sync(() => void (stderr += text)),
          stderrIsTTY: false,
          stderrColumns: undefined
        }))
      )
      expect(code).toBe(1)
      const lines = stderr.split("\n")
      // The SDK already drops the control characters of its messages; the escape sequences' rest is plain text.
      expect(lines).toEqual([expect.stringContaining(": one FAKE: exit 0 OVER"), expect.any(String), ""])
      expect(lines.every((line) => !terminalWouldAct.test(line))).toBe(true)
      expect(documentWouldAct(stdout)).toBe(false)
      expect(JSON.parse(stdout)).toMatchObject({ error: { details: { detail: hostile } } })
    }))
})
