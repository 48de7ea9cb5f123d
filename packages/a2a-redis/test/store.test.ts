import { describe, expect, it } from "@effect/vitest"
import type { RuntimeAccessCache } from "@mainsequence/a2a"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import * as Net from "node:net"
import { RedisRuntimeAccessStore } from "../src/index.js"
import { dump, freePort, requireRedisServer, startRedisServer } from "./redisServer.js"

requireRedisServer()

const token = "rt-5ecret-0f-the-runtime-aaaa"
const keyA = { id: "2026-11", key: Redacted.make(Buffer.alloc(32, 7).toString("base64")) }
const keyB = { id: "2026-12", key: Redacted.make(Buffer.alloc(32, 9).toString("base64")) }
const prefix = "test:"

const accessFor = (validForMillis: number) =>
  Effect.map(Clock.currentTimeMillis, (now): RuntimeAccessCache.CachedRuntimeAccess => ({
    rpcUrl: "http://127.0.0.1:1/runtime/",
    token: Redacted.make(token),
    validUntilMillis: now + validForMillis,
    serviceUid: "service-1"
  }))

const errorsOf = (errorType: string) =>
  Effect.map(
    Metric.value(Metric.tagged(RedisRuntimeAccessStore.storeErrors, "error.type", errorType)),
    (state) => state.count
  )

// A server that speaks Redis' protocol but answers every command (after the ready check) with `reply`.
const answeringEveryCommand = (reply: string) =>
  Effect.acquireRelease(
    Effect.async<Net.Server>((resume) => {
      const info = "# Server\r\nloading:0\r\n"
      const server = Net.createServer((socket) => {
        socket.on("error", () => {})
        socket.on("data", (data) => {
          const commands = data.toString("latin1").split(/\*\d+\r\n\$\d+\r\n/).slice(1)
          for (const command of commands) {
            socket.write(command.toUpperCase().startsWith("INFO") ? `$${info.length}\r\n${info}\r\n` : reply)
          }
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.sync(() => server.close())
  ).pipe(Effect.map((server) => (server.address() as Net.AddressInfo).port))

describe("RedisRuntimeAccessStore over a real redis-server", () => {
  it.scopedLive("an entry expires in Redis with its access (PTTL = validUntilMillis − now)", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const store = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, encryptionKeys: [keyA] })
      yield* store.set("k", yield* accessFor(90_000))
      const pttl = yield* Effect.promise(() => redis.admin.pttl(prefix + "k"))
      expect(pttl).toBeGreaterThan(85_000)
      expect(pttl).toBeLessThanOrEqual(90_000)
      // written again: replaced in one SET, with the new access's expiry
      yield* store.set("k", yield* accessFor(20_000))
      expect(yield* Effect.promise(() => redis.admin.pttl(prefix + "k"))).toBeLessThanOrEqual(20_000)
      expect((yield* dump(redis.admin)).length).toBe(1)
      // an access already expired is not written
      yield* store.set("gone", yield* accessFor(-1))
      expect(yield* Effect.promise(() => redis.admin.exists(prefix + "gone"))).toBe(0)
      const read = yield* store.get("k")
      expect(Option.map(read, (a) => Redacted.value(a.token))).toEqual(Option.some(token))
      expect(Option.map(read, (a) => a.serviceUid)).toEqual(Option.some("service-1"))
      yield* store.remove("k")
      expect(yield* Effect.promise(() => redis.admin.exists(prefix + "k"))).toBe(0)
    }))

  it.scopedLive("the stored value holds no token bytes, and names its key id", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const store = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, encryptionKeys: [keyA] })
      yield* store.set("k", yield* accessFor(60_000))
      const [[key, value] = ["", ""]] = yield* dump(redis.admin)
      expect(key).toBe(prefix + "k")
      expect(value.startsWith(`msa1.${keyA.id}.`)).toBe(true)
      for (const form of [token, Buffer.from(token).toString("base64"), Buffer.from(token).toString("base64url")]) {
        expect(value).not.toContain(form)
        expect(value).not.toContain(form.slice(4, 16))
      }
      expect(value).not.toContain("127.0.0.1")
    }))

  it.scopedLive("a tampered entry is a miss (and counted as invalid_entry)", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const store = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, encryptionKeys: [keyA] })
      yield* store.set("k", yield* accessFor(60_000))
      const value = (yield* Effect.promise(() => redis.admin.get(prefix + "k"))) ?? ""
      const last = value.at(-2) === "A" ? "B" : "A"
      yield* Effect.promise(() => redis.admin.set(prefix + "k", value.slice(0, -2) + last + value.slice(-1)))
      const before = yield* errorsOf("invalid_entry")
      expect(yield* store.get("k")).toEqual(Option.none())
      expect(yield* errorsOf("invalid_entry")).toBe(before + 1)
      for (const garbage of ["garbage", "msa1.2026-11.x.y", "msa1...", "clear.{}"]) {
        yield* Effect.promise(() => redis.admin.set(prefix + "k", garbage))
        expect(yield* store.get("k")).toEqual(Option.none())
      }
    }))

  it.scopedLive("a value over maxEntryBytes is a miss, read no further than the bound; such an access is not written", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const store = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, encryptionKeys: [keyA] })
      const sentByRedis = Effect.promise(async () =>
        Number(/total_net_output_bytes:(\d+)/.exec(await redis.admin.info("stats"))?.[1])
      )
      yield* Effect.promise(() =>
        redis.admin.set(prefix + "huge", "x".repeat(8 * RedisRuntimeAccessStore.maxEntryBytes))
      )
      const before = yield* sentByRedis
      const invalid = yield* errorsOf("invalid_entry")
      expect(yield* store.get("huge")).toEqual(Option.none())
      expect(yield* errorsOf("invalid_entry")).toBe(invalid + 1)
      expect((yield* sentByRedis) - before).toBeLessThan(2 * RedisRuntimeAccessStore.maxEntryBytes)
      // an access whose entry would be over the bound is not written
      const access = yield* accessFor(60_000)
      yield* store.set("long", {
        ...access,
        rpcUrl: `http://127.0.0.1:1/${"r".repeat(RedisRuntimeAccessStore.maxEntryBytes)}`
      })
      expect(yield* Effect.promise(() => redis.admin.exists(prefix + "long"))).toBe(0)
      yield* store.set("long", access)
      expect(Option.isSome(yield* store.get("long"))).toBe(true)
    }))

  it.scopedLive("an entry moved under another key is a miss (the key is the associated data)", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const store = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, encryptionKeys: [keyA] })
      yield* store.set("session-a", yield* accessFor(60_000))
      yield* Effect.promise(() => redis.admin.copy(prefix + "session-a", prefix + "session-b"))
      expect(Option.isSome(yield* store.get("session-a"))).toBe(true)
      expect(yield* store.get("session-b")).toEqual(Option.none())
    }))

  it.scopedLive("rotation: entries of the old key stay readable, new writes use the new key", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const before = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, encryptionKeys: [keyA] })
      yield* before.set("old", yield* accessFor(60_000))
      const rotated = yield* RedisRuntimeAccessStore.make({
        url: redis.url,
        keyPrefix: prefix,
        encryptionKeys: [keyB, keyA]
      })
      const old = yield* rotated.get("old")
      expect(Option.map(old, (a) => Redacted.value(a.token))).toEqual(Option.some(token))
      yield* rotated.set("new", yield* accessFor(60_000))
      const written = (yield* Effect.promise(() => redis.admin.get(prefix + "new"))) ?? ""
      expect(written.startsWith(`msa1.${keyB.id}.`)).toBe(true)
      // a process still on the old key alone misses the new entries (and never reads them wrongly)
      expect(yield* before.get("new")).toEqual(Option.none())
      // once the old key is dropped, its entries are misses
      const onlyNew = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, encryptionKeys: [keyB] })
      expect(yield* onlyNew.get("old")).toEqual(Option.none())
      expect(Option.isSome(yield* onlyNew.get("new"))).toBe(true)
    }))

  it.scopedLive("a key id of another key does not decrypt (same id, other key bytes)", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const writer = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, encryptionKeys: [keyA] })
      yield* writer.set("k", yield* accessFor(60_000))
      const impostor = yield* RedisRuntimeAccessStore.make({
        url: redis.url,
        keyPrefix: prefix,
        encryptionKeys: [{ id: keyA.id, key: keyB.key }]
      })
      expect(yield* impostor.get("k")).toEqual(Option.none())
    }))

  it.scopedLive("an option it does not have (a misspelt keyPrefix) is refused by name, nothing written", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const options = { url: redis.url, encryptionKeys: [keyA], keyprefix: "orders:" }
      const refused = yield* Effect.exit(
        RedisRuntimeAccessStore.make(options as unknown as RedisRuntimeAccessStore.Options)
      )
      const reason = `unknown option "keyprefix" (the options are url, client, keyPrefix, encryptionKeys, ` +
        "clearEntries, operationTimeout)"
      expect(refused).toEqual(Exit.fail(expect.objectContaining({ _tag: "RedisStoreOptionsError", reason })))
      expect(Exit.isFailure(refused) && String(Cause.squash(refused.cause))).toContain(
        `Redis runtime-access store: ${reason}`
      )
      const misplaced = { url: redis.url, encryptionKeys: [keyA], timeout: 5 }
      const layer = RedisRuntimeAccessStore.layer(misplaced as unknown as RedisRuntimeAccessStore.Options)
      const layerExit = yield* Effect.exit(Layer.build(layer))
      expect(layerExit).toEqual(
        Exit.fail(expect.objectContaining({ reason: expect.stringMatching(/^unknown option "timeout" \(/) }))
      )
      expect(yield* Effect.promise(() => redis.admin.dbsize())).toBe(0)
    }))

  it.scopedLive("without a key the store refuses to start, unless clear entries are chosen", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const refused = yield* Effect.exit(RedisRuntimeAccessStore.make({ url: redis.url }))
      expect(refused).toEqual(Exit.fail(expect.objectContaining({ _tag: "RedisStoreOptionsError" })))
      const empty = yield* Effect.exit(RedisRuntimeAccessStore.make({ url: redis.url, encryptionKeys: [] }))
      expect(Exit.isFailure(empty)).toBe(true)
      const clear = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, clearEntries: true })
      yield* clear.set("k", yield* accessFor(60_000))
      const value = (yield* Effect.promise(() => redis.admin.get(prefix + "k"))) ?? ""
      expect(value.startsWith("clear.")).toBe(true)
      expect(Option.isSome(yield* clear.get("k"))).toBe(true)
      // a clear entry planted with an address that is not http(s), or a token a header cannot carry, is a miss
      for (const [rpcUrl, token] of [["not a url", "tok"], ["https://rt.example/", "tok\r\nX-Evil: 1"]]) {
        const planted = JSON.stringify({ rpcUrl, token, validUntilMillis: Date.now() + 60_000 })
        yield* Effect.promise(() => redis.admin.set(prefix + "planted", `clear.${planted}`))
        expect(yield* clear.get("planted")).toEqual(Option.none())
      }
      // an encrypting store never takes a clear entry: whoever can write Redis cannot plant an access
      const encrypting = yield* RedisRuntimeAccessStore.make({
        url: redis.url,
        keyPrefix: prefix,
        encryptionKeys: [keyA]
      })
      expect(yield* encrypting.get("k")).toEqual(Option.none())
    }))

  it.scopedLive("an unusable key is refused, and the error does not hold it", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const short = "c2hvcnQta2V5LXNlY3JldA=="
      const cases = [
        { id: "k", key: Redacted.make(short) },
        { id: "a.b", key: keyA.key },
        { id: "", key: keyA.key }
      ]
      for (const key of cases) {
        const exit = yield* Effect.exit(RedisRuntimeAccessStore.make({ url: redis.url, encryptionKeys: [key] }))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(JSON.stringify(exit)).not.toContain(short)
        expect(JSON.stringify(exit)).not.toContain(Redacted.value(keyA.key))
      }
      const twice = yield* Effect.exit(RedisRuntimeAccessStore.make({ url: redis.url, encryptionKeys: [keyA, keyA] }))
      expect(Exit.isFailure(twice)).toBe(true)
    }))

  it.scopedLive("an id and a key given the wrong way round, or split at a colon, never show the key", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const secret = "q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0xcv="
      const failures: Array<string> = []
      for (const keys of [`${secret}:2026-12`, `${secret.slice(0, 10)}:${secret.slice(10)}`, `k1:${keyA.id}`]) {
        const provider = ConfigProvider.fromMap(
          new Map([["MAINSEQUENCE_A2A_REDIS_URL", redis.url], ["MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS", keys]])
        )
        const exit = yield* Effect.exit(
          Layer.build(RedisRuntimeAccessStore.layerConfig()).pipe(Effect.withConfigProvider(provider))
        )
        const text = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "started"
        expect(text).not.toContain(secret.slice(0, 10))
        failures.push(text.split("\n")[0] ?? "")
      }
      expect(failures).toEqual([
        "RedisStoreOptionsError: Redis runtime-access store: the id of encryption key 1 is not 1-64 letters, " +
        "digits, \"_\" or \"-\"",
        "RedisStoreOptionsError: Redis runtime-access store: encryption key 1 is not 32 bytes in base64 " +
        "(e.g. `openssl rand -base64 32`)",
        "RedisStoreOptionsError: Redis runtime-access store: encryption key 1 is not 32 bytes in base64 " +
        "(e.g. `openssl rand -base64 32`)"
      ])
    }))

  it.scopedLive("an operation timeout that is not a duration above 0 Node's timers can hold is refused", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const refused: Array<unknown> = []
      for (
        const operationTimeout of [Duration.infinity, Infinity, 0, -5, Duration.days(100_000), "1e3 millis"] as const
      ) {
        const exit = yield* Effect.exit(
          RedisRuntimeAccessStore.make({ url: redis.url, encryptionKeys: [keyA], operationTimeout })
        )
        refused.push(Exit.isFailure(exit) ? Cause.failureOption(exit.cause).pipe(Option.map((e) => e.reason)) : exit)
      }
      const reason = "operationTimeout must be a duration above 0 and at most 2147482647 ms"
      expect(refused).toEqual(Array.from({ length: 6 }, () => Option.some(reason)))
      const longest = yield* RedisRuntimeAccessStore.make({
        url: redis.url,
        encryptionKeys: [keyA],
        operationTimeout: Duration.days(24)
      })
      expect(yield* longest.get("k")).toEqual(Option.none())
    }))

  it.scopedLive("layerConfig reads the URL, prefix, keys (writing key first) and timeout from Config", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const provider = ConfigProvider.fromMap(
        new Map([
          ["MAINSEQUENCE_A2A_REDIS_URL", redis.url],
          ["MAINSEQUENCE_A2A_REDIS_KEY_PREFIX", "from-config:"],
          [
            "MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS",
            `${keyB.id}:${Redacted.value(keyB.key)}, ${keyA.id}:${Redacted.value(keyA.key)}`
          ],
          ["MAINSEQUENCE_A2A_REDIS_TIMEOUT", "300 millis"]
        ])
      )
      const options = yield* Effect.withConfigProvider(RedisRuntimeAccessStore.config, provider)
      expect(options.keyPrefix).toBe("from-config:")
      expect(options.encryptionKeys?.map((k) => k.id)).toEqual([keyB.id, keyA.id])
      const store = yield* RedisRuntimeAccessStore.make(options)
      yield* store.set("k", yield* accessFor(60_000))
      const value = (yield* Effect.promise(() => redis.admin.get("from-config:k"))) ?? ""
      expect(value.startsWith(`msa1.${keyB.id}.`)).toBe(true)
      // without keys and without MAINSEQUENCE_A2A_REDIS_CLEAR_ENTRIES the layer does not start
      const noKeys = ConfigProvider.fromMap(new Map([["MAINSEQUENCE_A2A_REDIS_URL", redis.url]]))
      const exit = yield* Effect.exit(
        Layer.build(RedisRuntimeAccessStore.layerConfig()).pipe(Effect.withConfigProvider(noKeys))
      )
      expect(exit).toEqual(Exit.fail(expect.objectContaining({ _tag: "RedisStoreOptionsError" })))
      const badKeys = ConfigProvider.fromMap(
        new Map([["MAINSEQUENCE_A2A_REDIS_URL", redis.url], [
          "MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS",
          "n0-c0lon-secret"
        ]])
      )
      const bad = yield* Effect.exit(Effect.withConfigProvider(RedisRuntimeAccessStore.config, badKeys))
      expect(Exit.isFailure(bad)).toBe(true)
      expect(JSON.stringify(bad)).not.toContain("n0-c0lon-secret")
    }))

  it.scopedLive("an outage is logged once, its end once, and the next outage again; each failure counted", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const logs: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => void logs.push(`${logLevel.label} ${String(message)}`))
      const store = yield* RedisRuntimeAccessStore.make({
        url: redis.url,
        keyPrefix: prefix,
        encryptionKeys: [keyA],
        operationTimeout: Duration.millis(100)
      })
      const outage = Effect.gen(function*() {
        yield* Effect.promise(() => redis.admin.client("PAUSE", 600, "ALL"))
        for (let i = 0; i < 3; i++) expect(yield* store.get("k")).toEqual(Option.none())
        yield* Effect.sleep(Duration.millis(700))
        yield* store.get("k")
      })
      const before = yield* errorsOf("timeout")
      yield* Effect.provide(Effect.zipRight(outage, outage), Logger.replace(Logger.defaultLogger, logger))
      expect(yield* errorsOf("timeout")).toBe(before + 6)
      expect(logs).toEqual([
        "WARN Redis runtime-access store unavailable (timeout): reads are misses and writes are skipped until it answers",
        "INFO Redis runtime-access store answers again",
        "WARN Redis runtime-access store unavailable (timeout): reads are misses and writes are skipped until it answers",
        "INFO Redis runtime-access store answers again"
      ])
    }))

  it.scopedLive("a paused Redis behind a client given to it: every command ends at the store's limit", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      // a client of the program's, with no command timeout of its own: only the store's limit bounds a command
      const client = new Redis(redis.port, "127.0.0.1")
      yield* Effect.addFinalizer(() => Effect.sync(() => client.disconnect()))
      const store = yield* RedisRuntimeAccessStore.make({
        client,
        keyPrefix: prefix,
        encryptionKeys: [keyA],
        operationTimeout: Duration.millis(200)
      })
      yield* store.set("k", yield* accessFor(60_000))
      yield* Effect.promise(() => redis.admin.client("PAUSE", 5_000, "ALL"))
      for (const operation of [store.get("k"), store.set("k", yield* accessFor(60_000)), store.remove("k")]) {
        const started = performance.now()
        yield* operation
        expect(performance.now() - started).toBeLessThan(1_500)
      }
    }))

  it.scopedLive("a refused password is counted and logged as wrongpass, none as noauth, not as connection", () =>
    Effect.gen(function*() {
      const password = "the-r1ght-pa55"
      const redis = yield* startRedisServer(["--requirepass", password], { password })
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => void logs.push(String(message)))
      const counted: Array<readonly [number, number]> = []
      for (const url of [`redis://:wr0ng@127.0.0.1:${redis.port}`, `redis://127.0.0.1:${redis.port}`]) {
        const before = [yield* errorsOf("wrongpass"), yield* errorsOf("noauth")] as const
        const store = yield* RedisRuntimeAccessStore.make({ url, encryptionKeys: [keyA], keyPrefix: prefix })
        yield* Effect.provide(store.get("k"), Logger.replace(Logger.defaultLogger, logger))
        counted.push([(yield* errorsOf("wrongpass")) - before[0], (yield* errorsOf("noauth")) - before[1]])
      }
      expect(counted).toEqual([[1, 0], [0, 1]])
      expect(logs.map((line) => /\((\w+)\)/.exec(line)?.[1])).toEqual(["wrongpass", "noauth"])
    }))

  it.scopedLive("a key of another Redis type is an invalid entry: a miss, overwritten, no outage logged", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => void logs.push(String(message)))
      const store = yield* RedisRuntimeAccessStore.make({ url: redis.url, keyPrefix: prefix, encryptionKeys: [keyA] })
      yield* Effect.promise(() => redis.admin.hset(`${prefix}k`, "field", "value"))
      const before = [yield* errorsOf("invalid_entry"), yield* errorsOf("reply_error")] as const
      const read = yield* Effect.provide(store.get("k"), Logger.replace(Logger.defaultLogger, logger))
      expect(read).toEqual(Option.none())
      expect([(yield* errorsOf("invalid_entry")) - before[0], (yield* errorsOf("reply_error")) - before[1]])
        .toEqual([1, 0])
      expect(logs).toEqual([])
      yield* store.set("k", yield* accessFor(60_000))
      expect(Option.map(yield* store.get("k"), (access) => access.serviceUid)).toEqual(Option.some("service-1"))
    }))

  it.scopedLive("a server that answers GETRANGE with another type (nil, integer, array) gives a miss, no defect", () =>
    Effect.gen(function*() {
      const results: Array<unknown> = []
      for (const reply of ["$-1\r\n", ":5\r\n", "*-1\r\n", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "+OK\r\n"]) {
        const port = yield* answeringEveryCommand(reply)
        const store = yield* RedisRuntimeAccessStore.make({
          url: `redis://127.0.0.1:${port}`,
          encryptionKeys: [keyA],
          operationTimeout: Duration.seconds(2)
        })
        results.push(yield* Effect.exit(store.get("k")))
      }
      expect(results).toEqual(Array.from({ length: 5 }, () => Exit.succeed(Option.none())))
    }))

  it.scopedLive("the Redis client's own errors (wrong password) hold no password", () =>
    Effect.gen(function*() {
      const password = "the-r1ght-pa55"
      const redis = yield* startRedisServer(["--requirepass", password], { password })
      const wrong = "the-wr0ng-pa55"
      const client = new Redis({
        host: "127.0.0.1",
        port: redis.port,
        password: wrong,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0
      })
      const errors: Array<string> = []
      client.on("error", (error: Error) => void errors.push(`${String(error)} ${error.stack ?? ""}`))
      yield* Effect.addFinalizer(() => Effect.sync(() => client.disconnect()))
      const store = yield* RedisRuntimeAccessStore.make({ client, encryptionKeys: [keyA], keyPrefix: prefix })
      yield* Effect.sleep(Duration.millis(300))
      expect(yield* store.get("k")).toEqual(Option.none())
      yield* store.set("k", yield* accessFor(60_000))
      expect(errors.length).toBeGreaterThan(0)
      expect(errors.join("\n")).toContain("WRONGPASS")
      for (const error of errors) {
        expect(error).not.toContain(wrong)
        expect(error).not.toContain(password)
      }
      expect(yield* Effect.promise(() => redis.admin.dbsize())).toBe(0)
    }))

  it.scopedLive("a Redis that comes up after the program started is used once it answers", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const store = yield* RedisRuntimeAccessStore.make({
        url: `redis://127.0.0.1:${port}`,
        keyPrefix: prefix,
        encryptionKeys: [keyA]
      })
      yield* store.set("k", yield* accessFor(60_000))
      expect(yield* store.get("k")).toEqual(Option.none())
      const redis = yield* startRedisServer([], { port })
      // the store reconnects in the background (at most 2 s between attempts)
      const read = yield* store.set("k", yield* accessFor(60_000)).pipe(
        Effect.zipRight(store.get("k")),
        Effect.flatMap((read) => Option.isSome(read) ? Effect.succeed(read) : Effect.fail("not yet")),
        Effect.retry({ schedule: Schedule.spaced(Duration.millis(200)), times: 25 })
      )
      expect(Option.map(read, (a) => Redacted.value(a.token))).toEqual(Option.some(token))
      expect(yield* Effect.promise(() => redis.admin.exists(prefix + "k"))).toBe(1)
    }))

  it.scopedLive("its own connection closes with the scope; a client given to it is left open", () =>
    Effect.gen(function*() {
      const redis = yield* startRedisServer()
      const connections = Effect.promise(async () =>
        String(await redis.admin.client("LIST")).split("\n").filter((line) => line.includes("addr=")).length
      )
      const baseline = yield* connections
      const scope = yield* Scope.make()
      const own = yield* Scope.extend(
        RedisRuntimeAccessStore.make({ url: redis.url, encryptionKeys: [keyA] }),
        scope
      )
      yield* own.set("k", yield* accessFor(60_000))
      expect(yield* connections).toBe(baseline + 1)
      yield* Scope.close(scope, Exit.void)
      expect(yield* connections).toBe(baseline)

      const client = new Redis(redis.port, "127.0.0.1")
      yield* Effect.addFinalizer(() => Effect.sync(() => client.disconnect()))
      const scope2 = yield* Scope.make()
      const given = yield* Scope.extend(RedisRuntimeAccessStore.make({ client, encryptionKeys: [keyA] }), scope2)
      expect(Option.isSome(yield* given.get("k"))).toBe(true)
      yield* Scope.close(scope2, Exit.void)
      expect(client.status).toBe("ready")
      expect(yield* Effect.promise(() => client.ping())).toBe("PONG")
    }))
})
