import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "a2a-testing",
    include: ["test/**/*.test.ts"]
  }
})
