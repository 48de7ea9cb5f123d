/**
 * The runtime-access cache (SPEC §6): admitted access only, expiring at the backend's `expires_at` minus a
 * 30 s skew (60 s without it), dropped on a runtime 401/403, one resolution in flight per key.
 *
 * The cache is a service so a persistent store can sit under it: the CLI keeps entries in a 0600 file
 * through {@link layerStore}.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type { A2ATimeoutError, AdmissionError } from "./A2AError.js"
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
 * The failures of a resolution (and transient wait) shared through the cache.
 *
 * @since 0.1.0
 * @category models
 */
export type ResolveError = AdmissionError | A2ATimeoutError

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** A still valid entry (per `Clock`), if any. */
  readonly get: (key: string) => Effect.Effect<Option.Option<CachedRuntimeAccess>>
  /** Keeps an admitted access (not one already expired). */
  readonly set: (key: string, access: CachedRuntimeAccess) => Effect.Effect<void>
  /** Drops the entry (after a runtime 401/403). */
  readonly invalidate: (key: string) => Effect.Effect<void>
  /**
   * A valid entry, else runs `resolve` and keeps its admitted access. Concurrent callers for the same key
   * share one run of `resolve` (single flight); when the caller running it is interrupted, one of the others
   * runs its own `resolve`. `fresh` skips the lookup. The client resolves every session through it: a
   * custom service's `getOrResolve` is the client's single flight.
   */
  readonly getOrResolve: <R>(
    key: string,
    resolve: Effect.Effect<CachedRuntimeAccess, ResolveError, R>,
    options?: GetOrResolveOptions
  ) => Effect.Effect<CachedRuntimeAccess, ResolveError, R>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface GetOrResolveOptions {
  readonly fresh?: boolean | undefined
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

type Flight = Deferred.Deferred<CachedRuntimeAccess, ResolveError>

/**
 * A cache over a store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (store: RuntimeAccessStore): Effect.Effect<Service> =>
  Effect.gen(function*() {
    const flights = yield* SynchronizedRef.make(new Map<string, Flight>())

    const get = (key: string) =>
      Effect.flatMap(
        store.get(key),
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (access) =>
            Effect.map(
              Clock.currentTimeMillis,
              (now): Option.Option<CachedRuntimeAccess> =>
                now < access.validUntilMillis ? Option.some(access) : Option.none()
            )
        })
      )

    const set = (key: string, access: CachedRuntimeAccess) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => now < access.validUntilMillis ? store.set(key, access) : Effect.void
      )

    const endFlight = (key: string, flight: Flight, exit: Exit.Exit<CachedRuntimeAccess, ResolveError>) =>
      SynchronizedRef.update(flights, (map) => {
        const next = new Map(map)
        if (next.get(key) === flight) next.delete(key)
        return next
      }).pipe(Effect.zipRight(Deferred.done(flight, exit)))

    const resolveShared = <R>(
      key: string,
      resolve: Effect.Effect<CachedRuntimeAccess, ResolveError, R>,
      fresh: boolean
    ): Effect.Effect<CachedRuntimeAccess, ResolveError, R> =>
      Effect.uninterruptibleMask((restore) =>
        SynchronizedRef.modifyEffect(
          flights,
          (map): Effect.Effect<readonly [Effect.Effect<CachedRuntimeAccess, ResolveError, R>, Map<string, Flight>]> => {
            const running = map.get(key)
            if (running !== undefined) {
              // The run's leader was interrupted, not the resolution: a joined caller takes over.
              const join = restore(Effect.flatMap(
                Effect.exit(Deferred.await(running)),
                (exit) => Exit.isInterrupted(exit) ? resolveShared(key, resolve, false) : exit
              ))
              return Effect.succeed([join, map] as const)
            }
            return (fresh ? Effect.succeedNone : get(key)).pipe(
              Effect.flatMap(Option.match({
                onSome: (access) => Effect.succeed([Effect.succeed(access), map] as const),
                onNone: () =>
                  Effect.map(Deferred.make<CachedRuntimeAccess, ResolveError>(), (flight) => {
                    const lead = restore(Effect.tap(resolve, (access) => set(key, access))).pipe(
                      Effect.onExit((exit) => endFlight(key, flight, exit))
                    )
                    return [lead, new Map(map).set(key, flight)] as const
                  })
              }))
            )
          }
        ).pipe(Effect.flatten)
      )

    // A hit needs no lock: only a miss looks again under it and starts (or joins) the one resolution.
    const getOrResolve = <R>(
      key: string,
      resolve: Effect.Effect<CachedRuntimeAccess, ResolveError, R>,
      options?: GetOrResolveOptions
    ): Effect.Effect<CachedRuntimeAccess, ResolveError, R> =>
      options?.fresh === true
        ? resolveShared(key, resolve, true)
        : Effect.flatMap(
          get(key),
          Option.match({
            onSome: Effect.succeed,
            onNone: () => resolveShared(key, resolve, false)
          })
        )

    return RuntimeAccessCache.of({
      get,
      set,
      invalidate: (key) => store.remove(key),
      getOrResolve
    })
  })

/**
 * An in-memory store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemoryStore: Effect.Effect<RuntimeAccessStore> = Effect.map(
  Ref.make(new Map<string, CachedRuntimeAccess>()),
  (ref) => ({
    get: (key) => Effect.map(Ref.get(ref), (map) => Option.fromNullable(map.get(key))),
    set: (key, access) => Ref.update(ref, (map) => new Map(map).set(key, access)),
    remove: (key) =>
      Ref.update(ref, (map) => {
        const next = new Map(map)
        next.delete(key)
        return next
      })
  })
)

/**
 * The cache in memory, for one process.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<RuntimeAccessCache> = Layer.effect(
  RuntimeAccessCache,
  Effect.flatMap(makeMemoryStore, make)
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
