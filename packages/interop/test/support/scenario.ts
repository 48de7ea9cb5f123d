/**
 * A scenario is a self-contained test body (it starts and stops its own servers) that records everything it
 * saw into a {@link Captured}. The interop and fault suites run each scenario as its own named test; the
 * secrecy suite runs all of them again and scans what they captured for tokens.
 *
 * After a scenario, every complete `message:send` body any of its servers received must validate against
 * the A2A v1 schema (Main Sequence profile): a body that breaks it fails the scenario that produced it.
 */
import { sendMessageRequestProblems } from "./conformance.js"
import type { Captured } from "./secrets.js"
import type { RecordedRequest } from "./wire.js"

export interface ScenarioContext {
  readonly captured: Captured
  /** Registers a cleanup (run in reverse order, whatever happens). */
  readonly defer: (cleanup: () => Promise<void> | void) => void
  /** Registers a server's request log for the wire check. */
  readonly watch: (requests: ReadonlyArray<RecordedRequest>) => void
}

export interface Scenario {
  readonly name: string
  /** Budget for the whole scenario in ms (vitest timeout). */
  readonly timeoutMs?: number
  readonly run: (ctx: ScenarioContext) => Promise<void>
}

/** Problems of every complete `message:send` body in `logs`. */
export const wireProblems = (logs: ReadonlyArray<ReadonlyArray<RecordedRequest>>): ReadonlyArray<string> =>
  logs.flatMap((log) =>
    log.filter((r) => r.method === "POST" && r.path.endsWith("/message:send") && r.complete).flatMap((r) =>
      sendMessageRequestProblems(r.body).map((p) => `${r.server} ${r.path}: ${p}`)
    )
  )

export const runScenario = async (scenario: Scenario, captured: Captured): Promise<void> => {
  const cleanups: Array<() => Promise<void> | void> = []
  const logs: Array<ReadonlyArray<RecordedRequest>> = []
  try {
    await scenario.run({ captured, defer: (c) => cleanups.push(c), watch: (r) => logs.push(r) })
    const problems = wireProblems(logs)
    if (problems.length > 0) {
      throw new Error(`a message:send body breaks the A2A v1 schema:\n  - ${problems.join("\n  - ")}`)
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup()
  }
}

/** Runs scenarios with at most `concurrency` at once; collects failures instead of stopping at the first. */
export const runAll = async (
  scenarios: ReadonlyArray<Scenario>,
  captured: Captured,
  concurrency: number
): Promise<ReadonlyArray<string>> => {
  const failures: Array<string> = []
  const queue = [...scenarios]
  const worker = async () => {
    for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
      try {
        await runScenario(s, captured)
      } catch (error) {
        failures.push(`${s.name}: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return failures
}
