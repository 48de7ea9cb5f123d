/**
 * The official A2A JS client, `@a2a-js/sdk` 1.3.0: a `Client` from `ClientFactory` over its HTTP+JSON
 * (`RestTransport`) binding, created once from the agent card the minimal runtime serves at
 * `{rpc_url}/.well-known/agent-card.json` (whose interface URL is `{rpc_url}/api/a2a/v1`, so `sendMessage`
 * posts to `.../api/a2a/v1/message:send`). It uses Node's global `fetch` (as a user of it would); the
 * bearer token and the response-kind extension go in as service parameters (headers). It sends
 * `A2A-Version: 1.0` itself. It has no resolve step either (warm access).
 */
import { Role } from "@a2a-js/sdk"
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client"
import { randomUUID } from "node:crypto"
import { MESSAGE_TEXT, RESPONSE_KIND_EXTENSION, runtimeUrl, type Side, type Target } from "./side.js"

export const makeOfficial = async (target: Target): Promise<Side> => {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["HTTP+JSON"] })
  )
  const client = await factory.createFromUrl(runtimeUrl(target.rpcUrl, "/.well-known/agent-card.json"), "")
  const options = {
    serviceParameters: { Authorization: `Bearer ${target.runtimeToken}`, "A2A-Extensions": RESPONSE_KIND_EXTENSION }
  }
  const sendOne = async (): Promise<void> => {
    const result = await client.sendMessage({
      tenant: "",
      message: {
        messageId: `msg-${randomUUID()}`,
        contextId: target.sessionUid,
        taskId: "",
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "text", value: MESSAGE_TEXT }, metadata: undefined, filename: "", mediaType: "" }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: []
      },
      configuration: {
        acceptedOutputModes: ["text/plain"],
        taskPushNotificationConfig: undefined,
        returnImmediately: false
      },
      metadata: undefined
    }, options)
    if (!("role" in result) || result.role !== Role.ROLE_AGENT || result.contextId !== target.sessionUid) {
      throw new Error(`official: unexpected answer ${JSON.stringify(result)}`)
    }
  }
  return {
    name: "@a2a-js/sdk 1.3.0",
    block: async (n, out) => {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now()
        await sendOne()
        out.push(performance.now() - t0)
      }
    },
    close: () => Promise.resolve()
  }
}
