/**
 * The floor: raw `undici` (the same undici 7.30.2 the @effect/platform-node HTTP client uses, its own
 * `Agent` as that client makes one) sending the SPEC §4 request — same headers, same body shape with a
 * fresh `msg-<uuid>` per send — and parsing the JSON answer, with a minimal validity check. No resolve:
 * it plays a client whose access cache is warm, like the SDK after its first send.
 *
 * `inEffect` (a diagnostic side): the same send, each one run as one Effect fiber (`runPromise` of
 * `Effect.promise`): what any Effect program pays per call in flight before it does anything of its own.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { Agent } from "undici"
import { RESPONSE_KIND_EXTENSION, runtimeUrl, sendBody, type Side, type Target } from "./side.js"

export const makeFloor = (target: Target, inEffect = false): Side => {
  const agent = new Agent()
  const url = new URL(runtimeUrl(target.rpcUrl, "/api/a2a/v1/message:send"))
  const origin = url.origin
  const path = url.pathname
  const headers = {
    authorization: `Bearer ${target.runtimeToken}`,
    "content-type": "application/a2a+json",
    accept: "application/a2a+json",
    "a2a-extensions": RESPONSE_KIND_EXTENSION,
    "a2a-version": "1.0"
  }
  const sendOne = async (): Promise<void> => {
    const body = sendBody(target.sessionUid)
    const res = await agent.request({ origin, path, method: "POST", headers, body })
    const answer = (await res.body.json()) as { message?: { role?: unknown; contextId?: unknown } }
    if (
      res.statusCode !== 200 || answer.message?.role !== "ROLE_AGENT" || answer.message.contextId !== target.sessionUid
    ) {
      throw new Error(`floor: unexpected answer ${res.statusCode} ${JSON.stringify(answer)}`)
    }
  }
  const runtime = inEffect ? ManagedRuntime.make(Layer.empty) : undefined
  const send = runtime === undefined ? sendOne : () => runtime.runPromise(Effect.promise(sendOne))
  return {
    name: inEffect ? "diag: raw undici, each send one Effect fiber" : "floor (raw undici)",
    block: async (n, out) => {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now()
        await send()
        out.push(performance.now() - t0)
      }
    },
    close: async () => {
      await agent.close()
      await runtime?.dispose()
    }
  }
}
