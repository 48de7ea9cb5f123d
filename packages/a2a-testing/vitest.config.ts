import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "a2a-testing",
    include: ["test/**/*.test.ts"],
    // Simulated-clock tests take milliseconds alone; the margin is for a loaded 2-core machine.
    testTimeout: 20_000,
    // One worker thread runs every file, loading the kit and Effect once (no test depends on a module's fresh
    // state), beside the forks of the other projects. Vitest 3.2 starts a fresh worker per file unless the root
    // config says otherwise; `singleThread` runs a project's files in one.
    isolate: false,
    pool: "threads",
    poolOptions: { threads: { isolate: false, singleThread: true } }
  }
})
