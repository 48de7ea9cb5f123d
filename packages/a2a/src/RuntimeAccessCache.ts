/**
 * The runtime-access cache (SPEC §6): admitted access only, expiring at the backend's `expires_at` minus a
 * 30 s skew (60 s without it), dropped on a runtime 401/403.
 *
 * The cache is storage, not concurrency: the client runs one resolution per session itself, so a store
 * needs no single flight of its own. It is a service so another store can sit under it: the memory store
 * ({@link layerMemory}, bounded, least recently used out first), a `KeyValueStore` ({@link layerKeyValueStore},
 * shared between processes), or the CLI's 0600 file through {@link layerStore}.
 *
 * @since 0.1.0
 */
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { constVoid } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { A2ATimeoutError, AdmissionError } from "./A2AError.js"
import { BearerToken } from "./internal/bearerToken.js"
import { parseBoundedJson } from "./internal/boundedJson.js"
import { rpcUrlProblem } from "./internal/httpUrl.js"
import { withinStoreShare } from "./internal/storeShare.js"
import type * as RuntimeAccess from "./RuntimeAccess.js"

/**
 * One admitted runtime access. The token is `Redacted` and never leaves it except in the
 * `Authorization` header of a runtime request (and the persistent store's 0600 file).
 *
 * @since 0.1.0
 * @category models
 */
export interface CachedRuntimeAccess {
  readonly rpcUrl: string
  readonly token: Redacted.Redacted<string>
  /** Clock millis after which the entry is no longer used (expiry minus the safety skew). */
  readonly validUntilMillis: number
  readonly serviceUid?: string | undefined
}

/**
 * Where cache entries live. Keys are opaque hashes (backend URL, user, session uid).
 *
 * @since 0.1.0
 * @category models
 */
export interface RuntimeAccessStore {
  readonly get: (key: string) => Effect.Effect<Option.Option<CachedRuntimeAccess>>
  readonly set: (key: string, access: CachedRuntimeAccess) => Effect.Effect<void>
  readonly remove: (key: string) => Effect.Effect<void>
}

/**
 * The safety skew subtracted from the backend's `expires_at`.
 *
 * @since 0.1.0
 * @category constants
 */
export const expirySkewMillis = 30_000

/**
 * How long an access without `expires_at` is kept.
 *
 * @since 0.1.0
 * @category constants
 */
export const fallbackTtlMillis = 60_000

/**
 * The failures of a session's resolution (and transient wait).
 *
 * @since 0.1.0
 * @category models
 */
export type ResolveError = AdmissionError | A2ATimeoutError

/**
 * The cache a client reads and writes. Each operation may be given the deadline (clock millis) of the call it
 * serves: a cache over a store that can be slow answers well before it (see {@link make}); none means no call
 * waits.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** A still valid entry (per `Clock`), if any. */
  readonly get: (key: string, deadlineMillis?: number) => Effect.Effect<Option.Option<CachedRuntimeAccess>>
  /** Keeps an admitted access (not one already expired). */
  readonly set: (key: string, access: CachedRuntimeAccess, deadlineMillis?: number) => Effect.Effect<void>
  /** Drops the entry (after a runtime 401/403). */
  readonly invalidate: (key: string, deadlineMillis?: number) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class RuntimeAccessCache extends Context.Tag("@mainsequence/a2a/RuntimeAccessCache")<
  RuntimeAccessCache,
  Service
>() {}

/**
 * The cache entry for an admitted access: valid until `expires_at` − 30 s, or for 60 s from now (`Clock`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromAdmitted = (admitted: RuntimeAccess.Admitted): Effect.Effect<CachedRuntimeAccess> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    // Stryker disable next-line ConditionalExpression: DateTime.make(undefined) is None as well
    const expiresAt = admitted.expiresAt === undefined ? Option.none() : DateTime.make(admitted.expiresAt)
    return {
      rpcUrl: admitted.rpcUrl,
      token: admitted.token,
      validUntilMillis: Option.match(expiresAt, {
        onNone: () => now + fallbackTtlMillis,
        onSome: (at) => DateTime.toEpochMillis(at) - expirySkewMillis
      }),
      serviceUid: admitted.serviceUid
    }
  })

/**
 * A cache over a store: expiry is checked on every read (per `Clock`), and an entry read after it expired is
 * removed from the store. Given a call's deadline, each store operation may take at most a tenth of the time
 * the call has left: past it, a read is a miss and a write or removal is skipped, so a store that stalls never
 * fails a call (SPEC §6).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (store: RuntimeAccessStore): Effect.Effect<Service> =>
  Effect.sync(() =>
    cacheOver((deadlineMillis = Number.POSITIVE_INFINITY) => ({
      get: (key) => withinStoreShare(deadlineMillis, store.get(key), Option.none),
      set: (key, access) => withinStoreShare(deadlineMillis, store.set(key, access), constVoid),
      remove: (key) => withinStoreShare(deadlineMillis, store.remove(key), constVoid)
    }))
  )

// `storeFor`: the store as one call sees it, given the call's deadline.
const cacheOver = (storeFor: (deadlineMillis: number | undefined) => RuntimeAccessStore): Service =>
  RuntimeAccessCache.of({
    get: (key, deadlineMillis) => {
      const store = storeFor(deadlineMillis)
      return Effect.flatMap(
        store.get(key),
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (access) =>
            Effect.flatMap(
              Clock.currentTimeMillis,
              (now): Effect.Effect<Option.Option<CachedRuntimeAccess>> =>
                now < access.validUntilMillis ? Effect.succeedSome(access) : Effect.as(store.remove(key), Option.none())
            )
        })
      )
    },
    set: (key, access, deadlineMillis) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => now < access.validUntilMillis ? storeFor(deadlineMillis).set(key, access) : Effect.void
      ),
    invalidate: (key, deadlineMillis) => storeFor(deadlineMillis).remove(key)
  })

// The memory store answers at once: nothing to bound.
const memoryCache = (store: Effect.Effect<RuntimeAccessStore>): Effect.Effect<Service> =>
  Effect.map(store, (memory) => cacheOver(() => memory))

/**
 * @since 0.2.0
 * @category models
 */
export interface MemoryStoreOptions {
  /**
   * The most entries kept; past it the least recently used goes first. Default {@link defaultMaxEntries}.
   */
  readonly maxEntries?: number | undefined
}

/**
 * The default `maxEntries` of the memory store: 10,000 entries (about 4 MiB of heap).
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxEntries = 10_000

/**
 * The in-memory store, with how many entries it holds.
 *
 * @since 0.2.0
 * @category models
 */
export interface MemoryStore extends RuntimeAccessStore {
  /** The entries held now (expired ones not yet swept included). */
  readonly size: Effect.Effect<number>
}

/** How many of the least recently used entries each read and write looks at, dropping those that expired. */
const sweepPerOperation = 2

/**
 * An in-memory store: constant time per operation, at most `maxEntries` entries (least recently used out
 * first); an expired entry is dropped when read, and each read and each write sweeps the least recently used
 * entries that expired, so it holds little more than its live entries while it is used (a client that now only
 * reads warm sessions still drains the entries of sessions it no longer sends to). Nothing sweeps between
 * operations: no timer is kept. A `maxEntries` that is not a positive integer is taken as the default.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeMemoryStoreWith = (options?: MemoryStoreOptions): Effect.Effect<MemoryStore> =>
  Effect.sync(() => {
    // (no separate `undefined` test: Number.isSafeInteger refuses it, so such a test could not fail)
    const max = options?.maxEntries ?? 0
    const maxEntries = Number.isSafeInteger(max) && max > 0 ? max : defaultMaxEntries
    // A Map iterates in insertion order: re-inserting on each use keeps the least recently used first.
    const entries = new Map<string, CachedRuntimeAccess>()
    const sweep = (now: number) => {
      let looked = 0
      for (const [key, access] of entries) {
        if (looked++ === sweepPerOperation) break
        if (now >= access.validUntilMillis) entries.delete(key)
      }
    }
    return {
      get: (key) =>
        Effect.clockWith((clock) =>
          Effect.sync(() => {
            const now = clock.unsafeCurrentTimeMillis()
            sweep(now)
            const access = entries.get(key)
            if (access === undefined) return Option.none()
            entries.delete(key)
            if (now >= access.validUntilMillis) return Option.none()
            entries.set(key, access)
            return Option.some(access)
          })
        ),
      set: (key, access) =>
        Effect.clockWith((clock) =>
          Effect.sync(() => {
            entries.delete(key)
            entries.set(key, access)
            sweep(clock.unsafeCurrentTimeMillis())
            // least recently used first (deleting the current key while iterating a Map is safe)
            for (const oldest of entries.keys()) {
              if (entries.size <= maxEntries) break
              entries.delete(oldest)
            }
          })
        ),
      remove: (key) => Effect.sync(() => void entries.delete(key)),
      size: Effect.sync(() => entries.size)
    }
  })

/**
 * An in-memory store with the default maximum ({@link makeMemoryStoreWith}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemoryStore: Effect.Effect<RuntimeAccessStore> = makeMemoryStoreWith()

/**
 * A store's JSON text (a file, a key-value entry) decoded as `schema`, within `maxDepth` levels of nesting
 * checked without recursion before the text is parsed: `None` for text that is not JSON, nests deeper or
 * breaks the schema. What a store reads may have been written by anyone; deep nesting costs it nothing.
 *
 * @since 0.2.0
 * @category constructors
 */
export const decodeStoredJson = <A, I>(
  schema: Schema.Schema<A, I>,
  maxDepth: number
): (text: string) => Option.Option<A> => {
  const decode = Schema.decodeUnknownOption(schema)
  return (text) => Option.flatMap(Either.getRight(parseBoundedJson(text, maxDepth)), decode)
}

/**
 * A stored entry's `rpcUrl`: an absolute `http:` or `https:` URL without a query or a fragment. What a store
 * reads may have been written by anyone; an entry whose address is anything else is a miss, never sent to.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoredRpcUrl = Schema.String.pipe(Schema.filter(rpcUrlProblem))

/**
 * A stored entry's runtime token: one an HTTP header can carry (visible ASCII, no spaces); an entry with
 * another token is a miss.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoredToken = BearerToken

/**
 * The layout of an entry in a `KeyValueStore`: a versioned JSON object, the token in clear (the store is
 * where the token lives, as the CLI's 0600 file is).
 */
const StoredFields = Schema.Struct({
  version: Schema.Literal(1),
  rpcUrl: StoredRpcUrl,
  token: Schema.Redacted(StoredToken),
  validUntilMillis: Schema.Finite,
  serviceUid: Schema.optional(Schema.String)
})
// An entry is one level deep: 8 leaves room for the format to grow, and none for a hostile value.
const decodeStored = decodeStoredJson(StoredFields, 8)
const encodeStored = Schema.encodeSync(Schema.parseJson(StoredFields))

/**
 * @since 0.2.0
 * @category models
 */
export interface KeyValueStoreOptions {
  /** Prepended to every key (a hex hash); default `"mainsequence-a2a-runtime-access-"`, a valid file name. */
  readonly prefix?: string | undefined
}

/**
 * A store over `@effect/platform`'s `KeyValueStore`, so processes can share access through any key-value
 * backend (in memory, the file system, Redis, …). Each entry is one versioned JSON value whose token is
 * in clear: whoever can read the backend can use the tokens until they expire. An entry that cannot be read
 * (another layout, a failing backend) is a miss; a failing write is ignored (the next call resolves again).
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeKeyValueStore = (
  store: KeyValueStore.KeyValueStore,
  options?: KeyValueStoreOptions
): RuntimeAccessStore => {
  const prefix = options?.prefix ?? "mainsequence-a2a-runtime-access-"
  return {
    get: (key) =>
      store.get(prefix + key).pipe(
        Effect.map(Option.flatMap(decodeStored)),
        Effect.map(Option.map(({ rpcUrl, serviceUid, token, validUntilMillis }): CachedRuntimeAccess => ({
          rpcUrl,
          token,
          validUntilMillis,
          serviceUid
        }))),
        Effect.orElseSucceed(() => Option.none())
      ),
    set: (key, access) =>
      store.set(
        prefix + key,
        encodeStored({
          version: 1,
          rpcUrl: access.rpcUrl,
          token: access.token,
          validUntilMillis: access.validUntilMillis,
          // an undefined serviceUid is left out of the JSON (JSON.stringify drops it)
          serviceUid: access.serviceUid
        })
      ).pipe(Effect.ignore),
    remove: (key) => Effect.ignore(store.remove(prefix + key))
  }
}

/**
 * The cache in memory, for one process.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<RuntimeAccessCache> = Layer.effect(
  RuntimeAccessCache,
  memoryCache(makeMemoryStore)
)

/**
 * The cache in memory with options (e.g. a `maxEntries` other than the default).
 *
 * @example
 * import { RuntimeAccessCache } from "@mainsequence/a2a"
 *
 * // a service that talks to at most a few hundred sessions at a time
 * export const CacheLive = RuntimeAccessCache.layerMemoryWith({ maxEntries: 1_000 })
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemoryWith = (options: MemoryStoreOptions): Layer.Layer<RuntimeAccessCache> =>
  Layer.effect(RuntimeAccessCache, memoryCache(makeMemoryStoreWith(options)))

/**
 * The cache over the `KeyValueStore` in context ({@link makeKeyValueStore}).
 *
 * @example
 * import * as KeyValueStore from "@effect/platform/KeyValueStore"
 * import { RuntimeAccessCache } from "@mainsequence/a2a"
 * import * as Layer from "effect/Layer"
 *
 * // any KeyValueStore: here in memory; a Redis-backed one shares access between processes
 * export const CacheLive = RuntimeAccessCache.layerKeyValueStore().pipe(Layer.provide(KeyValueStore.layerMemory))
 *
 * @since 0.2.0
 * @category layers
 */
export const layerKeyValueStore = (
  options?: KeyValueStoreOptions
): Layer.Layer<RuntimeAccessCache, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(
    RuntimeAccessCache,
    Effect.flatMap(KeyValueStore.KeyValueStore, (store) => make(makeKeyValueStore(store, options)))
  )

/**
 * The cache over a persistent store (the CLI's file).
 *
 * @example
 * import { RuntimeAccessCache } from "@mainsequence/a2a"
 * import * as Effect from "effect/Effect"
 * import * as Option from "effect/Option"
 *
 * // a store over a Map; a real one would persist the entries (the token stays Redacted)
 * const entries = new Map<string, RuntimeAccessCache.CachedRuntimeAccess>()
 * const store: RuntimeAccessCache.RuntimeAccessStore = {
 *   get: (key) => Effect.sync(() => Option.fromNullable(entries.get(key))),
 *   set: (key, access) => Effect.sync(() => void entries.set(key, access)),
 *   remove: (key) => Effect.sync(() => void entries.delete(key))
 * }
 *
 * export const RuntimeAccessCacheLive = RuntimeAccessCache.layerStore(store)
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStore = (store: RuntimeAccessStore): Layer.Layer<RuntimeAccessCache> =>
  Layer.effect(RuntimeAccessCache, make(store))
