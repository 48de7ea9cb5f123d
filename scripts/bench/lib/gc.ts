/** Helpers of the memory tasks (each runs in a process of its own with `node --expose-gc`). */

/** Three forced full GCs, each followed by a turn of the event loop (finalizers and weak callbacks run). */
export const fullGc = async (): Promise<void> => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("run with --expose-gc")
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((r) => setImmediate(r))
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
