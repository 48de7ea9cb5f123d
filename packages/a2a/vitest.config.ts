import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "a2a",
    include: ["test/**/*.test.ts"]
  }
})
