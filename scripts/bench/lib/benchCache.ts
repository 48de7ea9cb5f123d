/**
 * The in-memory access cache of the sessions benchmark: the SDK's memory store with the benchmark's maximum,
 * its size read from the store itself (`MemoryStore.size`).
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

export const makeBenchCache = (maxEntries: number): BenchCache => {
  const store = Effect.runSync(RuntimeAccessCache.makeMemoryStoreWith({ maxEntries }))
  return {
    layer: RuntimeAccessCache.layerStore(store),
    size: () => Effect.runSync(store.size),
    maxEntries,
    maxConfigured: true,
    sizeSource: "store",
    release: () => {}
  }
}
