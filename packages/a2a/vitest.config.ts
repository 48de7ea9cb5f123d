import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "a2a",
    include: ["test/**/*.test.ts"],
    // Simulated-clock tests take milliseconds alone; the margin is for a loaded 2-core machine.
    testTimeout: 20_000
  }
})
