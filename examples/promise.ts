/**
 * The SDK without Effect: `@mainsequence/a2a/promise` returns Promises and rejects with the SDK's error
 * classes. Ctrl-C aborts the send.
 *
 *   mainsequence dev platform     # or your real platform: export MAINSEQUENCE_ENDPOINT / MAINSEQUENCE_ACCESS_TOKEN
 *   node examples/dist/promise.js <agent-session-uid> "What can you do?"
 */
import { A2AError, A2AProtocol } from "@mainsequence/a2a"
import { makeA2AClient } from "@mainsequence/a2a/promise"

const [agentSessionUid = "", message = "What can you do?"] = process.argv.slice(2)

// `await using`: disposed of (connections closed) when the module's top level ends
await using client = makeA2AClient({
  backendUrl: process.env["MAINSEQUENCE_ENDPOINT"] ?? "https://api.main-sequence.app",
  accessToken: process.env["MAINSEQUENCE_ACCESS_TOKEN"] ?? ""
})
const controller = new AbortController()
process.once("SIGINT", () => controller.abort())
// our own id: an aborted call's rejection does not carry it, and a retry of the same message needs it
const messageId = `msg-${crypto.randomUUID()}`

try {
  const answer = await client.sendA2AMessage(agentSessionUid, { message, messageId }, { signal: controller.signal })
  console.log(A2AProtocol.textOf(answer).join("\n"))
} catch (error) {
  if (controller.signal.aborted) {
    console.error(`Interrupted; the message may have reached the Agent. Its id, for a retry: ${messageId}`)
    process.exitCode = 130
  } else if (error instanceof A2AError.AgentRuntimeUnavailableError || error instanceof A2AError.A2AInputError) {
    console.error(error.message)
    process.exitCode = 2
  } else {
    throw error
  }
}
