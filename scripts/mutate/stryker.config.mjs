// Mutation testing of the SDK's core modules against the SDK's own suite (packages/a2a vitest project).
// Run with `pnpm mutate`; one module: `pnpm mutate --mutate packages/a2a/src/internal/budget.ts`.
// Not part of CI: a full run takes tens of minutes on a shared machine.
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
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 20000,
  tempDirName: ".stryker-tmp",
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  cleanTempDir: true
}
