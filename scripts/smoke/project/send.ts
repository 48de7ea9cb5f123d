// (1) An Effect program against the reference platform of the installed @mainsequence/a2a-testing/node.
import { NodeRuntime } from "@effect/platform-node"
import { A2AClient, A2AProtocol } from "@mainsequence/a2a"
import { demoSessionUids, demoUserAccessToken, serveReferencePlatform } from "@mainsequence/a2a-testing/node"
import * as A2ANode from "@mainsequence/a2a/node"
import { Console, Effect } from "effect"

const program = Effect.gen(function*() {
  const { url } = yield* serveReferencePlatform({ port: 0 })
  const send = Effect.gen(function*() {
    const client = yield* A2AClient.A2AClient
    const answer = yield* client.sendA2AMessage(demoSessionUids.ready, { message: "smoke" })
    const text = A2AProtocol.textOf(answer).join("\n")
    if (text !== "You said: smoke") return yield* Effect.dieMessage(`unexpected answer: ${text}`)
    const error = yield* Effect.flip(client.sendA2AMessage(demoSessionUids.updateRequired, { message: "smoke" }))
    if (error._tag !== "AgentRuntimeUnavailableError") {
      return yield* Effect.dieMessage(`unexpected error: ${error._tag}`)
    }
    yield* Console.log(`send: ok (${text}; ${error._tag})`)
  })
  yield* send.pipe(Effect.provide(A2ANode.layer({ backendUrl: url, accessToken: demoUserAccessToken })))
})

program.pipe(Effect.scoped, NodeRuntime.runMain)
