import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "a2a-testing",
    include: ["test/**/*.test.ts"],
    // Simulated-clock tests take milliseconds alone; the margin is for a loaded 2-core machine.
    testTimeout: 20_000,
    // One process runs every file, loading the kit and Effect once: no test depends on a module's fresh state
    // (as in the SDK's project).
    isolate: false,
    poolOptions: { forks: { isolate: false, singleFork: true } }
  }
})
