import { describe, expect, it } from "@effect/vitest"
import { demoSessionUids, serveReferencePlatform } from "@mainsequence/a2a-testing/node"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { encryptionKey } from "./fixtures.js"
import { dump, requireRedisServer, startRedisServer } from "./redisServer.js"

requireRedisServer()

const sender = fileURLToPath(new URL("./child/fleetSender.ts", import.meta.url))

/** One fleet process (Node running the sender from source): its exit code and all it printed. */
const runProcess = (env: Record<string, string>, sessions: ReadonlyArray<string>) =>
  Effect.async<{ readonly code: number | null; readonly output: string }>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", sender, ...sessions], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.on("close", (code) => resume(Effect.succeed({ code, output })))
    return Effect.sync(() => void child.kill())
  })

describe("a fleet of processes on one Redis", () => {
  it.scopedLive("the second process sends with no resolve: one resolve per session for the fleet", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const { platform, url } = yield* serveReferencePlatform()
      const env = { A2A_BACKEND_URL: url, A2A_REDIS_URL: redis.url, A2A_REDIS_KEY: Redacted.value(encryptionKey.key) }
      const sessions = [demoSessionUids.ready, demoSessionUids.coldStart]
      const resolves = Effect.map(platform.counters, (c) => sessions.map((uid) => c.resolveCalls[uid] ?? 0))
      const first = yield* runProcess(env, sessions)
      expect(first).toEqual({ code: 0, output: JSON.stringify({ results: ["answered", "answered"] }) + "\n" })
      const afterFirst = yield* resolves
      // the ready session resolves once; the cold one is polled through its wake (one resolve sequence)
      expect(afterFirst[0]).toBe(1)
      expect(afterFirst[1]).toBeGreaterThan(1)
      const second = yield* runProcess(env, sessions)
      expect(second).toEqual(first)
      expect(yield* resolves).toEqual(afterFirst)
      const sends = yield* platform.counters
      expect(sessions.map((uid) => sends.sends[uid])).toEqual([2, 2])
      // what a reader of the Redis sees: two opaque keys, two values encrypted with the fleet's key
      const contents = yield* dump(redis.admin)
      expect(contents.length).toBe(2)
      for (const [, value] of contents) expect(value.startsWith("msa1.fleet.")).toBe(true)
    }))
})
