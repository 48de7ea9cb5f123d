/**
 * The runnable example `examples/redis-fleet.ts` (compiled by the root `tsc -b`), run twice as two processes of
 * a fleet against the reference platform and a real Redis: the second run resolves nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { demoSessionUids, demoUserAccessToken, serveReferencePlatform } from "@mainsequence/a2a-testing/node"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { encryptionKey } from "./fixtures.js"
import { dump, requireRedisServer, startRedisServer } from "./redisServer.js"

requireRedisServer()

const example = fileURLToPath(new URL("../../../examples/dist/redis-fleet.js", import.meta.url))

const runExample = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  Effect.async<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    execFile(process.execPath, [example, ...args], { env: { ...process.env, ...env }, timeout: 30_000 }, (
      error,
      stdout,
      stderr
    ) => resume(Effect.succeed({ code: error === null ? 0 : 1, stdout, stderr })))
  })

describe("examples/redis-fleet", () => {
  it.scopedLive("two runs share the access through Redis: one resolve", () =>
    Effect.gen(function*() {
      expect(existsSync(example), `${example} is missing: run the root build first`).toBe(true)
      const redis = yield* startRedisServer()
      const { platform, url } = yield* serveReferencePlatform()
      const env = {
        MAINSEQUENCE_ENDPOINT: url,
        MAINSEQUENCE_ACCESS_TOKEN: Redacted.value(demoUserAccessToken),
        MAINSEQUENCE_A2A_REDIS_URL: redis.url,
        MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS: `${encryptionKey.id}:${Redacted.value(encryptionKey.key)}`
      }
      const first = yield* runExample(env, demoSessionUids.ready, "hello")
      expect(first).toEqual({ code: 0, stdout: "You said: hello\n", stderr: "" })
      const second = yield* runExample(env, demoSessionUids.ready, "again")
      expect(second).toEqual({ code: 0, stdout: "You said: again\n", stderr: "" })
      const counters = yield* platform.counters
      expect(counters.resolveCalls[demoSessionUids.ready]).toBe(1)
      expect((yield* dump(redis.admin)).length).toBe(1)
      // without a key (and without choosing clear entries) the example does not start
      const { MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS: _keys, ...withoutKey } = env
      const refused = yield* runExample(withoutKey, demoSessionUids.ready, "hello")
      expect(refused.code).toBe(1)
      // NodeRuntime.runMain's default logger writes the failure to stdout
      expect(refused.stdout + refused.stderr).toContain("RedisStoreOptionsError")
      expect(refused.stdout).not.toContain("You said")
    }))
})
