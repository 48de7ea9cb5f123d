import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "a2a",
    include: ["test/**/*.test.ts"],
    // Simulated-clock tests take milliseconds alone; the margin is for a loaded 2-core machine.
    testTimeout: 20_000,
    // The SDK and Effect are loaded once per worker, not once per file (`pnpm mutate` runs the suite so too):
    // no test depends on a module's fresh state.
    isolate: false,
    poolOptions: { forks: { isolate: false } }
  }
})
