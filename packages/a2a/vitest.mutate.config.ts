// The SDK suite as `pnpm mutate` runs it against each mutant. Stryker reruns only the tests that cover a
// mutant (perTest coverage) and stops at the first failure, so what costs time is loading modules and
// reaching the failing test:
// - one thread, not isolated: the SDK and its dependencies are loaded once per run, not once per test file.
//   Safe because Stryker switches mutants at run time (a global read on each call); the mutants that only
//   run while a module loads are left out with `ignoreStatic` in scripts/mutate/stryker.config.mjs.
// - files whose tests failed on the last run first (a neighbouring mutant is likely caught by them), then
//   the fastest first, so a killed mutant ends after seconds.
// - left out, see test/mutate.setup.ts: the property test and the real-clock tests.
// The per-test limit is raised: instrumented code on a loaded machine runs the heavier tests past 20 s.
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import { defineProject, mergeConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"
import base from "./vitest.config.js"

class FailedThenFastestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const last = (file: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`)
    const rank = (file: TestSpecification) => {
      const result = last(file)
      return result === undefined ? [1, Infinity] : [result.failed ? 0 : 1, result.duration]
    }
    return [...files].sort((a, b) => {
      const [failedA, durationA] = rank(a)
      const [failedB, durationB] = rank(b)
      return failedA - failedB || durationA - durationB
    })
  }
}

export default mergeConfig(
  base,
  defineProject({
    test: {
      testTimeout: 60_000,
      exclude: ["test/properties.test.ts"],
      // absolute: Stryker starts vitest from the repository root with `dir: packages/a2a`
      setupFiles: [fileURLToPath(new URL("test/mutate.setup.ts", import.meta.url))],
      pool: "threads",
      poolOptions: { threads: { isolate: false, singleThread: true } },
      isolate: false,
      fileParallelism: false,
      sequence: { sequencer: FailedThenFastestFirst }
    }
  })
)
