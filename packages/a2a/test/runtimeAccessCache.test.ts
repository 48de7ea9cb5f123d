import * as NodeContext from "@effect/platform-node/NodeContext"
import * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as RuntimeAccess from "../src/RuntimeAccess.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"

const decide = (answer: unknown) =>
  RuntimeAccess.decide(Schema.decodeUnknownSync(RuntimeAccess.ResolveRuntimeAccessAnswer)(answer))

const ready = {
  coding_agent_service_uid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
  mode: "token",
  rpc_url: "https://rt.example/base/",
  token: "secret-runtime-token",
  expires_at: null,
  runtime_interaction: { state: "ready", can_submit: true, notice: null, operation: null, retry_after_ms: null },
  runtime_presence: { phase: "serving", detail: "serving" },
  somethingNew: { kept: true }
}

describe("RuntimeAccess.decide", () => {
  it("admits on can_submit, with the token redacted and unknown keys kept", () => {
    const answer = Schema.decodeUnknownSync(RuntimeAccess.ResolveRuntimeAccessAnswer)(ready)
    expect(answer["somethingNew"]).toEqual({ kept: true })
    const decision = Either.getOrThrow(RuntimeAccess.decide(answer))
    expect(decision._tag).toBe("Admitted")
    if (decision._tag === "Admitted") {
      expect(Redacted.value(decision.token)).toBe("secret-runtime-token")
      expect(String(decision.token)).not.toContain("secret")
      expect(JSON.stringify(decision)).not.toContain("secret")
    }
  })

  it("admits a warning state; refuses can_submit without token access as a contract error", () => {
    const warning = decide({ ...ready, runtime_interaction: { ...ready.runtime_interaction, state: "warning" } })
    expect(Either.getOrThrow(warning)._tag).toBe("Admitted")
    expect(Either.isLeft(decide({ ...ready, mode: "unavailable" }))).toBe(true)
    expect(Either.isLeft(decide({ ...ready, rpc_url: " " }))).toBe(true)
    expect(Either.isLeft(decide({ ...ready, token: null }))).toBe(true)
  })

  it("admits an absolute http: or https: rpc_url as given (trimmed only); refuses any other, naming rpc_url", () => {
    const rpcUrlOf = (rpcUrl: string) =>
      Either.map(decide({ ...ready, rpc_url: rpcUrl }), (d) => d._tag === "Admitted" && d.rpcUrl)
    expect(rpcUrlOf("http://127.0.0.1:8080/rt/x/")).toEqual(Either.right("http://127.0.0.1:8080/rt/x/"))
    expect(rpcUrlOf(" HTTPS://Runtime.Example/rt/%7Ex/ ")).toEqual(Either.right("HTTPS://Runtime.Example/rt/%7Ex/"))
    for (const scheme of ["file:", "data:", "ftp:", "javascript:", "blob:", "ws:"]) {
      expect(rpcUrlOf(`${scheme}//runtime.example/rt/`)).toEqual(
        Either.left(`rpc_url has the scheme ${scheme}; it must be an absolute http: or https: URL`)
      )
    }
    expect(rpcUrlOf("/rt/x/")).toEqual(
      Either.left("rpc_url is not an absolute URL; it must be an absolute http: or https: URL")
    )
  })

  it("transient with a numeric retry waits (at least 100 ms); anything else blocked is terminal", () => {
    const blocked = (state: string, retry: number | null) => ({
      mode: "unavailable",
      rpc_url: null,
      token: null,
      runtime_interaction: { state, can_submit: false, notice: null, retry_after_ms: retry },
      detail: "why"
    })
    const waking = Either.getOrThrow(decide(blocked("waking", 1500)))
    expect(waking).toMatchObject({ _tag: "Transient", state: "waking", retryAfterMs: 1500 })
    expect(Either.getOrThrow(decide(blocked("checking", 5)))).toMatchObject({ retryAfterMs: 100 })
    expect(Either.getOrThrow(decide(blocked("starting", null)))._tag).toBe("Terminal")
    expect(Either.getOrThrow(decide(blocked("update_required", 1000)))).toMatchObject({
      _tag: "Terminal",
      detail: "why"
    })
  })

  it("a legacy backend without runtime_interaction decides on mode", () => {
    const { runtime_interaction: _, ...legacy } = ready
    expect(Either.getOrThrow(decide(legacy))._tag).toBe("Admitted")
    expect(Either.getOrThrow(decide({ mode: "unavailable", rpc_url: null, token: null }))._tag).toBe("Terminal")
  })
})

const admitted = (expiresAt: string | undefined): RuntimeAccess.Admitted => ({
  _tag: "Admitted",
  rpcUrl: "https://rt.example",
  token: Redacted.make("t"),
  expiresAt,
  serviceUid: undefined,
  state: "ready",
  notice: undefined
})

const memoryCache = Effect.flatMap(RuntimeAccessCache.makeMemoryStore, RuntimeAccessCache.make)

/** An access valid until `validUntilMillis`, its token named `token`. */
const entry = (validUntilMillis: number, token = "t"): RuntimeAccessCache.CachedRuntimeAccess => ({
  rpcUrl: "https://rt.example",
  token: Redacted.make(token),
  validUntilMillis
})

/** A cache over a store that keeps whatever it is given, expired or not (a plain `Map`, returned too). */
const cacheOverPlainMap = Effect.gen(function*() {
  const entries = new Map<string, RuntimeAccessCache.CachedRuntimeAccess>()
  const cache = yield* RuntimeAccessCache.make({
    get: (key) => Effect.sync(() => Option.fromNullable(entries.get(key))),
    set: (key, access) => Effect.sync(() => void entries.set(key, access)),
    remove: (key) => Effect.sync(() => void entries.delete(key))
  })
  return { cache, entries }
})

describe("RuntimeAccessCache", () => {
  it.effect("keeps access until expires_at − 30 s", () =>
    Effect.gen(function*() {
      const cache = yield* memoryCache
      // TestClock starts at 0 = 1970-01-01T00:00:00Z
      const access = yield* RuntimeAccessCache.fromAdmitted(admitted("1970-01-01T00:05:00Z"))
      expect(access.validUntilMillis).toBe(300_000 - 30_000)
      yield* cache.set("k", access)
      yield* TestClock.adjust("269 seconds")
      expect(Option.isSome(yield* cache.get("k"))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(Option.isNone(yield* cache.get("k"))).toBe(true)
    }))

  it.effect("falls back to 60 s without expires_at", () =>
    Effect.gen(function*() {
      const cache = yield* memoryCache
      yield* TestClock.adjust("10 seconds")
      const access = yield* RuntimeAccessCache.fromAdmitted(admitted(undefined))
      expect(access.validUntilMillis).toBe(70_000)
      yield* cache.set("k", access)
      yield* TestClock.adjust("59999 millis")
      expect(Option.isSome(yield* cache.get("k"))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(Option.isNone(yield* cache.get("k"))).toBe(true)
    }))

  it.effect("invalidate drops the entry; an access that expires exactly now is not kept", () =>
    Effect.gen(function*() {
      const store = yield* RuntimeAccessCache.makeMemoryStoreWith()
      const cache = yield* RuntimeAccessCache.make(store)
      yield* cache.set("k", entry(60_000))
      yield* cache.invalidate("k")
      expect(Option.isNone(yield* cache.get("k"))).toBe(true)
      yield* TestClock.adjust("1 second")
      yield* cache.set("now", entry(1_000))
      yield* cache.set("later", entry(1_001))
      // not even stored
      expect(yield* store.size).toBe(1)
      expect(Option.isNone(yield* cache.get("now"))).toBe(true)
      expect(Option.isSome(yield* cache.get("later"))).toBe(true)
    }))

  it.effect("an entry a store hands back after it expired is a miss, and removed from the store", () =>
    Effect.gen(function*() {
      // a store that knows nothing of expiry
      const { cache, entries } = yield* cacheOverPlainMap
      yield* cache.set("k", entry(1_000))
      yield* cache.set("live", entry(2_000))
      yield* TestClock.adjust("1 second")
      expect(Option.isNone(yield* cache.get("k"))).toBe(true)
      expect(Option.isSome(yield* cache.get("live"))).toBe(true)
      expect([...entries.keys()]).toEqual(["live"])
    }))
})

describe("RuntimeAccessCache: the memory store", () => {
  it.effect("holds at most maxEntries, the least recently used out first", () =>
    Effect.gen(function*() {
      const store = yield* RuntimeAccessCache.makeMemoryStoreWith({ maxEntries: 3 })
      for (const key of ["a", "b", "c"]) yield* store.set(key, entry(60_000, key))
      // reading `a` makes `b` the least recently used
      expect(Option.isSome(yield* store.get("a"))).toBe(true)
      yield* store.set("d", entry(60_000, "d"))
      expect(yield* store.size).toBe(3)
      expect(Option.isNone(yield* store.get("b"))).toBe(true)
      for (const key of ["a", "c", "d"]) {
        expect(Option.map(yield* store.get(key), (access) => Redacted.value(access.token))).toEqual(Option.some(key))
      }
      // setting a key again replaces it without growing
      yield* store.set("a", entry(60_000, "a2"))
      expect(yield* store.size).toBe(3)
      expect(Option.map(yield* store.get("a"), (access) => Redacted.value(access.token))).toEqual(Option.some("a2"))
    }))

  it.effect("the default maximum is defaultMaxEntries; a maxEntries that is not a positive integer is the default", () =>
    Effect.gen(function*() {
      for (const maxEntries of [undefined, 0, -1, 1.5, Number.NaN]) {
        const store = yield* RuntimeAccessCache.makeMemoryStoreWith({ maxEntries })
        for (let i = 0; i <= RuntimeAccessCache.defaultMaxEntries; i++) yield* store.set(`k${i}`, entry(60_000))
        expect(yield* store.size).toBe(RuntimeAccessCache.defaultMaxEntries)
        expect(Option.isNone(yield* store.get("k0"))).toBe(true)
      }
    }))

  it.effect("writes sweep the expired least recently used entries, two per write", () =>
    Effect.gen(function*() {
      const store = yield* RuntimeAccessCache.makeMemoryStoreWith({ maxEntries: 1_000 })
      // 100 sessions, each access valid for one second
      for (let i = 0; i < 100; i++) yield* store.set(`old${i}`, entry(1_000))
      yield* TestClock.adjust("1 second")
      expect(yield* store.size).toBe(100)
      // each write looks at the two least recently used entries (constant time): 50 writes sweep 100 expired
      // ones (and keep theirs)
      yield* store.set("new0", entry(60_000))
      expect(yield* store.size).toBe(99)
      for (let i = 1; i < 50; i++) yield* store.set(`new${i}`, entry(60_000))
      expect(yield* store.size).toBe(50)
      // a live entry is never swept
      yield* TestClock.adjust("58 seconds")
      for (let i = 0; i < 10; i++) yield* store.set(`more${i}`, entry(120_000))
      expect(yield* store.size).toBe(60)
    }))

  it.effect("an expired entry is dropped when read, and every read sweeps the two least recently used that expired", () =>
    Effect.gen(function*() {
      const store = yield* RuntimeAccessCache.makeMemoryStoreWith({ maxEntries: 1_000 })
      // a burst of ten sessions valid for one second, then one warm session the client keeps reading
      for (let i = 0; i < 10; i++) yield* store.set(`old${i}`, entry(1_000))
      yield* store.set("warm", entry(60_000, "warm"))
      yield* TestClock.adjust("1 second")
      // old0 and old1 swept, old9 dropped as read
      expect(Option.isNone(yield* store.get("old9"))).toBe(true)
      expect(yield* store.size).toBe(8)
      // reads that hit and reads that miss sweep alike, two at a time (constant time per read)
      expect(Option.isSome(yield* store.get("warm"))).toBe(true)
      expect(yield* store.size).toBe(6)
      expect(Option.isNone(yield* store.get("missing"))).toBe(true)
      expect(yield* store.size).toBe(4)
      expect(Option.isSome(yield* store.get("warm"))).toBe(true)
      expect(yield* store.size).toBe(2)
      // only reads of the warm session from here: the last expired entry goes, the live one stays
      for (let i = 0; i < 3; i++) {
        expect(Option.map(yield* store.get("warm"), (access) => Redacted.value(access.token))).toEqual(
          Option.some("warm")
        )
      }
      expect(yield* store.size).toBe(1)
    }))
})

describe("RuntimeAccessCache: over a KeyValueStore", () => {
  const prefix = "mainsequence-a2a-runtime-access-"
  const roundTrip = Effect.gen(function*() {
    const cache = yield* RuntimeAccessCache.RuntimeAccessCache
    const kv = yield* KeyValueStore.KeyValueStore
    yield* cache.set("k", { ...entry(60_000, "secret-runtime-token"), serviceUid: "svc-1" })
    const stored = yield* kv.get(`${prefix}k`)
    // one versioned JSON value per entry
    expect(Option.map(stored, (text) => JSON.parse(text))).toEqual(Option.some({
      version: 1,
      rpcUrl: "https://rt.example",
      token: "secret-runtime-token",
      validUntilMillis: 60_000,
      serviceUid: "svc-1"
    }))
    const read = yield* cache.get("k")
    expect(Option.map(read, (access) => Redacted.isRedacted(access.token))).toEqual(Option.some(true))
    expect(Option.map(read, (access) => [access.rpcUrl, Redacted.value(access.token), access.serviceUid])).toEqual(
      Option.some(["https://rt.example", "secret-runtime-token", "svc-1"])
    )
    // expired: a miss, and removed
    yield* TestClock.adjust("1 minute")
    expect(Option.isNone(yield* cache.get("k"))).toBe(true)
    expect(Option.isNone(yield* kv.get(`${prefix}k`))).toBe(true)
    // another layout is a miss, not a failure
    yield* kv.set(`${prefix}x`, "{\"version\": 2}")
    expect(Option.isNone(yield* cache.get("x"))).toBe(true)
    yield* cache.set("y", entry(120_000))
    yield* cache.invalidate("y")
    expect(Option.isNone(yield* kv.get(`${prefix}y`))).toBe(true)
  })

  it.effect("KeyValueStore.layerMemory: versioned entries, expiry, invalidate", () =>
    roundTrip.pipe(
      Effect.provide(Layer.provideMerge(RuntimeAccessCache.layerKeyValueStore(), KeyValueStore.layerMemory))
    ))

  it.scoped("KeyValueStore.layerFileSystem: the same, one file per entry in a directory processes share", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const directory = yield* fs.makeTempDirectoryScoped()
      yield* roundTrip.pipe(
        Effect.provide(
          Layer.provideMerge(RuntimeAccessCache.layerKeyValueStore(), KeyValueStore.layerFileSystem(directory))
        )
      )
      // what is left on disk: the entry written last was invalidated, the expired one removed when read
      expect(yield* fs.readDirectory(directory)).toEqual([`${prefix}x`])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("RuntimeAccessCache: edges of the store contract", () => {
  // a KeyValueStore whose backend is down: every operation fails
  const down = (method: string) =>
    Effect.fail(new PlatformError.SystemError({ reason: "Unknown", module: "KeyValueStore", method }))
  const failing = KeyValueStore.makeStringOnly({
    get: () => down("get"),
    set: () => down("set"),
    remove: () => down("remove"),
    clear: down("clear"),
    size: down("size")
  })

  it.effect("a KeyValueStore that fails: a read is a miss, a write and a removal are ignored", () =>
    Effect.gen(function*() {
      const cache = yield* RuntimeAccessCache.make(RuntimeAccessCache.makeKeyValueStore(failing))
      yield* cache.set("k", entry(60_000))
      expect(yield* cache.get("k")).toEqual(Option.none())
      yield* cache.invalidate("k")
    }))

  it.effect("an access without serviceUid is stored without the field, and read back without it", () =>
    Effect.gen(function*() {
      const cache = yield* RuntimeAccessCache.RuntimeAccessCache
      const kv = yield* KeyValueStore.KeyValueStore
      yield* cache.set("k", entry(60_000, "tok"))
      const stored = Option.map(yield* kv.get("mainsequence-a2a-runtime-access-k"), (text) => JSON.parse(text))
      expect(stored).toEqual(
        Option.some({ version: 1, rpcUrl: "https://rt.example", token: "tok", validUntilMillis: 60_000 })
      )
      const read = Option.getOrThrow(yield* cache.get("k"))
      expect(read.serviceUid).toBeUndefined()
      expect(Redacted.value(read.token)).toBe("tok")
    }).pipe(Effect.provide(Layer.provideMerge(RuntimeAccessCache.layerKeyValueStore(), KeyValueStore.layerMemory))))

  it.effect("an entry nested deeper than 8 levels is a miss, read without recursion (one at 8 is read)", () =>
    Effect.gen(function*() {
      const cache = yield* RuntimeAccessCache.RuntimeAccessCache
      const kv = yield* KeyValueStore.KeyValueStore
      // the entry object is level 1: an extra field of n arrays makes it 1 + n deep
      const stored = (n: number) =>
        `{"version":1,"rpcUrl":"https://rt.example","token":"tok","validUntilMillis":60000,"x":${"[".repeat(n)}${
          "]".repeat(n)
        }}`
      yield* kv.set("mainsequence-a2a-runtime-access-k7", stored(7))
      yield* kv.set("mainsequence-a2a-runtime-access-k8", stored(8))
      yield* kv.set("mainsequence-a2a-runtime-access-deep", stored(1_000_000))
      expect(Option.map(yield* cache.get("k7"), (access) => access.rpcUrl)).toEqual(Option.some("https://rt.example"))
      expect(yield* cache.get("k8")).toEqual(Option.none())
      expect(yield* cache.get("deep")).toEqual(Option.none())
    }).pipe(Effect.provide(Layer.provideMerge(RuntimeAccessCache.layerKeyValueStore(), KeyValueStore.layerMemory))))

  it.effect("an entry whose rpcUrl is not an http(s) URL or whose token a header cannot carry is a miss", () =>
    Effect.gen(function*() {
      const cache = yield* RuntimeAccessCache.RuntimeAccessCache
      const kv = yield* KeyValueStore.KeyValueStore
      const stored = (rpcUrl: string, token: string) =>
        JSON.stringify({ version: 1, rpcUrl, token, validUntilMillis: 60_000 })
      const entries: ReadonlyArray<readonly [string, string, boolean]> = [
        ["https://rt.example", "tok", true],
        ["not a url", "tok", false],
        ["file:///etc/passwd", "tok", false],
        ["https://rt.example/rt/?sig=1", "tok", false],
        ["https://rt.example", "tok\r\nX-Evil: 1", false],
        ["https://rt.example", "tok en", false]
      ]
      const read: Array<boolean> = []
      for (const [i, [rpcUrl, token]] of entries.entries()) {
        yield* kv.set(`mainsequence-a2a-runtime-access-k${i}`, stored(rpcUrl, token))
        read.push(Option.isSome(yield* cache.get(`k${i}`)))
      }
      expect(read).toEqual(entries.map(([, , expected]) => expected))
      // a validity JSON reads as Infinity (it would be written back as null)
      yield* kv.set(
        "mainsequence-a2a-runtime-access-inf",
        stored("https://rt.example", "tok").replace("60000", "1e999")
      )
      expect(yield* cache.get("inf")).toEqual(Option.none())
    }).pipe(Effect.provide(Layer.provideMerge(RuntimeAccessCache.layerKeyValueStore(), KeyValueStore.layerMemory))))

  it("StoredRpcUrl and StoredToken name what is wrong, never the value a store held", () => {
    const problem = <A, I>(schema: Schema.Schema<A, I>, value: unknown) =>
      Either.match(Schema.decodeUnknownEither(schema)(value), {
        onLeft: (error) => error.message,
        onRight: () => "accepted"
      })
    const token = problem(RuntimeAccessCache.StoredToken, "secret-stored-token with-a-space")
    expect(token).toContain("must be visible ASCII characters")
    expect(token).not.toContain("secret-stored-token")
    const url = problem(RuntimeAccessCache.StoredRpcUrl, "ftp://secret-stored-host/")
    expect(url).toContain("has the scheme ftp:")
    expect(url).not.toContain("secret-stored-host")
    expect(problem(RuntimeAccessCache.StoredToken, "tok")).toBe("accepted")
  })

  it.effect("set refuses an access that expires exactly now, whatever the store would keep", () =>
    Effect.gen(function*() {
      // a store that keeps whatever it is given, expired or not
      const { cache, entries } = yield* cacheOverPlainMap
      yield* TestClock.adjust("1 second")
      yield* cache.set("now", entry(1_000))
      yield* cache.set("past", entry(999))
      yield* cache.set("later", entry(1_001))
      expect([...entries.keys()]).toEqual(["later"])
    }))
})
