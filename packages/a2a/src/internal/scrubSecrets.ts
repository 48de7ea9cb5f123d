/**
 * Secrets out of the platform's words: every text the SDK takes from an answer (an error's detail, an
 * excerpt of a body, a value it quotes, a runtime state or notice) passes {@link scrubSecrets} before it
 * becomes part of an error, a span or a progress event. Replaced by {@link redactedMarker}: the values the
 * client knows (the user's access and refresh tokens, every runtime token it holds or has just received:
 * {@link KnownSecrets}), any `"token": "…"` value in an excerpt, and credentials in the forms a proxy's take
 * (a URL's `user:password@`, a `Basic` value): the client never sends those to the platform, so a platform
 * that shows one has them from elsewhere.
 */
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { encodeBase64 } from "./base64.js"
import { withoutEscapeSequences } from "./oneLine.js"

/**
 * What a secret is replaced by: what Effect's `Redacted` prints, as the CLI's `--debug` lines do.
 *
 * @internal
 */
export const redactedMarker = "<redacted>"

// The patterns below find where a secret starts; loops find where a JSON string ends. A pattern that repeats a
// group or a counted class keeps a backtrack entry per character: 8 MiB of one overflows V8's stack.

// The start of a JSON `"token"` member's value (also `"access"` / `"refresh"`, the backend's token answer).
const tokenMemberStart = /"(?:token|access|refresh)"\s*:\s*"/g
// The user part of a URL's credentials (`http://user:password@proxy:3128`), its scheme checked behind it.
const urlUserInfo = /:\/\/[^\s/@"]{1,1024}@/g
const schemeEnding = /(?:^|\W)[a-z][a-z0-9+.-]{0,31}$/i
// A Basic `Proxy-Authorization` value.
const basicCredentials = /(\bBasic\s+)([A-Za-z0-9+/]+)(={0,2})/g

/** Where the JSON string whose text starts at `from` ends: its closing quote, else the end of `text`. */
const stringEnd = (text: string, from: number): number => {
  for (let at = from; at < text.length; at++) {
    const char = text[at]
    if (char === "\\") at++
    else if (char === "\"") return at
  }
  return text.length
}

/** `text` with the value of each `"token"` member replaced, also one cut off by the end of the text. */
const withoutTokenMembers = (text: string): string => {
  let scrubbed = ""
  let kept = 0
  tokenMemberStart.lastIndex = 0
  for (let member = tokenMemberStart.exec(text); member !== null; member = tokenMemberStart.exec(text)) {
    const valueStart = member.index + member[0].length
    scrubbed += `${text.slice(kept, valueStart)}${redactedMarker}`
    kept = stringEnd(text, valueStart)
    // The search goes on after the closing quote, as one pattern over the whole member would.
    tokenMemberStart.lastIndex = kept + 1
  }
  return scrubbed + text.slice(kept)
}

/** Whether a URL scheme (`http`, at most 32 characters, starting a word) ends at `offset` of `text`. */
const schemeBefore = (text: string, offset: number): boolean =>
  schemeEnding.test(text.slice(Math.max(0, offset - 33), offset))

/** Whether `base64` is Basic credentials: `user:password` once decoded. */
const isUserPassword = (base64: string): boolean => {
  try {
    return atob(base64).includes(":")
  } catch {
    return false
  }
}

/**
 * The shortest secret scrubbed: a shorter "token" (a hostile platform's `"t"`) would garble every text, and is
 * guessed without any leak.
 *
 * @internal
 */
export const minSecretLength = 8

// Control characters other than whitespace: removed first, so a secret split by one is still found whole.
const controlCharacters = /[^\P{Cc}\s]/gu

/**
 * `text` without its control characters (whitespace kept), and with every occurrence of a secret of `secrets`
 * (of at least {@link minSecretLength} characters), every `"token": "…"` value and every URL's or `Basic`
 * credentials replaced by {@link redactedMarker}.
 *
 * @internal
 */
export const scrubSecrets = (text: string, secrets: Iterable<Redacted.Redacted<string>>): string =>
  scrubWith(text, indexOf(Array.from(secrets, (secret) => matchedAs(Redacted.value(secret)))))

// As the text, a secret is matched without its control characters.
const matchedAs = (secret: string): string => secret.replace(controlCharacters, "")

/**
 * A secret as a platform may echo it: as is, percent-encoded (upper- or lower-case hex; a URL, a query, a form),
 * with its `/` escaped as `\/` (JSON as some servers write it), and base64-encoded ({@link base64Forms}).
 *
 * @internal
 */
export const echoedForms = (secret: string): ReadonlyArray<string> => {
  const forms = [secret, secret.replaceAll("/", "\\/")]
  try {
    const encoded = encodeURIComponent(secret)
    forms.push(encoded, encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()), ...base64Forms(secret))
  } catch {
    // A lone surrogate has no UTF-8 bytes: a platform cannot have echoed one encoded.
  }
  return forms
}

const utf8 = new TextEncoder()

/**
 * The characters of a base64 text (standard and URL-safe alphabet) that only the secret's UTF-8 bytes decide,
 * wherever those bytes stand in the encoded value: one form for each of their three alignments.
 */
const base64Forms = (secret: string): ReadonlyArray<string> => {
  const bytes = utf8.encode(secret)
  return [0, 1, 2].flatMap((offset) => {
    const aligned = new Uint8Array(offset + bytes.length)
    aligned.set(bytes, offset)
    // Stryker disable next-line Regex: equivalent: base64 has "=" only at its end
    const encoded = encodeBase64(aligned).replace(/=+$/, "")
    // A character that also holds bits of a neighbouring byte is left out, at either end.
    const form = encoded.slice(offset === 0 ? 0 : offset + 1, aligned.length % 3 === 0 ? undefined : -1)
    return [form, form.replaceAll("+", "-").replaceAll("/", "_")]
  })
}

/** Known secrets by a hash of their last {@link minSecretLength} characters ({@link endingHash}). */
type SecretsIndex = ReadonlyMap<number, ReadonlyArray<string>>

/** A hash of the {@link minSecretLength} characters of `text` that end before `end`, as a small integer. */
const endingHash = (text: string, end: number): number => {
  let hash = 0
  for (let at = end - minSecretLength; at < end; at++) hash = (Math.imul(hash, 31) + text.charCodeAt(at)) | 0
  return hash & 0x3fffffff
}

// Found by their ends: tokens often share their start (every JWT's header). A map of hashes is cheap to make
// again when a token is added; one pattern of them all would be compiled again each time.
const indexOf = (values: Iterable<string>): SecretsIndex | undefined => {
  const byEnding = new Map<number, Array<string>>()
  for (const value of new Set(Array.from(values, echoedForms).flat())) {
    if (value.length < minSecretLength) continue
    const ending = endingHash(value, value.length)
    byEnding.set(ending, [...(byEnding.get(ending) ?? []), value])
  }
  return byEnding.size === 0 ? undefined : byEnding
}

/** `text` with each occurrence of a known secret replaced; overlapping ones are replaced together. */
const withoutKnown = (text: string, known: SecretsIndex): string => {
  const found: Array<readonly [number, number]> = []
  for (let end = minSecretLength; end <= text.length; end++) {
    for (const value of known.get(endingHash(text, end)) ?? []) {
      const start = end - value.length
      if (start >= 0 && text.startsWith(value, start)) found.push([start, end])
    }
  }
  let scrubbed = ""
  let kept = 0
  for (const [start, end] of found.sort(([a], [b]) => a - b)) {
    if (start < kept) {
      kept = Math.max(kept, end)
      continue
    }
    scrubbed += `${text.slice(kept, start)}${redactedMarker}`
    kept = end
  }
  return scrubbed + text.slice(kept)
}

const scrubWith = (text: string, known: SecretsIndex | undefined): string => {
  const hideKnown = (cleaned: string) => known === undefined ? cleaned : withoutKnown(cleaned, known)
  const bare = text.replace(controlCharacters, "")
  const whole = withoutEscapeSequences(text).replace(controlCharacters, "")
  const hidden = hideKnown(bare)
  // Stryker disable next-line ConditionalExpression: equivalent: `whole` is then `bare`, only scanned once more
  const noEscapes = whole === bare
  // Escape sequences go whole, unless their bytes split a known secret: then only their control characters.
  const cleaned = hidden !== bare || noEscapes ? hidden : hideKnown(whole)
  // Known secrets first: a pattern below could cut one in two (a token may hold an `@`).
  return withoutTokenMembers(cleaned)
    .replace(
      urlUserInfo,
      (userInfo, offset: number, whole: string) => schemeBefore(whole, offset) ? `://${redactedMarker}@` : userInfo
    )
    .replace(
      basicCredentials,
      (basic, prefix: string, value: string, padding: string) =>
        value.length >= 4 && isUserPassword(value + padding) ? `${prefix}${redactedMarker}` : basic
    )
}

/**
 * A JSON value (an answer kept on an error, a notice) with each of its strings, keys included, passed through
 * `scrub`.
 *
 * @internal
 */
export const scrubTexts = (value: unknown, scrub: (text: string) => string): unknown => {
  if (typeof value === "string") return scrub(value)
  if (Array.isArray(value)) return value.map((item) => scrubTexts(item, scrub))
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [scrub(key), scrubTexts(field, scrub)]))
}

/**
 * The secrets a client knows: the user's tokens (the configured ones and each rotation) and the runtime
 * tokens it has held, each kind bounded by {@link maxKnownSecrets} (the oldest forgotten first), so runtime
 * tokens never push the user's out.
 *
 * @internal
 */
export interface KnownSecrets {
  readonly add: (kind: "user" | "runtime", secret: Redacted.Redacted<string>) => void
  /** {@link scrubSecrets} with these secrets. */
  readonly scrub: (text: string) => string
}

/**
 * How many secrets of each kind a client remembers: a long-lived client meets a new runtime token per
 * session and expiry, and its access token may rotate many times.
 *
 * @internal
 */
export const maxKnownSecrets = 256

// Keyed by value, to the value as matched: the same token redacted twice is one secret; re-adding one makes it
// the newest. Whether the secrets are others now (a value new to them).
const remember = (secrets: Map<string, string>, secret: Redacted.Redacted<string>): boolean => {
  const value = Redacted.value(secret)
  const matched = secrets.get(value)
  secrets.delete(value)
  secrets.set(value, matched ?? matchedAs(value))
  for (const oldest of secrets.keys()) {
    if (secrets.size <= maxKnownSecrets) break
    secrets.delete(oldest)
  }
  return matched === undefined
}

/** @internal */
export const makeKnownSecrets = (): KnownSecrets => {
  const byKind = {
    user: new Map<string, string>(),
    runtime: new Map<string, string>()
  }
  // Made again only after a secret was added.
  let index: Option.Option<SecretsIndex | undefined> = Option.none()
  return {
    add: (kind, secret) => {
      if (remember(byKind[kind], secret)) index = Option.none()
    },
    scrub: (text) => {
      const current = Option.getOrElse(index, () => indexOf([...byKind.user.values(), ...byKind.runtime.values()]))
      index = Option.some(current)
      return scrubWith(text, current)
    }
  }
}
