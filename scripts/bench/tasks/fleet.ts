/**
 * Task (own process): one process of a fleet. Builds one client (Node layer) whose access cache is the Redis
 * store (`redisUrl`) or the in-memory one, then marks itself ready in `barrierDir`. The warming process (`warm`)
 * sends once to every session and then marks the sessions warm there; every process waits until all
 * `processes` are ready and the sessions warm (so the fleet's processes start together, within a poll of
 * 10 ms, on warm sessions), then sends to every session in `sessions`, `passes`
 * times, one at a time, starting at index `rotate` (so the processes do not walk the sessions in step). The
 * duration of every send after the first of those passes (the access cached in every process) is returned.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { MESSAGE_TEXT } from "../sides/side.js"

export interface FleetArgs {
  readonly baseUrl: string
  /** The Redis store's URL; undefined: the in-memory store. */
  readonly redisUrl: string | undefined
  readonly keyPrefix: string
  readonly sessions: ReadonlyArray<string>
  readonly rotate: number
  readonly passes: number
  /** Where the processes of one run mark themselves ready (and the sessions warm). */
  readonly barrierDir: string
  readonly processes: number
  /** Whether this process warms every session first (without a warming process the runner marks them warm). */
  readonly warm: boolean
}

export interface FleetResult {
  readonly sends: number
  readonly failed: number
  readonly firstError: string | undefined
  /** Milliseconds of each send after the first pass. */
  readonly cachedSendMs: ReadonlyArray<number>
}

export const run = async (args: FleetArgs): Promise<FleetResult> => {
  const [
    { A2AClient, RuntimeAccessCache },
    { RedisRuntimeAccessStore },
    Layer,
    ManagedRuntime,
    Redacted,
    { oursLayer }
  ] = await Promise.all([
    import("@mainsequence/a2a"),
    import("@mainsequence/a2a-redis"),
    import("effect/Layer"),
    import("effect/ManagedRuntime"),
    import("effect/Redacted"),
    import("../sides/ours.js")
  ])
  const cache = args.redisUrl === undefined
    ? RuntimeAccessCache.layerMemory
    : RedisRuntimeAccessStore.layer({
      url: Redacted.make(args.redisUrl),
      keyPrefix: args.keyPrefix,
      encryptionKeys: [{ id: "bench", key: Redacted.make(Buffer.alloc(32, 1).toString("base64")) }]
    }).pipe(Layer.orDie)
  const runtime = ManagedRuntime.make(oursLayer(args.baseUrl, { cache }))
  const client = await runtime.runPromise(A2AClient.A2AClient)
  let sends = 0
  let failed = 0
  let firstError: string | undefined
  const cachedSendMs: Array<number> = []
  const n = args.sessions.length
  const pass = async (measured: boolean) => {
    for (let i = 0; i < n; i++) {
      const uid = args.sessions[(i + args.rotate) % n] ?? ""
      const started = performance.now()
      try {
        const answer = await runtime.runPromise(client.sendA2AMessage(uid, { message: MESSAGE_TEXT }))
        if (answer.contextId !== uid) throw new Error("wrong contextId")
        if (measured) cachedSendMs.push(performance.now() - started)
      } catch (e) {
        failed++
        firstError ??= String(e)
      }
      sends++
    }
  }
  writeFileSync(path.join(args.barrierDir, `ready-${process.pid}`), "")
  if (args.warm) {
    await pass(false)
    writeFileSync(path.join(args.barrierDir, "warm"), "")
  }
  const ready = () => readdirSync(args.barrierDir).filter((name) => name.startsWith("ready-")).length
  while (!existsSync(path.join(args.barrierDir, "warm")) || ready() < args.processes) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  for (let i = 0; i < args.passes; i++) await pass(i > 0)
  await runtime.dispose()
  return { sends, failed, firstError, cachedSendMs }
}
