/**
 * CI check: the committed mutation result is the result of the code. For every SDK core module
 * (`coreModules`) the committed report (`scripts/mutate/incremental.json`) must hold the module with the
 * exact source it has now, and the module's score must be at least 90 %. Stryker is not run: a change to
 * the core lands with its fresh result (`pnpm mutate --mutate <module>` refreshes the file; see the README,
 * "Contributing: mutation score").
 *
 * `node scripts/dist/mutate/check.js [report.json]` — prints one line per module; exits 1 naming every
 * module that is stale, missing or below the threshold.
 */
import * as Either from "effect/Either"
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { coreModules, countsOf, decodeReport, incrementalFile, type Report, scoreOf, threshold } from "./report.js"

/** What the check found for one module. */
export interface ModuleResult {
  readonly module: string
  /** Undefined when the module is in the report with its current source. */
  readonly problem: string | undefined
  readonly line: string
}

/**
 * Checks `report` against the current `sources` (module path → its text now). Pure: the CLI below reads
 * the files, the tests hand in their own.
 */
export const checkReport = (
  report: Report,
  sources: ReadonlyMap<string, string>,
  minimum: number = threshold
): ReadonlyArray<ModuleResult> =>
  [...sources].map(([module, source]): ModuleResult => {
    const file = report.files[module]
    if (file === undefined) {
      const problem = `${module}: not in the committed mutation result; run \`pnpm mutate --mutate ${module}\``
      return { module, problem, line: problem }
    }
    if (file.source !== source) {
      const problem =
        `${module}: changed since its committed mutation result (the report holds another source); run \`pnpm mutate --mutate ${module}\``
      return { module, problem, line: problem }
    }
    const counts = countsOf(file)
    const score = scoreOf(counts)
    const line = `${module}: ${
      score.toFixed(1)
    } % (${counts.mutants} mutants: ${counts.killed} killed, ${counts.timeout} timed out, ${counts.survived} survived, ${counts.noCoverage} no coverage, ${counts.equivalent} marked equivalent, ${counts.static} static)`
    return score < minimum
      ? { module, problem: `${module}: mutation score ${score.toFixed(1)} % is below ${minimum} %`, line }
      : { module, problem: undefined, line }
  })

/** Reads and decodes a report file; a message naming the file when it is missing or not a report. */
export const readReport = (file: string): Either.Either<Report, string> => {
  if (!existsSync(file)) return Either.left(`${file}: no committed mutation result; run \`pnpm mutate\``)
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, "utf8"))
  } catch (error) {
    return Either.left(`${file}: not JSON (${String(error)})`)
  }
  return Either.mapLeft(decodeReport(json), (issue) => `${file}: not a mutation report: ${issue}`)
}

/** Runs the check on the repository at `root`: the lines to print and whether it passed. */
export const run = (root: string, reportFile: string = path.join(root, incrementalFile)) => {
  const sources = new Map(coreModules(root).map((module) => [module, readFileSync(path.join(root, module), "utf8")]))
  return Either.match(readReport(reportFile), {
    onLeft: (problem) => ({ ok: false, lines: [problem] }),
    onRight: (report) => {
      const results = checkReport(report, sources)
      const problems = results.flatMap((result) => result.problem === undefined ? [] : [result.problem])
      return {
        ok: problems.length === 0,
        lines: [
          ...results.map((result) => result.line),
          problems.length === 0
            ? `mutation check: all ${results.length} core modules are covered by the committed result, each at ${threshold} % or more`
            : `mutation check failed for ${problems.length} of ${results.length} core modules:\n  ${
              problems.join("\n  ")
            }`
        ]
      }
    }
  })
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL("../../../", import.meta.url))
  const { lines, ok } = run(root, process.argv[2] === undefined ? undefined : path.resolve(process.argv[2]))
  for (const line of lines) console.log(line)
  process.exitCode = ok ? 0 : 1
}
