/**
 * Task (own process, `node --expose-gc`): heap per call in flight. After sequential warm-up sends (warm access
 * cache, code loaded), the runtime is told to hold its answers (`holdSends`); N sends are started at once and,
 * when the runtime holds all N, the heap after forced full GCs minus the heap before (same GCs) is what the
 * N waiting calls keep alive. Then the runtime answers them all and every answer is checked.
 *
 * With `snapshots`, heap snapshots are written at both points (for `heapDiff.ts`: what the waiting calls are
 * made of); the measured numbers then include nothing of the snapshots (they are taken after measuring).
 */
import { randomUUID } from "node:crypto"
import { writeHeapSnapshot } from "node:v8"
import { fullGc, sleep } from "../lib/gc.js"
import { admin } from "../servers/minimalPlatform.js"
import type { SideName } from "../sides/index.js"
import type { Side } from "../sides/side.js"

export interface InFlightMemoryArgs {
  readonly baseUrl: string
  readonly side: SideName
  readonly inFlight: number
  readonly warmup: number
  /**
   * Measure calls waiting on a cold session instead: the backend holds the session's one resolve (mode
   * `slow`, `coldDelayMs`) while all N wait on it; the warm-up went to another session of the same kind of side.
   */
  readonly cold?: { readonly coldDelayMs: number } | undefined
  /** A path prefix: writes `<prefix>-before.heapsnapshot` and `<prefix>-after.heapsnapshot`. */
  readonly snapshots?: string | undefined
}

export interface InFlightMemoryResult {
  readonly side: SideName
  readonly name: string
  readonly inFlight: number
  readonly heapBefore: number
  readonly heapInFlight: number
  /** (heapInFlight − heapBefore) / inFlight. */
  readonly heapPerCall: number
  readonly externalPerCall: number
  readonly rssPerCall: number
  readonly answered: number
}

export const run = async (args: InFlightMemoryArgs): Promise<InFlightMemoryResult> => {
  await admin.configure(args.baseUrl, { mode: "ready", holdSends: false })
  const sessionUid = randomUUID()
  const access = await admin.runtime(args.baseUrl, sessionUid)
  const target = { baseUrl: args.baseUrl, sessionUid, userToken: "", rpcUrl: access.rpcUrl, runtimeToken: access.token }
  // Every held call on a connection of its own, as the floor's and the official client's (their pools have no
  // limit): ours gets a per-origin limit of N (with its default, the calls past it would wait in the pool).
  const sideOptions = { maxConnectionsPerOrigin: args.inFlight }
  const side: Side = await (await import("../sides/index.js")).makeSide(args.side, target, sideOptions)
  await side.block(args.warmup, [])
  let measured = side
  if (args.cold !== undefined) {
    await admin.configure(args.baseUrl, { mode: "slow", coldDelayMs: args.cold.coldDelayMs })
    const coldUid = randomUUID()
    measured = await (await import("../sides/index.js")).makeSide(
      args.side,
      { ...target, sessionUid: coldUid },
      sideOptions
    )
  } else {
    await admin.configure(args.baseUrl, { holdSends: true })
  }
  await admin.reset(args.baseUrl)
  // The admin calls below (stats polling) use the global fetch's pool: open its connection before measuring.
  await admin.stats(args.baseUrl)
  await fullGc()
  const before = process.memoryUsage()
  if (args.snapshots !== undefined) writeHeapSnapshot(`${args.snapshots}-before.heapsnapshot`)
  const failures: Array<unknown> = []
  const calls = Array.from(
    { length: args.inFlight },
    () => measured.block(1, []).catch((e: unknown) => failures.push(e))
  )
  const deadline = performance.now() + 60_000
  for (;;) {
    const { held, resolves } = await admin.stats(args.baseUrl)
    if (args.cold !== undefined && resolves >= 1) {
      // The resolve is held by the backend: give the other callers time to join it.
      await sleep(Math.min(500, args.cold.coldDelayMs / 4))
      break
    }
    if (held >= args.inFlight) break
    if (failures.length > 0) throw new Error(`a send failed while starting: ${String(failures[0])}`)
    if (performance.now() > deadline) throw new Error(`only ${held} of ${args.inFlight} sends reached the runtime`)
    await sleep(10)
  }
  await fullGc()
  const inFlight = process.memoryUsage()
  if (args.snapshots !== undefined) writeHeapSnapshot(`${args.snapshots}-after.heapsnapshot`)
  await admin.configure(args.baseUrl, { holdSends: false })
  await Promise.all(calls)
  if (failures.length > 0) throw new Error(`${failures.length} sends failed: ${String(failures[0])}`)
  await side.close()
  if (measured !== side) await measured.close()
  const per = (a: number, b: number) => (b - a) / args.inFlight
  return {
    side: args.side,
    name: side.name,
    inFlight: args.inFlight,
    heapBefore: before.heapUsed,
    heapInFlight: inFlight.heapUsed,
    heapPerCall: per(before.heapUsed, inFlight.heapUsed),
    externalPerCall: per(before.external, inFlight.external),
    rssPerCall: per(before.rss, inFlight.rss),
    answered: args.inFlight - failures.length
  }
}
