// (4) The Promise entry point, as a caller without Effect uses it.
import { A2AError, A2AProtocol } from "@mainsequence/a2a"
import { makeA2AClient } from "@mainsequence/a2a/promise"

const [ready = "", outdated = ""] = process.argv.slice(2)
const client = makeA2AClient() // MAINSEQUENCE_ENDPOINT, MAINSEQUENCE_ACCESS_TOKEN
try {
  const answer = await client.sendA2AMessage(ready, { message: "promise" })
  const text = A2AProtocol.textOf(answer).join("\n")
  if (text !== "You said: promise") throw new Error(`unexpected answer: ${text}`)
  const error = await client.sendA2AMessage(outdated, { message: "promise" }).then(() => undefined, (e: unknown) => e)
  if (!(error instanceof A2AError.AgentRuntimeUnavailableError)) {
    throw new Error(`unexpected rejection: ${String(error)}`)
  }
  const controller = new AbortController()
  controller.abort(new Error("aborted"))
  const aborted = await client.sendA2AMessage(ready, { message: "x" }, { signal: controller.signal }).then(
    () => undefined,
    (e: unknown) => e
  )
  if (aborted !== controller.signal.reason) throw new Error(`abort did not reject with the reason: ${String(aborted)}`)
  console.log(`promise: ok (${text}; ${error._tag}; abort)`)
} finally {
  await client.dispose()
}
