/**
 * What every benchmark gets from `main.ts`, and what it gives back.
 */
import type { ServerHandle } from "./child.js"

export interface BenchContext {
  readonly short: boolean
  /** The minimal platform, in its own process. */
  readonly server: ServerHandle
  /** Whether the SDK (`@mainsequence/a2a/node`) is built and importable. */
  readonly sdkAvailable: boolean
  /** Whether `@mainsequence/a2a-testing` is built. */
  readonly testingAvailable: boolean
  /** Whether the CLI and the reference platform are built and importable. */
  readonly cliAvailable: boolean
  readonly log: (line: string) => void
}

export interface Section {
  readonly id: string
  readonly title: string
  /** Markdown: tables and short notes. */
  readonly body: string
  /** Raw numbers, for the JSON report. */
  readonly data: unknown
  /** Target checks: description, met? (undefined = not measured). */
  readonly targets: ReadonlyArray<
    { readonly target: string; readonly met: boolean | undefined; readonly detail: string }
  >
}
