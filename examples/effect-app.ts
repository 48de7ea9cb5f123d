/**
 * An Effect app: send one message to an Agent session and handle the failures you can act on by tag.
 *
 *   mainsequence dev platform     # or your real platform: export MAINSEQUENCE_ENDPOINT / MAINSEQUENCE_ACCESS_TOKEN
 *   node examples/dist/effect-app.js <agent-session-uid> "What can you do?"
 */
import { NodeRuntime } from "@effect/platform-node"
import { A2AClient, A2AProtocol } from "@mainsequence/a2a"
import * as A2ANode from "@mainsequence/a2a/node"
import { Console, Effect } from "effect"

const [agentSessionUid = "", message = "What can you do?"] = process.argv.slice(2)

/** Prints why the message got no answer and makes the process exit with 2. */
const giveUp = (reason: string) =>
  Console.error(reason).pipe(Effect.andThen(Effect.sync(() => {
    process.exitCode = 2
  })))

const program = Effect.gen(function*() {
  const client = yield* A2AClient.A2AClient
  const answer = yield* client.sendA2AMessage(agentSessionUid, { message, timeout: [5, 120] })
  yield* Console.log(A2AProtocol.textOf(answer).join("\n"))
}).pipe(
  Effect.catchTags({
    // the runtime will not take messages (stopped, needs an update): nothing was sent
    AgentRuntimeUnavailableError: (error) => giveUp(`The Agent cannot take messages now: ${error.message}`),
    // the platform gave up waiting for the answer: long jobs belong in Task mode (responseKind: "task")
    A2AMessageLimitExceededError: (error) =>
      giveUp(`No answer within the platform's ${error.limitSeconds} s limit; send it as a Task instead.`),
    // our own budget ran out; whether the Agent got the message depends on the step
    A2ATimeoutError: (error) =>
      giveUp(`${error.message}${error.messageMayHaveBeenSent ? " (the Agent may have received it)" : ""}`)
  })
)

// Every other failure (bad input, not logged in, a server error…) is printed by runMain, which exits with 1.
program.pipe(Effect.provide(A2ANode.layerConfig()), NodeRuntime.runMain)
