import { describe, expect, it } from "@effect/vitest"
import { SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import { printedMessage, printedTask, violationsIn } from "./support/schemaConformance.js"

const session = {
  sessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
  agentUid: "1c2d3e4f-0000-4000-8000-000000000001",
  serviceUid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"
}

// The checks the CLI suites rely on must themselves catch a non-conformant value.
describe("schema conformance helpers", () => {
  it.effect("violationsIn reports a message:send body that breaks A2A v1", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.make({ sessions: [session] })
      const body = {
        message: { messageId: "m-1", role: "ROLE_USER", contextId: session.sessionUid, parts: [{ text: "hi" }] },
        configuration: { blocking: true }
      }
      yield* platform.handle({
        method: "POST",
        url: `${platform.baseUrl}/runtimes/${session.serviceUid}/api/a2a/v1/message:send`,
        headers: { "content-type": "application/a2a+json", "a2a-version": "1.0" },
        body: new TextEncoder().encode(JSON.stringify(body))
      })
      const violations = violationsIn(yield* platform.requestLog)
      expect(violations).toHaveLength(1)
      expect(violations[0]?.schemaViolation).toMatch(/configuration\.blocking: unknown field/)
    }))

  it("printedMessage / printedTask check the value printed on stdout", () => {
    const message = { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "Hi" }], kept: true }
    expect(printedMessage(JSON.stringify({ message }, null, 2))).toEqual(message)
    expect(() => printedMessage(JSON.stringify({ message: { ...message, role: "agent" } }))).toThrow(/not A2A v1/)
    expect(() => printedMessage(JSON.stringify({ task: message }))).toThrow()
    const task = { id: "t-1", contextId: "c", status: { state: "TASK_STATE_WORKING" } }
    expect(printedTask(JSON.stringify({ task }))).toEqual(task)
    expect(() => printedTask(JSON.stringify({ task: { ...task, status: { state: "done" } } }))).toThrow(/not A2A v1/)
  })
})
