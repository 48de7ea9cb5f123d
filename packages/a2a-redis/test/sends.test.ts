import { describe, expect, it } from "@effect/vitest"
import { serveReferencePlatform } from "@mainsequence/a2a-testing/node"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import {
  clientLayer,
  encryptionKey,
  expectAnswerWithin,
  expectNoSecrets,
  observing,
  readySession,
  storeErrorsOf,
  timedSend
} from "./fixtures.js"
import { dump, requireRedisServer, startRedisServer } from "./redisServer.js"

requireRedisServer()

const operationTimeout = Duration.millis(200)
/** A send whose store answers at once takes well under this on a loaded machine; a hung store would not. */
const budgetMillis = 3_000

const resolvesOf = (
  platform: { readonly counters: Effect.Effect<{ readonly resolveCalls: Record<string, number> }> }
) => Effect.map(platform.counters, (c) => c.resolveCalls[readySession] ?? 0)

const warnings = (logs: ReadonlyArray<string>) => logs.filter((line) => line.includes("store unavailable"))

describe("sends through the Redis store", () => {
  it.scopedLive("two clients on one Redis: the second sends with no resolve of its own", () =>
    observing((observed) =>
      Effect.gen(function*() {
        const redis = yield* startRedisServer()
        const { platform, url } = yield* serveReferencePlatform()
        const options = { url: redis.url, encryptionKeys: [encryptionKey], operationTimeout }
        const first = yield* Layer.build(clientLayer(url, options, observed))
        const second = yield* Layer.build(clientLayer(url, options, observed))
        expectAnswerWithin(yield* timedSend(first), budgetMillis)
        expect(yield* resolvesOf(platform)).toBe(1)
        expectAnswerWithin(yield* timedSend(second), budgetMillis)
        expectAnswerWithin(yield* timedSend(second), budgetMillis)
        expect(yield* resolvesOf(platform)).toBe(1)
        const contents = yield* dump(redis.admin)
        expect(contents.length).toBe(1)
        expectNoSecrets(observed, [...contents.flat(), ...observed.logs])
      })
    ))

  it.scopedLive("Redis killed in the middle of a run: every send answers in its budget, one warning, counted", () =>
    observing((observed) =>
      Effect.gen(function*() {
        const redis = yield* startRedisServer()
        const { url } = yield* serveReferencePlatform()
        const client = yield* Layer.build(
          clientLayer(url, { url: redis.url, encryptionKeys: [encryptionKey], operationTimeout }, observed)
        )
        expectAnswerWithin(yield* timedSend(client), budgetMillis)
        const contents = yield* dump(redis.admin)
        const before = yield* storeErrorsOf("connection")
        yield* redis.kill
        // a fresh client (cold memory): only the store could have the access, and it is gone
        const cold = yield* Layer.build(
          clientLayer(url, { url: redis.url, encryptionKeys: [encryptionKey], operationTimeout }, observed)
        )
        for (let i = 0; i < 3; i++) expectAnswerWithin(yield* timedSend(cold), budgetMillis)
        expect(yield* storeErrorsOf("connection")).toBeGreaterThan(before)
        expect(warnings(observed.logs).length).toBe(1)
        expectNoSecrets(observed, [...contents.flat(), ...observed.logs])
      })
    ))

  it.scopedLive("Redis paused longer than the store's limit: sends answer within it, counted as timeouts", () =>
    observing((observed) =>
      Effect.gen(function*() {
        const redis = yield* startRedisServer()
        const { platform, url } = yield* serveReferencePlatform()
        const options = { url: redis.url, encryptionKeys: [encryptionKey], operationTimeout }
        const first = yield* Layer.build(clientLayer(url, options, observed))
        const second = yield* Layer.build(clientLayer(url, options, observed))
        expectAnswerWithin(yield* timedSend(first), budgetMillis)
        const before = yield* storeErrorsOf("timeout")
        yield* Effect.promise(() => redis.admin.client("PAUSE", 8_000, "ALL"))
        const paused = yield* timedSend(second)
        // the read timed out (a miss): the second client resolved on its own and answered long before the pause ended
        expectAnswerWithin(paused, budgetMillis)
        expect(yield* resolvesOf(platform)).toBe(2)
        expect(yield* storeErrorsOf("timeout")).toBeGreaterThan(before)
        expect(warnings(observed.logs).length).toBe(1)
        expect(warnings(observed.logs)[0]).toContain("(timeout)")
        expectNoSecrets(observed, observed.logs)
      })
    ))

  it.scopedLive("Redis with a password: the right one shares access; a wrong one fails no send and leaks nothing", () =>
    observing((observed) =>
      Effect.gen(function*() {
        const password = "redis-pa55word-xyz"
        const redis = yield* startRedisServer(["--requirepass", password], { password })
        const { platform, url } = yield* serveReferencePlatform()
        const right = { url: `redis://:${password}@127.0.0.1:${redis.port}`, encryptionKeys: [encryptionKey] }
        const first = yield* Layer.build(clientLayer(url, { ...right, operationTimeout }, observed))
        const second = yield* Layer.build(clientLayer(url, { ...right, operationTimeout }, observed))
        expectAnswerWithin(yield* timedSend(first), budgetMillis)
        expectAnswerWithin(yield* timedSend(second), budgetMillis)
        expect(yield* resolvesOf(platform)).toBe(1)

        const wrongPassword = "wr0ng-pa55word-abc"
        for (const wrongUrl of [`redis://:${wrongPassword}@127.0.0.1:${redis.port}`, redis.url]) {
          const wrong = yield* Layer.build(
            clientLayer(url, { url: wrongUrl, encryptionKeys: [encryptionKey], operationTimeout }, observed)
          )
          expectAnswerWithin(yield* timedSend(wrong), budgetMillis)
        }
        expect(yield* resolvesOf(platform)).toBe(3)
        expect(warnings(observed.logs).length).toBe(2)
        const contents = yield* dump(redis.admin)
        expectNoSecrets(observed, [...contents.flat(), ...observed.logs], [password, wrongPassword])
      })
    ))

  it.scopedLive("a full Redis (maxmemory, noeviction): sends answer, the refused write is counted as oom", () =>
    observing((observed) =>
      Effect.gen(function*() {
        const redis = yield* startRedisServer(["--maxmemory", "1mb", "--maxmemory-policy", "noeviction"])
        const { url } = yield* serveReferencePlatform()
        // fill it until it refuses writes
        yield* Effect.promise(async () => {
          const filler = "x".repeat(64 * 1024)
          for (let i = 0; i < 64; i++) {
            try {
              await redis.admin.set(`filler:${i}`, filler)
            } catch {
              return
            }
          }
          throw new Error("Redis never got full")
        })
        const before = yield* storeErrorsOf("oom")
        const client = yield* Layer.build(
          clientLayer(url, { url: redis.url, encryptionKeys: [encryptionKey], operationTimeout }, observed)
        )
        expectAnswerWithin(yield* timedSend(client), budgetMillis)
        expect(yield* storeErrorsOf("oom")).toBe(before + 1)
        const contents = yield* dump(redis.admin)
        expect(contents.every(([key]) => key.startsWith("filler:"))).toBe(true)
        expectNoSecrets(observed, observed.logs)
      })
    ))

  it.scopedLive("no Redis listening at all: the layer starts and every send answers in its budget", () =>
    observing((observed) =>
      Effect.gen(function*() {
        const redis = yield* startRedisServer()
        yield* redis.kill
        const { url } = yield* serveReferencePlatform()
        const client = yield* Layer.build(
          clientLayer(url, { url: redis.url, encryptionKeys: [encryptionKey], operationTimeout }, observed)
        )
        for (let i = 0; i < 3; i++) expectAnswerWithin(yield* timedSend(client), budgetMillis)
        expect(warnings(observed.logs).length).toBe(1)
        expectNoSecrets(observed, observed.logs)
      })
    ))

  it.scopedLive("an entry answering garbage is a miss: the send resolves again and answers", () =>
    observing((observed) =>
      Effect.gen(function*() {
        const redis = yield* startRedisServer()
        const { platform, url } = yield* serveReferencePlatform()
        const options = { url: redis.url, encryptionKeys: [encryptionKey], operationTimeout }
        const first = yield* Layer.build(clientLayer(url, options, observed))
        expectAnswerWithin(yield* timedSend(first), budgetMillis)
        const [[key] = [""]] = yield* dump(redis.admin)
        yield* Effect.promise(() => redis.admin.set(key, "\u0000garbage{", "PX", 60_000))
        const second = yield* Layer.build(clientLayer(url, options, observed))
        expectAnswerWithin(yield* timedSend(second), budgetMillis)
        expect(yield* resolvesOf(platform)).toBe(2)
        // the second client's write replaced the garbage with a readable entry
        const third = yield* Layer.build(clientLayer(url, options, observed))
        expectAnswerWithin(yield* timedSend(third), budgetMillis)
        expect(yield* resolvesOf(platform)).toBe(2)
      })
    ))
})
