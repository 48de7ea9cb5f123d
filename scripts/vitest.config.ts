import { defineProject } from "vitest/config"

// The scripts' own tests (the mutation check); they read no built output.
export default defineProject({
  test: {
    name: "scripts",
    include: ["mutate/**/*.test.ts"]
  }
})
