/**
 * Interoperability with the official A2A v1 server (`@a2a-js/sdk@1.3.0`), through the SDK and the built CLI.
 * Every body on the wire is checked against the A2A v1 schema (see support/scenario.ts).
 */
import { describe, expect, it } from "vitest"
import { cliScenarios, sdkScenarios } from "./scenarios/interop.js"
import { runScenario } from "./support/scenario.js"
import { Captured } from "./support/secrets.js"

describe("interop with @a2a-js/sdk@1.3.0 (SDK)", () => {
  for (const scenario of sdkScenarios) {
    it(scenario.name, async () => {
      const captured = new Captured()
      await runScenario(scenario, captured)
      expect(captured.leaks()).toEqual([])
    }, scenario.timeoutMs ?? 15_000)
  }
})

describe("interop with @a2a-js/sdk@1.3.0 (CLI)", () => {
  for (const scenario of cliScenarios) {
    it(scenario.name, async () => {
      const captured = new Captured()
      await runScenario(scenario, captured)
      expect(captured.leaks()).toEqual([])
    }, scenario.timeoutMs ?? 30_000)
  }
})
