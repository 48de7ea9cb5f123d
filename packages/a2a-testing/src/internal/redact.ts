/**
 * Keeping secrets out of the request log: every known token value is replaced
 * by its label (`runtime-token#2`, `user-token#1`, …), unknown bearer values
 * by `unknown-token`.
 *
 * @internal
 */

const SENSITIVE_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "x-api-key"])

/** @internal */
export const UNKNOWN_TOKEN_LABEL = "unknown-token"

/** @internal */
export const redactText = (text: string, secrets: ReadonlyMap<string, string>): string => {
  let out = text
  const values = [...secrets.keys()].sort((a, b) => b.length - a.length)
  for (const value of values) {
    if (value !== "" && out.includes(value)) out = out.split(value).join(secrets.get(value) ?? "<secret>")
  }
  return out
}

/** The bearer credential of an `Authorization` header, if any. @internal */
export const bearerOf = (headers: Readonly<Record<string, string>>): string | undefined => {
  const header = headers["authorization"]
  if (header === undefined) return undefined
  const match = /^Bearer[ ]+(.*)$/i.exec(header.trim())
  return match === null ? undefined : (match[1] ?? "").trim()
}

/** The label of the bearer credential (`null` without one). @internal */
export const tokenLabelOf = (
  headers: Readonly<Record<string, string>>,
  secrets: ReadonlyMap<string, string>
): string | null => {
  if (headers["authorization"] === undefined) return null
  const bearer = bearerOf(headers)
  if (bearer === undefined) return "<non-bearer credential>"
  return secrets.get(bearer) ?? UNKNOWN_TOKEN_LABEL
}

/** @internal */
export const redactHeaders = (
  headers: Readonly<Record<string, string>>,
  secrets: ReadonlyMap<string, string>
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (lower === "authorization" || lower === "proxy-authorization") {
      const match = /^(\S+)\s+(.*)$/.exec(value.trim())
      const scheme = match?.[1] ?? "<scheme>"
      const credential = (match?.[2] ?? value).trim()
      out[lower] = `${scheme} ${secrets.get(credential) ?? UNKNOWN_TOKEN_LABEL}`
    } else if (SENSITIVE_HEADERS.has(lower)) {
      out[lower] = "<redacted>"
    } else {
      out[lower] = redactText(value, secrets)
    }
  }
  return out
}
