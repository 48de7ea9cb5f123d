/**
 * Child-process entry: serves `@mainsequence/a2a-testing`'s reference platform (real HTTP on 127.0.0.1,
 * demo sessions) and reports its URL over IPC; stops when the parent disconnects.
 */
import { demoSessionUids, demoUserAccessToken, serveReferencePlatform } from "@mainsequence/a2a-testing/node"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

const program = Effect.scoped(
  Effect.gen(function*() {
    const { url } = yield* serveReferencePlatform({ port: 0 })
    process.send?.({
      type: "ready",
      baseUrl: url,
      sessionUid: demoSessionUids.ready,
      userToken: Redacted.value(demoUserAccessToken)
    })
    yield* Effect.async<never>((resume) => {
      const stop = () => resume(Effect.interrupt)
      process.once("disconnect", stop)
      process.once("SIGTERM", stop)
    })
  })
)

Effect.runPromiseExit(program).then(() => process.exit(0), () => process.exit(1))
