/**
 * The runtime-access cache (SPEC §6): admitted access only, expiring at the backend's `expires_at` minus a
 * 30 s skew (60 s without it), dropped on a runtime 401/403, one resolution in flight per key.
 *
 * The cache is a service so a persistent store can sit under it: the CLI keeps entries in a 0600 file
 * through {@link layerStore}.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

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
