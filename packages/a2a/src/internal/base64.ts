/**
 * Standard base64 for attachments. `effect/Encoding.encodeBase64` builds its string piecewise, slow for a file
 * of megabytes (docs/BENCHMARKS.md); this writes the ASCII into one buffer and decodes it once, without
 * depending on Node's `Buffer`.
 */
const alphabet = new TextEncoder().encode("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
const pad = 61 // "="

/** @internal */
export const encodeBase64 = (bytes: Uint8Array): string => {
  const n = bytes.length
  const out = new Uint8Array(Math.ceil(n / 3) * 4)
  const at = (i: number) => bytes[i] ?? 0
  const char = (sextet: number) => alphabet[sextet & 63] ?? pad
  let o = 0
  let i = 0
  for (; i + 2 < n; i += 3) {
    const v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2)
    out[o++] = char(v >> 18)
    out[o++] = char(v >> 12)
    out[o++] = char(v >> 6)
    out[o++] = char(v)
  }
  if (i < n) {
    const v = (at(i) << 16) | (at(i + 1) << 8)
    out[o++] = char(v >> 18)
    out[o++] = char(v >> 12)
    out[o++] = i + 1 < n ? char(v >> 6) : pad
    out[o++] = pad
  }
  return new TextDecoder().decode(out)
}
