/**
 * Task (own process, `node --expose-gc`): one client, many distinct sessions, each access valid about a second.
 * The minimal platform answers every resolve with `expires_at` = now + 30 s + `validityMs` (the SDK keeps an
 * access until `expires_at` − 30 s). After a warm-up on sessions of their own (code loaded, pool open, their
 * entries expired), the heap after forced GCs is the baseline; then `sessions` distinct sessions get one send
 * each (`lanes` at a time: resolve + send), the store's live entries sampled after every send; then, once every
 * entry has expired (and a sweeping store has had `sweepWaitMs` to drop them), the heap after forced GCs again.
 */
import { randomUUID } from "node:crypto"
import { makeBenchCache } from "../lib/benchCache.js"
import { fullGc, sleep } from "../lib/gc.js"
import { admin } from "../servers/minimalPlatform.js"
import { MESSAGE_TEXT } from "../sides/side.js"

export interface SessionsArgs {
  readonly baseUrl: string
  readonly sessions: number
  readonly warmup: number
  /** Sessions per throughput window (first and last). */
  readonly window: number
  readonly lanes: number
  readonly validityMs: number
  readonly maxEntries: number
  /** After the entries' validity has passed, how long a store may take to sweep them (polled every 100 ms). */
  readonly sweepWaitMs: number
}

export interface SessionsResult {
  readonly sessions: number
  readonly heapBaseline: number
  readonly heapAfter: number
  /** (heapAfter − heapBaseline) / sessions. */
  readonly retainedPerSession: number
  /** Sends per second over each window of `window` sessions, in order. */
  readonly windowRates: ReadonlyArray<number>
  readonly firstRate: number
  readonly lastRate: number
  readonly peakEntries: number
  readonly entriesAtEnd: number
  readonly maxEntries: number
  readonly maxConfigured: boolean
  readonly sizeSource: "store" | "wrapper"
  readonly resolves: number
  readonly failed: number
  readonly firstError: string | undefined
  readonly wallMs: number
  /** How long the wait for the entries to go took after the last send. */
  readonly drainMs: number
}

export const run = async (args: SessionsArgs): Promise<SessionsResult> => {
  await admin.configure(args.baseUrl, { mode: "ready", holdSends: false, expiresInMs: 30_000 + args.validityMs })
  const [{ A2AClient }, ManagedRuntime, { oursLayer }] = await Promise.all([
    import("@mainsequence/a2a"),
    import("effect/ManagedRuntime"),
    import("../sides/ours.js")
  ])
  const cache = makeBenchCache(args.maxEntries)
  const runtime = ManagedRuntime.make(oursLayer(args.baseUrl, { cache: cache.layer }))
  const client = await runtime.runPromise(A2AClient.A2AClient)
  let peakEntries = 0
  let failed = 0
  let firstError: string | undefined
  const sendTo = async (uid: string) => {
    try {
      const answer = await runtime.runPromise(client.sendA2AMessage(uid, { message: MESSAGE_TEXT }))
      if (answer.contextId !== uid) throw new Error("wrong contextId")
    } catch (e) {
      failed++
      firstError ??= String(e)
    }
    const size = cache.size()
    if (size > peakEntries) peakEntries = size
  }
  /** `count` fresh sessions, `lanes` at a time; returns the wall time of each window of `window` sessions. */
  const drive = async (count: number, window: number): Promise<Array<number>> => {
    const windows: Array<number> = []
    let next = 0
    let windowStart = performance.now()
    let doneInWindow = 0
    const lane = async () => {
      while (next < count) {
        next++
        await sendTo(randomUUID())
        if (++doneInWindow === window) {
          const now = performance.now()
          windows.push(now - windowStart)
          windowStart = now
          doneInWindow = 0
        }
      }
    }
    await Promise.all(Array.from({ length: args.lanes }, lane))
    return windows
  }
  const expireAll = async (): Promise<number> => {
    const t0 = performance.now()
    await sleep(args.validityMs + 200)
    const until = performance.now() + args.sweepWaitMs
    while (cache.size() > 0 && performance.now() < until) await sleep(100)
    return performance.now() - t0
  }

  await drive(args.warmup, args.warmup)
  await expireAll()
  await admin.reset(args.baseUrl)
  await admin.stats(args.baseUrl)
  peakEntries = 0
  await fullGc()
  const heapBaseline = process.memoryUsage().heapUsed
  const t0 = performance.now()
  const windows = await drive(args.sessions, args.window)
  const wallMs = performance.now() - t0
  // Only the count: the stats answer also maps every session uid to its resolves (20,000 keys, about 1.9 MB of
  // the benchmark's own heap), which must not be held across the measurement.
  const { resolves } = await admin.stats(args.baseUrl)
  const drainMs = await expireAll()
  const entriesAtEnd = cache.size()
  cache.release() // the benchmark's own count of the keys is not the client's memory
  await fullGc()
  const heapAfter = process.memoryUsage().heapUsed
  await runtime.dispose()
  const rates = windows.map((ms) => args.window / (ms / 1000))
  return {
    sessions: args.sessions,
    heapBaseline,
    heapAfter,
    retainedPerSession: (heapAfter - heapBaseline) / args.sessions,
    windowRates: rates,
    firstRate: rates[0] ?? Number.NaN,
    lastRate: rates[rates.length - 1] ?? Number.NaN,
    peakEntries,
    entriesAtEnd,
    maxEntries: cache.maxEntries,
    maxConfigured: cache.maxConfigured,
    sizeSource: cache.sizeSource,
    resolves,
    failed,
    firstError,
    wallMs,
    drainMs
  }
}
