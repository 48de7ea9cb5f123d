/**
 * Samples RSS and heapUsed on an interval; reports the baseline (at start) and the peaks.
 */
export interface MemoryPeaks {
  readonly baselineRss: number
  readonly baselineHeapUsed: number
  readonly peakRss: number
  readonly peakHeapUsed: number
  readonly samples: number
}

export const startMemorySampler = (intervalMs = 5): { readonly stop: () => MemoryPeaks } => {
  const m0 = process.memoryUsage()
  let peakRss = m0.rss
  let peakHeapUsed = m0.heapUsed
  let samples = 1
  const sample = () => {
    const m = process.memoryUsage()
    if (m.rss > peakRss) peakRss = m.rss
    if (m.heapUsed > peakHeapUsed) peakHeapUsed = m.heapUsed
    samples++
  }
  const timer = setInterval(sample, intervalMs)
  return {
    stop: () => {
      clearInterval(timer)
      sample()
      return { baselineRss: m0.rss, baselineHeapUsed: m0.heapUsed, peakRss, peakHeapUsed, samples }
    }
  }
}
