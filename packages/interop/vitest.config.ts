import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "interop",
    include: ["test/**/*.test.ts"],
    // Scenarios in a `describe.concurrent` mostly wait on sockets and timeouts; CLI runs cost a Node start-up.
    maxConcurrency: 4
  }
})
