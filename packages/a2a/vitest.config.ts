import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "a2a",
    include: ["test/**/*.test.ts"],
    // Simulated-clock tests take milliseconds alone; the margin is for a loaded 2-core machine.
    testTimeout: 20_000,
    // One process runs every file, loading the SDK and Effect once: no test depends on a module's fresh state.
    // Vitest 3.2 reads worker isolation from the root config only; `singleFork` is the per-project form.
    isolate: false,
    poolOptions: { forks: { isolate: false, singleFork: true } }
  }
})
