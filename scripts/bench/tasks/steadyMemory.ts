/**
 * Task (own process, `node --expose-gc`): many sends in one process; at each checkpoint, force full GCs
 * and record the heap. Sends run `parallel` at a time to one ready session (warm cache).
 */
import { randomUUID } from "node:crypto"
import { fullGc } from "../lib/gc.js"
import { admin } from "../servers/minimalPlatform.js"
import type { Side } from "../sides/side.js"

export interface SteadyMemoryArgs {
  readonly baseUrl: string
  readonly client: "ours" | "floor"
  readonly checkpoints: ReadonlyArray<number>
  readonly parallel: number
}

export interface Checkpoint {
  readonly sends: number
  readonly heapUsed: number
  readonly rss: number
  readonly external: number
  readonly elapsedMs: number
}

export interface SteadyMemoryResult {
  readonly client: string
  readonly checkpoints: ReadonlyArray<Checkpoint>
}

export const run = async (args: SteadyMemoryArgs): Promise<SteadyMemoryResult> => {
  await admin.configure(args.baseUrl, { mode: "ready" })
  const sessionUid = randomUUID()
  const access = await admin.runtime(args.baseUrl, sessionUid)
  const target = { baseUrl: args.baseUrl, sessionUid, userToken: "", rpcUrl: access.rpcUrl, runtimeToken: access.token }
  const side: Side = args.client === "ours"
    ? await (await import("../sides/ours.js")).makeOurs(target, "promise")
    : (await import("../sides/floor.js")).makeFloor(target)
  const lanes = Array.from({ length: args.parallel }, () => [] as Array<number>)
  const checkpoints: Array<Checkpoint> = []
  const t0 = performance.now()
  let sent = 0
  for (const cp of args.checkpoints) {
    while (sent < cp) {
      const n = Math.min(args.parallel, cp - sent)
      // `parallel` lanes of one send each; latencies are not kept (arrays cleared) so they do not grow.
      await Promise.all(lanes.slice(0, n).map((lane) => side.block(1, lane)))
      for (const lane of lanes) lane.length = 0
      sent += n
    }
    await fullGc()
    const m = process.memoryUsage()
    checkpoints.push({
      sends: sent,
      heapUsed: m.heapUsed,
      rss: m.rss,
      external: m.external,
      elapsedMs: performance.now() - t0
    })
  }
  await side.close()
  return { client: side.name, checkpoints }
}
