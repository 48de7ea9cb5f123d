import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "a2a-redis",
    include: ["test/**/*.test.ts"],
    // Real redis-server processes and real sockets; the margin is for a loaded 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Each file starts its own servers; one file at a time keeps the 2-core machine responsive.
    fileParallelism: false
  }
})
