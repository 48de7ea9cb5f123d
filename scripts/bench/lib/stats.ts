/**
 * Small statistics helpers for the benchmarks: quantiles over sorted samples, and a summary.
 */

export interface Summary {
  readonly n: number
  readonly min: number
  readonly median: number
  readonly p90: number
  readonly p99: number
  readonly max: number
  readonly mean: number
}

/** The q-quantile (0..1) of an ascending array, by linear interpolation between closest ranks. */
export const quantileSorted = (sorted: ReadonlyArray<number>, q: number): number => {
  if (sorted.length === 0) return Number.NaN
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  const a = sorted[lo] ?? Number.NaN
  const b = sorted[hi] ?? Number.NaN
  return a + (b - a) * (pos - lo)
}

export const summarize = (samples: ReadonlyArray<number>): Summary => {
  const sorted = Float64Array.from(samples).sort()
  const arr = Array.from(sorted)
  let sum = 0
  for (const x of arr) sum += x
  return {
    n: arr.length,
    min: arr[0] ?? Number.NaN,
    median: quantileSorted(arr, 0.5),
    p90: quantileSorted(arr, 0.9),
    p99: quantileSorted(arr, 0.99),
    max: arr[arr.length - 1] ?? Number.NaN,
    mean: arr.length === 0 ? Number.NaN : sum / arr.length
  }
}

export const median = (samples: ReadonlyArray<number>): number => summarize(samples).median

/** Formats a duration given in milliseconds with a sensible unit. */
export const fmtMs = (ms: number): string => {
  if (!Number.isFinite(ms)) return "–"
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`
  if (ms < 10) return `${ms.toFixed(2)} ms`
  if (ms < 1000) return `${ms.toFixed(1)} ms`
  return `${(ms / 1000).toFixed(2)} s`
}

export const fmtUs = (us: number): string => (Number.isFinite(us) ? `${us.toFixed(0)} µs` : "–")

export const fmtBytes = (bytes: number): string => {
  if (!Number.isFinite(bytes)) return "–"
  const sign = bytes < 0 ? "-" : ""
  const b = Math.abs(bytes)
  if (b < 1024) return `${sign}${b.toFixed(0)} B`
  if (b < 1024 * 1024) return `${sign}${(b / 1024).toFixed(1)} KiB`
  return `${sign}${(b / 1024 / 1024).toFixed(1)} MiB`
}

export const fmtRatio = (r: number): string => (Number.isFinite(r) ? `${r.toFixed(2)}×` : "–")
