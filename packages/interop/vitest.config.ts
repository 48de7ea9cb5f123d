import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "interop",
    include: ["test/**/*.test.ts"]
  }
})
