// The SDK suite for `pnpm mutate`: Stryker's instrumented sandbox on a shared machine runs the heavier tests
// past vitest's 5 s default, which fails the initial run, so the per-test limit is raised here only.
import { defineProject, mergeConfig } from "vitest/config"
import base from "./vitest.config.js"

export default mergeConfig(base, defineProject({ test: { testTimeout: 60_000 } }))
