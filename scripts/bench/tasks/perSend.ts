/**
 * Task (own process): per-send overhead. Every side sends sequential direct Messages to the same ready
 * session of the minimal platform (which runs in another process). Sides are warmed up, then measured
 * in blocks whose order is shuffled every round, so drift and noise on a shared 2-core box spread evenly.
 * Latency is wall time per send; CPU is `process.cpuUsage()` (user + system) over a side's blocks divided
 * by its sends — client-only, since the server is another process.
 */
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { summarize, type Summary } from "../lib/stats.js"
import { admin, USER_TOKEN } from "../servers/minimalPlatform.js"
import { makeSide, type SideName } from "../sides/index.js"
import type { Side } from "../sides/side.js"

export interface PerSendArgs {
  readonly baseUrl: string
  readonly sides: ReadonlyArray<SideName>
  readonly warmup: number
  readonly rounds: number
  readonly block: number
  /** If set: CPU-profile the measured rounds (V8 sampling profiler, as `node --cpu-prof`) into this file. */
  readonly cpuProfilePath?: string
  readonly samplingIntervalUs?: number
}

export interface SideResult {
  readonly side: SideName
  readonly name: string
  readonly latencyMs: Summary
  readonly cpuUsPerSend: number
}

export interface PerSendResult {
  readonly sides: ReadonlyArray<SideResult>
  readonly rounds: number
  readonly block: number
  readonly warmup: number
}

const shuffle = <A>(xs: Array<A>): Array<A> => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    const t = xs[i] as A
    xs[i] = xs[j] as A
    xs[j] = t
  }
  return xs
}

export const run = async (args: PerSendArgs): Promise<PerSendResult> => {
  const sessionUid = randomUUID()
  await admin.configure(args.baseUrl, { mode: "ready" })
  const access = await admin.runtime(args.baseUrl, sessionUid)
  const target = {
    baseUrl: args.baseUrl,
    sessionUid,
    userToken: USER_TOKEN,
    rpcUrl: access.rpcUrl,
    runtimeToken: access.token
  }
  const sides: Array<{ key: SideName; side: Side; latencies: Array<number>; cpuUs: number }> = []
  for (const key of args.sides) sides.push({ key, side: await makeSide(key, target), latencies: [], cpuUs: 0 })

  // Warm-up, interleaved as well.
  const scratch: Array<number> = []
  for (let done = 0; done < args.warmup; done += args.block) {
    for (const s of shuffle([...sides])) await s.side.block(Math.min(args.block, args.warmup - done), scratch)
    scratch.length = 0
  }

  const inspector = args.cpuProfilePath === undefined ? undefined : new Session()
  if (inspector !== undefined) {
    inspector.connect()
    await inspector.post("Profiler.enable")
    await inspector.post("Profiler.setSamplingInterval", { interval: args.samplingIntervalUs ?? 100 })
    await inspector.post("Profiler.start")
  }
  for (let r = 0; r < args.rounds; r++) {
    for (const s of shuffle([...sides])) {
      const cpu0 = process.cpuUsage()
      await s.side.block(args.block, s.latencies)
      const cpu = process.cpuUsage(cpu0)
      s.cpuUs += cpu.user + cpu.system
    }
  }
  if (inspector !== undefined && args.cpuProfilePath !== undefined) {
    const { profile } = await inspector.post("Profiler.stop")
    writeFileSync(args.cpuProfilePath, JSON.stringify(profile))
    inspector.disconnect()
  }
  for (const s of sides) await s.side.close()

  return {
    rounds: args.rounds,
    block: args.block,
    warmup: args.warmup,
    sides: sides.map((s) => ({
      side: s.key,
      name: s.side.name,
      latencyMs: summarize(s.latencies),
      cpuUsPerSend: s.cpuUs / s.latencies.length
    }))
  }
}
