/**
 * The committed mutation result (`scripts/mutate/incremental.json`, Stryker's incremental file: a
 * mutation-testing-report-schema report whose every file carries the `source` it was mutated from) and
 * what the CI check and `pnpm mutate` read from it.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { readdirSync } from "node:fs"
import * as path from "node:path"

/** The committed result, relative to the repository root. */
export const incrementalFile = "scripts/mutate/incremental.json"

/** The lowest score (killed + timed out over every mutant not ignored) a core module may have. */
export const threshold = 90

const MutantResult = Schema.Struct({
  status: Schema.Literal(
    "Killed",
    "Survived",
    "NoCoverage",
    "CompileError",
    "RuntimeError",
    "Timeout",
    "Ignored",
    "Pending"
  ),
  statusReason: Schema.optional(Schema.String)
})

const FileResult = Schema.Struct({
  source: Schema.String,
  mutants: Schema.Array(MutantResult)
})

/** The part of a mutation-testing-report-schema report the check needs (other fields are allowed). */
export const Report = Schema.Struct({
  files: Schema.Record({ key: Schema.String, value: FileResult })
})

export type Report = typeof Report.Type

/** Decodes a parsed report; the error says where it breaks the schema. */
export const decodeReport = (json: unknown): Either.Either<Report, string> =>
  Schema.decodeUnknownEither(Report)(json).pipe(
    Either.mapLeft((error) => ParseResult.TreeFormatter.formatErrorSync(error))
  )

/**
 * The SDK core modules, as paths relative to the repository root with `/`: every
 * `packages/a2a/src/internal/*.ts` except the pure helpers `sha256.ts` and `base64.ts`, and
 * `packages/a2a/src/RuntimeAccessCache.ts`.
 */
export const coreModules = (root: string): ReadonlyArray<string> => [
  ...readdirSync(path.join(root, "packages/a2a/src/internal"))
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts") && name !== "sha256.ts" && name !== "base64.ts")
    .sort()
    .map((name) => `packages/a2a/src/internal/${name}`),
  "packages/a2a/src/RuntimeAccessCache.ts"
]

/** One module's counts in a report. */
export interface Counts {
  readonly mutants: number
  readonly killed: number
  readonly timeout: number
  readonly survived: number
  readonly noCoverage: number
  /** `Ignored` with a reason from a `// Stryker disable` comment: marked equivalent on its line. */
  readonly equivalent: number
  /** `Ignored` because the mutant runs only while the module loads (`ignoreStatic`). */
  readonly static: number
  /** Mutants that did not compile or crashed the run: not counted in the score, as Stryker does. */
  readonly invalid: number
}

const staticReason = /^Static mutant/

export const countsOf = (file: typeof FileResult.Type): Counts => {
  const count = (predicate: (m: typeof MutantResult.Type) => boolean) => file.mutants.filter(predicate).length
  return {
    mutants: file.mutants.length,
    killed: count((m) => m.status === "Killed"),
    timeout: count((m) => m.status === "Timeout"),
    survived: count((m) => m.status === "Survived"),
    noCoverage: count((m) => m.status === "NoCoverage"),
    equivalent: count((m) => m.status === "Ignored" && !staticReason.test(m.statusReason ?? "")),
    static: count((m) => m.status === "Ignored" && staticReason.test(m.statusReason ?? "")),
    invalid: count((m) => m.status === "CompileError" || m.status === "RuntimeError")
  }
}

/**
 * Killed plus timed out over every mutant that was tested or should have been (survived, no coverage): the
 * ignored (marked equivalent, static) and the invalid ones are left out. 100 when nothing is left.
 */
export const scoreOf = (counts: Counts): number => {
  const detected = counts.killed + counts.timeout
  const scored = detected + counts.survived + counts.noCoverage
  return scored === 0 ? 100 : (100 * detected) / scored
}
