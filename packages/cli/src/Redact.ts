/**
 * Keeps credentials out of what `--debug` writes (see `HttpDebug.ts`), whatever else is asked: header values
 * whose name says they hold a credential (`Authorization`, `Proxy-Authorization`, cookies, `…-Token`, API
 * keys), JSON members whose key does (`"token"`, `"access_token"`, the backend's `"access"` / `"refresh"`),
 * `Bearer …` / `Basic …` credentials, the user and password of a URL (a proxy's), `name=value` pairs named like
 * a credential wherever they stand (a query, a form, prose: `… token=VALUE …`), anything shaped like a JWT, and
 * every value the CLI itself was given as a secret (the tokens of the environment, a proxy's user and password)
 * or `--debug` saw a request carry or an answer hand out. Each becomes `<redacted>`, as Effect's `Redacted` prints.
 *
 * @since 0.2.0
 */
import * as Headers from "@effect/platform/Headers"
import { Redaction } from "@mainsequence/a2a"
import * as Redacted from "effect/Redacted"

/**
 * What a credential becomes: the SDK's own marker, so `--debug` lines and the SDK's errors read alike.
 *
 * @since 0.2.0
 * @category constants
 */
export const placeholder: string = Redaction.marker

const credentialWords: ReadonlySet<string> = new Set([
  "token",
  "secret",
  "password",
  "passwd",
  "auth",
  "authorization",
  "credential",
  "credentials",
  "cookie",
  "signature",
  "jwt",
  "apikey"
])

/**
 * Whether a header, JSON key or parameter names a credential: one of its words (split at `-`, `_`, `.` and
 * camelCase) is one (`x-auth-token`, `accessToken`, `api_key`), or it is `access` / `refresh`. Words only:
 * `author`, `output_tokens` and `www-authenticate` are no credentials.
 */
const namesCredential = (name: string): boolean => {
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/)
  return /^(access|refresh)$/i.test(name) ||
    words.some((word, i) => credentialWords.has(word) || (word === "api" && words[i + 1] === "key"))
}

const fromUrl = (text: string): ReadonlyArray<string> => {
  if (!URL.canParse(text)) return []
  const url = new URL(text)
  return [url.username, url.password].flatMap((part) => [part, decodeURIComponent(part)])
}

/**
 * The texts to hide wherever they appear: each secret's value and, for a URL, its user and password (as
 * written and decoded), each also as a platform may echo it. Longest first, so a secret that contains another
 * is hidden whole.
 *
 * @since 0.2.0
 * @category constructors
 */
export const knownSecrets = (secrets: ReadonlyArray<Redacted.Redacted<string>>): ReadonlyArray<string> => {
  const values = secrets.flatMap((secret) => [Redacted.value(secret), ...fromUrl(Redacted.value(secret))])
    .flatMap(Redaction.echoedForms)
  // Shorter values would hide ordinary words (a proxy user `me`); the patterns still cover where they go.
  return [...new Set(values.filter((value) => value.trim().length >= 4))].sort((a, b) => b.length - a.length)
}

const basicParts = (encoded: string): ReadonlyArray<string> => {
  try {
    const decoded = new TextDecoder().decode(Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0)))
    const colon = decoded.indexOf(":")
    return colon < 0 ? [decoded] : [decoded.slice(0, colon), decoded.slice(colon + 1)]
  } catch {
    return []
  }
}

/**
 * The credentials a request carries in its `Authorization` and `Proxy-Authorization` headers: each value
 * without its scheme (`Bearer`, `Basic`, …) and, for `Basic`, the user and password it encodes. `--debug`
 * hides them from then on, so a server that echoes the token it received shows it redacted.
 *
 * @since 0.2.0
 * @category constructors
 */
export const requestCredentials = (headers: Headers.Headers): ReadonlyArray<Redacted.Redacted<string>> =>
  ["authorization", "proxy-authorization"].flatMap((name) => {
    const value = headers[name]?.trim() ?? ""
    const withScheme = /^(\S+)\s+(\S.*)$/.exec(value)
    const credential = withScheme?.[2] ?? value
    const parts = withScheme?.[1]?.toLowerCase() === "basic" ? basicParts(credential) : []
    return [credential, ...parts].filter((part) => part !== "").map((part) => Redacted.make(part))
  })

// A JSON member whose value is a string, its key and value as written (escapes included).
const stringMember = /"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"/g

const unescaped = (written: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(`"${written}"`)
    return typeof parsed === "string" ? parsed : undefined
  } catch {
    return undefined
  }
}

// The members that hand out a token, and what a token looks like (a `"token_type": "access"` is no token).
const tokenMemberName = /^(token|access|refresh|jwt|(access|refresh|id|auth)[-_]?token|secret|password|api[-_]?key)$/i
const tokenShaped = /^[\x21-\x7e]{8,}$/

/**
 * The values of the JSON members in `text` that hand out a token (`"token"`, `"access"`, `"refresh_token"`, …,
 * also spelled with escapes: `"\u0074oken"`), unescaped: to hide wherever else they show.
 *
 * @since 0.2.0
 * @category constructors
 */
export const credentialsIn = (text: string): ReadonlyArray<Redacted.Redacted<string>> =>
  Array.from(text.matchAll(stringMember)).flatMap(([, key = "", value = ""]) => {
    const name = unescaped(key)
    const credential = unescaped(value)
    return name !== undefined && tokenMemberName.test(name) && credential !== undefined &&
        tokenShaped.test(credential)
      ? [Redacted.make(credential)]
      : []
  })

// A JSON member; a string value may be cut off by the end of an excerpt.
const jsonMember = /"([^"\\]*)"(\s*:\s*)("(?:[^"\\]|\\.)*(?:"|$)|[^\s,}\]]+)/g
// A scheme's credential, not its parameters (`Bearer realm="api"` in a challenge).
const scheme = /\b(Bearer|Basic)\s+(?![\w.~+/-]+=\s*["\w.~+/-])[^\s",;]+/gi
// Bounded, and the JWT starts only where no token character precedes it: neither pattern backtracks for long.
const userInfo = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@"]{1,1024}@/gi
// `name=value` wherever it stands (a query, a form, prose, a JSON string); the value may be quoted.
const parameter = /(^|[?&;,\s"'])([^=&;,?\s"'#]+=)("(?:[^"\\]|\\.)*(?:"|$)|[^&;,\s"#]*)/g
const jwt = /(?<![\w-])eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g

/**
 * A text with every credential in it replaced by {@link placeholder}.
 *
 * @since 0.2.0
 * @category redaction
 */
export const text = (input: string, known: ReadonlyArray<string>): string =>
  known.reduce((acc, secret) => acc.split(secret).join(placeholder), input)
    .replace(
      jsonMember,
      (whole, key: string, colon: string) => namesCredential(key) ? `"${key}"${colon}"${placeholder}"` : whole
    )
    .replace(scheme, `$1 ${placeholder}`)
    .replace(userInfo, `$1${placeholder}@`)
    .replace(
      parameter,
      (whole, start: string, name: string) =>
        namesCredential(name.slice(0, -1)) ? `${start}${name}${placeholder}` : whole
    )
    .replace(jwt, placeholder)

/**
 * Headers as `name: value` lines, the value of a credential header replaced whole, the others redacted as
 * text.
 *
 * @since 0.2.0
 * @category redaction
 */
export const headerLines = (headers: Headers.Headers, known: ReadonlyArray<string>): ReadonlyArray<string> =>
  Object.entries(Headers.redact(headers, Object.keys(headers).filter(namesCredential))).map(([name, value]) =>
    `${name}: ${Redacted.isRedacted(value) ? placeholder : text(value, known)}`
  )
