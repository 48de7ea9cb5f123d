/**
 * Diagnostic side: our SDK loaded from another build of `packages/a2a/dist` (`BENCH_SDK_DIST=<dir>`, a
 * directory inside `packages/a2a/` so it resolves the same effect/platform packages), e.g. a copy with the
 * spans taken out, to measure what they cost. Same sends as `ours (runPromise per send)`.
 */
import type * as A2A from "@mainsequence/a2a"
import type * as A2ANodeModule from "@mainsequence/a2a/node"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import { pathToFileURL } from "node:url"
import { USER_TOKEN } from "../servers/minimalPlatform.js"
import { MESSAGE_TEXT, type Side, type Target } from "./side.js"

export const makeOursFrom = async (target: Target): Promise<Side> => {
  const dir = process.env.BENCH_SDK_DIST
  if (dir === undefined || dir === "") throw new Error("set BENCH_SDK_DIST to a build of packages/a2a/dist")
  const base = pathToFileURL(dir.replace(/\/*$/, "/"))
  const { A2AClient } = (await import(new URL("index.js", base).href)) as typeof A2A
  const A2ANode = (await import(new URL("node.js", base).href)) as typeof A2ANodeModule
  const runtime = ManagedRuntime.make(
    A2ANode.layer({ backendUrl: target.baseUrl, accessToken: Redacted.make(USER_TOKEN) })
  )
  const client = await runtime.runPromise(A2AClient.A2AClient)
  return {
    name: `diag: ours from ${dir.split("/").filter((s) => s !== "").pop() ?? dir}`,
    block: async (n, out) => {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now()
        const answer = await runtime.runPromise(client.sendA2AMessage(target.sessionUid, { message: MESSAGE_TEXT }))
        if (answer.contextId !== target.sessionUid) throw new Error("ours-from: unexpected answer")
        out.push(performance.now() - t0)
      }
    },
    close: () => runtime.dispose()
  }
}
