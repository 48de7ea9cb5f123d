import { makeA2AClient } from "../../src/promise"

const client = makeA2AClient() // options from the environment
const controller = new AbortController()
const task = await client.sendA2AMessage("0b2701a1-e777-4cfe-8437-b94025f00069", {
  message: "Summarise the quarter",
  responseKind: "task"
}, { signal: controller.signal })
const done = await client.waitForA2ATask("0b2701a1-e777-4cfe-8437-b94025f00069", task.id)
console.log(done.status.state)
await client.dispose()
