/**
 * `pnpm mutate [stryker options]`: Stryker with `scripts/mutate/stryker.config.mjs`, after one step of
 * bookkeeping on the committed result (`scripts/mutate/incremental.json`).
 *
 * Stryker's incremental mode keeps the result of every file outside the run's `--mutate` scope and writes
 * it back with that file's current source, even when the file changed since (its mutants in unchanged
 * code are carried over, the changed code is never mutated). The committed result would then claim a
 * score for code that was not tested, and the CI check (`check.ts`), which compares sources, could not
 * tell. So before Stryker starts, every file of the committed result whose source changed and that this
 * run does not mutate is dropped from it: it stays missing until a run mutates it, and the check says so.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { incrementalFile } from "./report.js"

const config = "scripts/mutate/stryker.config.mjs"

/**
 * The files a run mutates, from its `--mutate` / `-m` options (comma-separated, a `:line-range` allowed),
 * or `undefined` for the configuration's own list (every core module).
 */
export const mutateScope = (args: ReadonlyArray<string>): ReadonlyArray<string> | undefined => {
  const values = args.flatMap((arg, i) =>
    arg === "--mutate" || arg === "-m"
      ? [args[i + 1] ?? ""]
      : arg.startsWith("--mutate=")
      ? [arg.slice("--mutate=".length)]
      : []
  )
  return values.length === 0
    ? undefined
    : values.flatMap((value) => value.split(",")).map((entry) => entry.replace(/:[\d:-]+$/, "").trim())
}

const Files = Schema.Struct({
  files: Schema.Record({ key: Schema.String, value: Schema.Struct({ source: Schema.String }) })
})
const isReport = Schema.is(Files)

/**
 * The committed result without the files that changed since and are not in `scope` (`undefined`: every
 * file is in scope), and the names of those dropped. Unknown fields are kept as they are.
 */
export const forgetStale = (
  report: Record<string, unknown> & typeof Files.Type,
  currentSource: (file: string) => string | undefined,
  scope: ReadonlyArray<string> | undefined
): { readonly report: Record<string, unknown>; readonly dropped: ReadonlyArray<string> } => {
  const inScope = (file: string) => scope === undefined || scope.includes(file)
  const dropped = Object.keys(report.files).filter((file) =>
    !inScope(file) && currentSource(file) !== report.files[file]?.source
  )
  const files = Object.fromEntries(Object.entries(report.files).filter(([file]) => !dropped.includes(file)))
  return { report: { ...report, files }, dropped }
}

/**
 * Stryker writes back only the files it has mutants for, so a module without any (a module of types) would
 * vanish from the result: `after` with each file of `before` it lacks put back, if its source is unchanged.
 */
export const keepMutantless = (
  before: typeof Files.Type,
  after: Record<string, unknown> & typeof Files.Type,
  currentSource: (file: string) => string | undefined
): { readonly report: Record<string, unknown>; readonly restored: ReadonlyArray<string> } => {
  const restored = Object.keys(before.files).filter((file) =>
    !(file in after.files) && currentSource(file) === before.files[file]?.source
  )
  const files = { ...after.files, ...Object.fromEntries(restored.map((file) => [file, before.files[file]])) }
  return { report: { ...after, files }, restored }
}

const parse = (text: string): Either.Either<unknown, unknown> => Either.try(() => JSON.parse(text) as unknown)

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL("../../../", import.meta.url))
  process.chdir(root)
  const args = process.argv.slice(2)
  const currentSource = (file: string) => existsSync(file) ? readFileSync(file, "utf8") : undefined
  const readReport = () => {
    if (!existsSync(incrementalFile)) return undefined
    const json = Either.getOrUndefined(parse(readFileSync(incrementalFile, "utf8")))
    return typeof json === "object" && json !== null && isReport(json) ? json : undefined
  }
  const write = (report: Record<string, unknown>, what: string, files: ReadonlyArray<string>) => {
    writeFileSync(incrementalFile, JSON.stringify(report, null, 2), "utf8")
    console.log(`mutate: ${what} ${incrementalFile}:\n  ${files.join("\n  ")}`)
  }
  const committed = readReport()
  const before = committed === undefined ? undefined : forgetStale(committed, currentSource, mutateScope(args))
  if (before !== undefined && before.dropped.length > 0) {
    write(before.report, "dropped (changed since, not mutated by this run) from", before.dropped)
  }
  const result = spawnSync("stryker", ["run", config, ...args], { stdio: "inherit" })
  const after = readReport()
  if (result.status === 0 && before !== undefined && isReport(before.report) && after !== undefined) {
    const kept = keepMutantless(before.report, after, currentSource)
    if (kept.restored.length > 0) write(kept.report, "kept (no mutants, left out by Stryker) in", kept.restored)
  }
  process.exitCode = result.status ?? 1
}
