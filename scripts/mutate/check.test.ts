import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { checkReport, run } from "./check.js"
import { decodeReport } from "./report.js"
import { forgetStale, keepMutantless, mutateScope } from "./run.js"

const answers = "packages/a2a/src/internal/answers.ts"
const cache = "packages/a2a/src/RuntimeAccessCache.ts"

const mutants = (statuses: Record<string, number>) =>
  Object.entries(statuses).flatMap(([status, n]) =>
    Array.from({ length: n }, () => ({
      status,
      ...(status === "Ignored" ? { statusReason: "Static mutant (and \"ignoreStatic\" was enabled)" } : {})
    }))
  )

const report = (files: Record<string, { source: string; mutants: ReadonlyArray<unknown> }>) =>
  Either.getOrThrow(decodeReport({ schemaVersion: "1.0", thresholds: { high: 80, low: 60 }, files }))

const sources = new Map([[answers, "export const a = 1\n"], [cache, "export const c = 2\n"]])

describe("mutation check (scripts/mutate/check.ts)", () => {
  it("passes a report that holds every module with its current source at 90 % or more", () => {
    const results = checkReport(
      report({
        [answers]: { source: "export const a = 1\n", mutants: mutants({ Killed: 8, Timeout: 1, Survived: 1 }) },
        [cache]: { source: "export const c = 2\n", mutants: mutants({ Killed: 3, Ignored: 4 }) }
      }),
      sources
    )
    expect(results.map((r) => r.problem)).toEqual([undefined, undefined])
    expect(results[0]?.line).toBe(
      `${answers}: 90.0 % (10 mutants: 8 killed, 1 timed out, 1 survived, 0 no coverage, 0 marked equivalent, 0 static)`
    )
    expect(results[1]?.line).toContain(
      "100.0 % (7 mutants: 3 killed, 0 timed out, 0 survived, 0 no coverage, 0 marked equivalent, 4 static)"
    )
  })

  it("fails a module whose source changed since the report, naming it", () => {
    const results = checkReport(
      report({
        [answers]: { source: "export const a = 0\n", mutants: mutants({ Killed: 10 }) },
        [cache]: { source: "export const c = 2\n", mutants: mutants({ Killed: 10 }) }
      }),
      sources
    )
    expect(results.map((r) => r.problem)).toEqual([
      `${answers}: changed since its committed mutation result (the report holds another source); run \`pnpm mutate --mutate ${answers}\``,
      undefined
    ])
  })

  it("fails a module missing from the report", () => {
    const results = checkReport(report({ [answers]: { source: "export const a = 1\n", mutants: [] } }), sources)
    expect(results.map((r) => r.problem)).toEqual([
      undefined,
      `${cache}: not in the committed mutation result; run \`pnpm mutate --mutate ${cache}\``
    ])
  })

  it("fails a module below 90 %; survived and no coverage count against it, marked equivalent does not", () => {
    const results = checkReport(
      report({
        [answers]: {
          source: "export const a = 1\n",
          mutants: [
            ...mutants({ Killed: 18, NoCoverage: 1, Survived: 1, CompileError: 3 }),
            { status: "Ignored", statusReason: "equivalent: only compared with GET" }
          ]
        },
        [cache]: { source: "export const c = 2\n", mutants: mutants({ Killed: 8, Survived: 1, NoCoverage: 1 }) }
      }),
      sources
    )
    expect(results[0]?.problem).toBeUndefined()
    expect(results[0]?.line).toBe(
      `${answers}: 90.0 % (24 mutants: 18 killed, 0 timed out, 1 survived, 1 no coverage, 1 marked equivalent, 0 static)`
    )
    expect(results.map((r) => r.problem)).toEqual([undefined, `${cache}: mutation score 80.0 % is below 90 %`])
  })

  it("run: exits not ok on a stale committed file and ok on a fresh one, with a line per module", () => {
    const root = mkdtempSync(path.join(tmpdir(), "mutate-check-"))
    mkdirSync(path.join(root, "packages/a2a/src/internal"), { recursive: true })
    mkdirSync(path.join(root, "scripts/mutate"), { recursive: true })
    const write = (file: string, text: string) => writeFileSync(path.join(root, file), text)
    write(answers, "export const a = 1\n")
    write("packages/a2a/src/internal/sha256.ts", "pure helper, not checked\n")
    write("packages/a2a/src/internal/base64.ts", "pure helper, not checked\n")
    write(cache, "export const c = 2\n")
    const committed = (answersSource: string) =>
      write(
        "scripts/mutate/incremental.json",
        JSON.stringify({
          files: {
            [answers]: { source: answersSource, mutants: mutants({ Killed: 9, Survived: 1 }) },
            [cache]: { source: "export const c = 2\n", mutants: mutants({ Killed: 1 }) }
          }
        })
      )
    committed("export const a = 1\n")
    const fresh = run(root)
    expect(fresh.ok).toBe(true)
    expect(fresh.lines).toHaveLength(3)
    expect(fresh.lines[2]).toBe(
      "mutation check: all 2 core modules are covered by the committed result, each at 90 % or more"
    )
    committed("export const a = 'old'\n")
    const stale = run(root)
    expect(stale.ok).toBe(false)
    expect(stale.lines.at(-1)).toContain(`mutation check failed for 1 of 2 core modules:\n  ${answers}: changed since`)
  })

  it("run: a missing or malformed committed file fails with a message naming it", () => {
    const root = mkdtempSync(path.join(tmpdir(), "mutate-check-"))
    mkdirSync(path.join(root, "packages/a2a/src/internal"), { recursive: true })
    writeFileSync(path.join(root, cache), "x")
    expect(run(root)).toEqual({
      ok: false,
      lines: [
        `${path.join(root, "scripts/mutate/incremental.json")}: no committed mutation result; run \`pnpm mutate\``
      ]
    })
    mkdirSync(path.join(root, "scripts/mutate"), { recursive: true })
    writeFileSync(path.join(root, "scripts/mutate/incremental.json"), JSON.stringify({ files: { [cache]: {} } }))
    const malformed = run(root)
    expect(malformed.ok).toBe(false)
    expect(malformed.lines[0]).toContain("not a mutation report")
  })
})

describe("pnpm mutate's bookkeeping (scripts/mutate/run.ts)", () => {
  it("reads the files a run mutates from --mutate / -m, without line ranges", () => {
    expect(mutateScope([])).toBeUndefined()
    expect(mutateScope(["--concurrency", "2"])).toBeUndefined()
    expect(mutateScope(["--mutate", `${answers},${cache}:10-20`])).toEqual([answers, cache])
    expect(mutateScope(["-m", answers, `--mutate=${cache}`])).toEqual([answers, cache])
  })

  it("drops a changed file outside the run's scope, keeps a changed file inside it and unchanged files", () => {
    const committed = {
      schemaVersion: "1.0",
      files: {
        [answers]: { source: "old a", mutants: [] },
        [cache]: { source: "old c", mutants: [] },
        "packages/a2a/src/internal/budget.ts": { source: "same", mutants: [] }
      }
    }
    const now: Record<string, string> = {
      [answers]: "new a",
      [cache]: "new c",
      "packages/a2a/src/internal/budget.ts": "same"
    }
    const { dropped, report } = forgetStale(committed, (file) => now[file], [answers])
    expect(dropped).toEqual([cache])
    expect(Object.keys((report as typeof committed).files)).toEqual([answers, "packages/a2a/src/internal/budget.ts"])
    expect(report["schemaVersion"]).toBe("1.0")
    expect(forgetStale(committed, (file) => now[file], undefined).dropped).toEqual([])
  })

  it("puts back an unchanged file Stryker left out of its result (no mutants), keeping every file it wrote", () => {
    const options = "packages/a2a/src/internal/options.ts"
    const before = {
      files: { [answers]: { source: "old a", mutants: [] }, [options]: { source: "types", mutants: [] } }
    }
    const after = { schemaVersion: "1.0", files: { [answers]: { source: "new a", mutants: [{ status: "Killed" }] } } }
    const now: Record<string, string> = { [answers]: "new a", [options]: "types" }
    const { report, restored } = keepMutantless(before, after, (file) => now[file])
    expect(restored).toEqual([options])
    expect(report).toEqual({
      schemaVersion: "1.0",
      files: { [answers]: after.files[answers], [options]: before.files[options] }
    })
    expect(keepMutantless(before, after, (file) => ({ ...now, [options]: "changed" })[file]).restored).toEqual([])
    expect(keepMutantless(after, after, (file) => now[file]).restored).toEqual([])
  })
})
