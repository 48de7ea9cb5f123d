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
  readonly targets: ReadonlyArray<Target>
  /** Panels of the chart (docs/benchmarks.svg): ours against the official client and the floor. */
  readonly chart?: ReadonlyArray<ChartPanel>
}

export interface Target {
  /** What is judged (the row and the quantity). */
  readonly target: string
  readonly met: boolean | undefined
  /** Free text: the numbers behind the verdict. */
  readonly detail: string
  /** This run's figure, formatted. */
  readonly figure?: string
  /** The target, formatted (`≤ 100 B`, `< official's 1.10 ms`). */
  readonly goal?: string
  /** Figure ÷ the target's bound (≤ 1 is within it), when the target is a bound. */
  readonly ratio?: number
  /** The same figure of the least idiomatic Effect client (`sides/idiomatic.ts`) against the same bound. */
  readonly reference?: string
}

/** A reference figure and its ratio to the target's bound, with whether it is within it. */
export const referenceOf = (figure: string, ratio: number): string =>
  `${figure} (${ratio.toFixed(2)}: ${ratio <= 1 ? "within" : "over"})`

export interface ChartPanel {
  readonly title: string
  readonly unit: "ms" | "µs" | "bytes" | "count" | "per-s"
  readonly bars: ReadonlyArray<{ readonly label: string; readonly value: number }>
  /** The target's bound, drawn as a line. */
  readonly limit?: { readonly label: string; readonly value: number } | undefined
}
