// Mutation testing of the SDK's core modules against the SDK's own suite (packages/a2a vitest project).
// Run with `pnpm mutate`; one module: `pnpm mutate --mutate packages/a2a/src/internal/budget.ts`.
// Not part of CI (docs/BENCHMARKS.md, "Mutation runs", says how long a run takes); CI checks the committed result.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "packages/a2a/vitest.mutate.config.ts", dir: "packages/a2a" },
  // A glob, so modules added or renamed under internal/ are covered; pure helpers are left out.
  mutate: [
    "packages/a2a/src/internal/*.ts",
    "!packages/a2a/src/internal/sha256.ts",
    "!packages/a2a/src/internal/base64.ts",
    "packages/a2a/src/RuntimeAccessCache.ts"
  ],
  ignorePatterns: [
    "packages/a2a/dist/**",
    "**/.tsbuild/**",
    "**/docs/**",
    "examples/**",
    "scripts/**",
    "packages/cli/**",
    "packages/interop/**",
    "reports/**"
  ],
  // Each mutant reruns only the tests that cover it (see packages/a2a/vitest.mutate.config.ts for the rest).
  coverageAnalysis: "perTest",
  // Mutants that only run while a module loads (span names given to Effect.fn, schema literals) would need a
  // full, isolated suite run each; the speed of the rest depends on loading the SDK once per run.
  ignoreStatic: true,
  // One worker: the machine is shared; `--concurrency 2` on a free machine.
  concurrency: 1,
  // A mutant that hangs is an endless retry loop under TestClock, not slow work: end it soon (10 s more than
  // 1.5 × its tests' own time); each timeout also restarts the test runner.
  timeoutMS: 10000,
  // Incremental: a run re-tests only the mutants whose code or covering tests changed since the committed
  // result, and keeps every other module's result; `node scripts/dist/mutate/check.js` (CI) compares that
  // result with the current source of each core module.
  incremental: true,
  incrementalFile: "scripts/mutate/incremental.json",
  tempDirName: ".stryker-tmp",
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  cleanTempDir: true
}
