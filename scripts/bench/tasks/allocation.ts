/**
 * Task (own process): bytes allocated per warm send. After sequential warm-up sends (warm access cache, code
 * loaded and optimised), V8's sampling heap profiler (through the inspector, every allocation of a sampled
 * 256-byte interval, garbage collected or not) runs over N sequential sends; the sampled total ÷ N is what
 * one send allocates, live or garbage: what the young generation has to take, and so how much of a burst's
 * peak heap is garbage not yet collected.
 */
import { randomUUID } from "node:crypto"
import { Session } from "node:inspector/promises"
import { admin } from "../servers/minimalPlatform.js"
import type { SideName } from "../sides/index.js"

export interface AllocationArgs {
  readonly baseUrl: string
  readonly side: SideName
  readonly warmup: number
  readonly sends: number
}

export interface AllocationResult {
  readonly side: SideName
  readonly name: string
  readonly sends: number
  /** Sampled bytes allocated ÷ sends. */
  readonly bytesPerSend: number
}

interface ProfileNode {
  readonly selfSize: number
  readonly children: ReadonlyArray<ProfileNode>
}

const totalOf = (node: ProfileNode): number => node.children.reduce((sum, child) => sum + totalOf(child), node.selfSize)

export const run = async (args: AllocationArgs): Promise<AllocationResult> => {
  await admin.configure(args.baseUrl, { mode: "ready", holdSends: false })
  const sessionUid = randomUUID()
  const access = await admin.runtime(args.baseUrl, sessionUid)
  const target = { baseUrl: args.baseUrl, sessionUid, userToken: "", rpcUrl: access.rpcUrl, runtimeToken: access.token }
  const side = await (await import("../sides/index.js")).makeSide(args.side, target, {})
  await side.block(args.warmup, [])
  const session = new Session()
  session.connect()
  await session.post("HeapProfiler.enable")
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true
  })
  await side.block(args.sends, [])
  const { profile } = await session.post("HeapProfiler.stopSampling")
  session.disconnect()
  await side.close()
  return {
    side: args.side,
    name: side.name,
    sends: args.sends,
    bytesPerSend: totalOf(profile.head as ProfileNode) / args.sends
  }
}
