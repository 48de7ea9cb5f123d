/**
 * The benchmark chart (docs/benchmarks.svg): one panel per measured quantity, a horizontal bar per client
 * (ours, the official client, the raw floor), each panel on its own scale from zero, the target's bound as a
 * dashed line. Hand-written SVG, no dependency.
 */
import type { ChartPanel } from "./context.js"
import { fmtBytes, fmtMs } from "./stats.js"

const colors: Record<string, string> = { ours: "#2f6fdb", official: "#e08a2c", floor: "#8a8a8a" }
const labels: Record<string, string> = { ours: "ours", official: "@a2a-js/sdk", floor: "raw undici" }

const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const format = (unit: ChartPanel["unit"], value: number): string => {
  switch (unit) {
    case "ms":
      return fmtMs(value)
    case "µs":
      return `${value.toFixed(0)} µs`
    case "bytes":
      return fmtBytes(value)
    case "per-s":
      return `${value.toFixed(0)}/s`
    case "count":
      return value.toFixed(0)
  }
}

export const renderChart = (
  panels: ReadonlyArray<ChartPanel>,
  caption: string
): string => {
  const width = 760
  const left = 120
  const right = 110
  const barH = 18
  const gap = 6
  const plotW = width - left - right
  const parts: Array<string> = []
  let y = 50
  for (const panel of panels) {
    const values = panel.bars.map((b) => b.value).filter(Number.isFinite)
    const max = Math.max(
      ...values,
      panel.limit !== undefined && Number.isFinite(panel.limit.value) ? panel.limit.value : 0
    )
    const scale = max > 0 ? plotW / (max * 1.05) : 0
    parts.push(`<text x="12" y="${y + 12}" class="title">${escape(panel.title)}</text>`)
    y += 20
    const top = y
    for (const bar of panel.bars) {
      const w = Number.isFinite(bar.value) ? Math.max(1, bar.value * scale) : 0
      const color = colors[bar.label] ?? "#555"
      parts.push(
        `<text x="${left - 8}" y="${y + barH - 5}" class="label" text-anchor="end">${
          escape(labels[bar.label] ?? bar.label)
        }</text>`,
        `<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${color}" rx="2"/>`,
        `<text x="${(left + w + 6).toFixed(1)}" y="${y + barH - 5}" class="value">${
          escape(format(panel.unit, bar.value))
        }</text>`
      )
      y += barH + gap
    }
    if (panel.limit !== undefined && Number.isFinite(panel.limit.value) && scale > 0) {
      const x = (left + panel.limit.value * scale).toFixed(1)
      parts.push(
        `<line x1="${x}" y1="${top - 3}" x2="${x}" y2="${y - gap + 3}" class="limit"/>`,
        `<text x="${x}" y="${y - gap + 14}" class="limitLabel" text-anchor="middle">${
          escape(`${panel.limit.label}: ${format(panel.unit, panel.limit.value)}`)
        }</text>`
      )
    }
    y += panel.limit !== undefined ? 26 : 16
  }
  const height = y + 22
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif">`,
    "<style>.title{font-size:13px;font-weight:600;fill:#222}.label{font-size:12px;fill:#333}" +
    ".value{font-size:12px;fill:#222}.limit{stroke:#c0392b;stroke-width:1.5;stroke-dasharray:4 3}" +
    ".limitLabel{font-size:10px;fill:#c0392b}.caption{font-size:11px;fill:#666}</style>",
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="12" y="20" class="title" style="font-size:15px">@mainsequence/a2a against @a2a-js/sdk and raw undici</text>`,
    `<text x="12" y="37" class="caption">each panel on its own scale from zero; shorter is better; dashed line: the ` +
    "target's bound</text>",
    ...parts,
    `<text x="12" y="${height - 8}" class="caption">${escape(caption)}</text>`,
    "</svg>",
    ""
  ].join("\n")
}
