/**
 * The in-memory access cache of the sessions benchmark, with a way to read how many entries it holds. The one
 * place that builds it: when the SDK's memory store takes a maximum (an option of `layerMemory`, or a
 * `makeMemoryStoreWith({ maxEntries })`), and exposes its size, only this file changes.
 *
 * Today (`RuntimeAccessCache.makeMemoryStore`, no maximum, no size accessor) the size is counted by a wrapper:
 * keys set and not removed. That count is exact only for a store that never drops an entry by itself (true of
 * today's store, which keeps expired entries until a 401/403 removes them); a store that sweeps or evicts must
 * report its own size, read here through a `size` member when it has one.
 */
import { RuntimeAccessCache } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"

export interface BenchCache {
  readonly layer: Layer.Layer<RuntimeAccessCache.RuntimeAccessCache>
  /** Live entries in the store now (see the module doc for how it is known). */
  readonly size: () => number
  /** The maximum the benchmark asks for. */
  readonly maxEntries: number
  /** Whether the store was given that maximum (false while the SDK's memory store takes none). */
  readonly maxConfigured: boolean
  /** How the size is read: "store" (the store's own) or "wrapper" (keys set − removed). */
  readonly sizeSource: "store" | "wrapper"
  /** Drops the wrapper's own bookkeeping (before a heap measurement; `size` reads 0 afterwards). */
  readonly release: () => void
}

/** The store's own size, when it has one (`size: number`, `size(): number` or `size: Effect<number>`). */
const ownSize = (store: object): (() => number) | undefined => {
  const size: unknown = (store as { size?: unknown }).size
  if (typeof size === "number") return () => (store as { size: number }).size
  if (typeof size === "function") return () => Number((size as () => unknown).call(store))
  if (Effect.isEffect(size)) return () => Effect.runSync(size as Effect.Effect<number>)
  return undefined
}

export const makeBenchCache = (maxEntries: number): BenchCache => {
  // Adapt here: with a configurable store, e.g. `RuntimeAccessCache.makeMemoryStoreWith({ maxEntries })`, and
  // `maxConfigured: true` below.
  const store = Effect.runSync(RuntimeAccessCache.makeMemoryStore)
  const own = ownSize(store)
  if (own !== undefined) {
    return {
      layer: RuntimeAccessCache.layerStore(store),
      size: own,
      maxEntries,
      maxConfigured: false,
      sizeSource: "store",
      release: () => {}
    }
  }
  // Counted beside the store; `release` drops the count before the final heap measurement.
  const keys = new Set<string>()
  const wrapped: RuntimeAccessCache.RuntimeAccessStore = {
    get: store.get,
    set: (key, access) => Effect.zipRight(store.set(key, access), Effect.sync(() => void keys.add(key))),
    remove: (key) => Effect.zipRight(store.remove(key), Effect.sync(() => void keys.delete(key)))
  }
  return {
    layer: RuntimeAccessCache.layerStore(wrapped),
    size: () => keys.size,
    maxEntries,
    maxConfigured: false,
    sizeSource: "wrapper",
    release: () => keys.clear()
  }
}
