/**
 * Experiment side (for profiling-driven changes), side name `exp:<name>`: the SDK compiled from a patched
 * copy of packages/a2a/src at `scripts/dist/exp/<name>/dist` (there it resolves the same effect / platform
 * packages as the real build), or at an absolute `<name>`. Lets "before" and "after" variants run
 * interleaved in one process, like every other side.
 */
import type * as A2A from "@mainsequence/a2a"
import type * as A2ANode from "@mainsequence/a2a/node"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import { fileURLToPath, pathToFileURL } from "node:url"
import { USER_TOKEN } from "../servers/minimalPlatform.js"
import { MESSAGE_TEXT, type Side, type Target } from "./side.js"

export const makeExp = async (target: Target, name: string): Promise<Side> => {
  const dir = name.startsWith("/") ? name : fileURLToPath(new URL(`../../exp/${name}/dist`, import.meta.url))
  const sdk = (await import(pathToFileURL(`${dir}/index.js`).href)) as typeof A2A
  const node = (await import(pathToFileURL(`${dir}/node.js`).href)) as typeof A2ANode
  const runtime = ManagedRuntime.make(
    node.layer({ backendUrl: target.baseUrl, accessToken: Redacted.make(USER_TOKEN) })
  )
  const client = await runtime.runPromise(sdk.A2AClient.A2AClient)
  return {
    name: `exp: ${name}`,
    block: async (n, out) => {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now()
        const answer = await runtime.runPromise(client.sendA2AMessage(target.sessionUid, { message: MESSAGE_TEXT }))
        if (answer.role !== "ROLE_AGENT") throw new Error("exp: unexpected answer")
        out.push(performance.now() - t0)
      }
    },
    close: () => runtime.dispose()
  }
}
