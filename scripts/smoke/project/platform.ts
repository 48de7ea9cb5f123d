// Serves the reference platform until stopped; prints {"url","token"} as its first line.
import { NodeRuntime } from "@effect/platform-node"
import { demoUserAccessToken, serveReferencePlatform } from "@mainsequence/a2a-testing/node"
import { Console, Effect, Redacted } from "effect"

Effect.gen(function*() {
  const { url } = yield* serveReferencePlatform({ port: 0 })
  yield* Console.log(JSON.stringify({ url, token: Redacted.value(demoUserAccessToken) }))
  return yield* Effect.never
}).pipe(Effect.scoped, NodeRuntime.runMain)
