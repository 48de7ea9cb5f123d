import { A2AError } from "../../src"
import { makeA2AClient } from "../../src/promise"

const client = makeA2AClient({ backendUrl: "https://api.main-sequence.app", accessToken: "…" })
try {
  const answer = await client.sendA2AMessage("0b2701a1-e777-4cfe-8437-b94025f00069", {
    message: "What can you do?"
  })
  console.log(answer.parts)
} catch (error) {
  if (error instanceof A2AError.A2AMessageLimitExceededError) console.warn(error.message)
  else throw error
} finally {
  await client.dispose()
}
