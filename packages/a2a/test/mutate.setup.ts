// Only for `pnpm mutate` (vitest.mutate.config.ts): tests that wait seconds on the real clock are skipped; no
// core mutant needs them to be caught (the same rules are asserted under TestClock on the simulated platform).
// properties.test.ts is left out in the config (50 random scenarios, 40+ s per mutant that survives); each of
// its invariants is asserted by a deterministic test as well.
// - node.test.ts's trickled body and never-answering runtime: the read limit over a real socket; the read
//   limit itself is asserted in spec01.pipeline.test.ts and spec03.backend.test.ts under TestClock.
// - promise.test.ts's cold start: real seconds of waking; the cold start is asserted in spec06.cache.test.ts and
//   spec05.budget.test.ts under TestClock.
import { beforeEach } from "vitest"

const realClock = new Set([
  "a trickled body with [connect, read] gaps above read fails with the read limit",
  "[2, 0.4]: a runtime that accepts the message and never answers ends the call with the read limit",
  "accepts a Redacted token and follows a cold start"
])

beforeEach((context) => {
  if (realClock.has(context.task.name)) context.skip()
})
