import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "examples",
    include: ["*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000
  }
})
