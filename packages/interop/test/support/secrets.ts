/**
 * Distinctive token values, and a scanner that finds any of them (whole, by their distinctive core, or
 * base64-encoded) in captured text.
 */
export const secrets = {
  userAccess: "uat.SECRET-user-access-3f9c1e7a-4b2d",
  userAccessRefreshed: "uat.SECRET-user-access-refreshed-77aa19e2",
  userRefresh: "urt.SECRET-user-refresh-88d2b0c4-91fe",
  userRefreshRotated: "urt.SECRET-user-refresh-rotated-0b7e3c55",
  runtimeOne: "rtk.SECRET-runtime-one-5a1e9f03-d6c8",
  runtimeTwo: "rtk.SECRET-runtime-two-c0ffee42-a1b2",
  runtimeStale: "rtk.SECRET-runtime-stale-deadbeef-7788",
  // the proxy's credentials (support/network.ts), and the Proxy-Authorization value they make
  proxyUser: "proxy-user-SECRET-4e1d",
  proxyPassword: "proxy-pass-SECRET-9b7c2a61-f0d3",
  proxyAuthorization: Buffer.from("proxy-user-SECRET-4e1d:proxy-pass-SECRET-9b7c2a61-f0d3").toString("base64")
} as const

export type SecretName = keyof typeof secrets

/** The byte sequences that must never appear: each token, its distinctive core, its base64. */
const needles: ReadonlyArray<readonly [SecretName, string]> = Object.entries(secrets).flatMap(
  ([name, value]) => {
    const core = value.split("-").slice(-2).join("-") // e.g. "3f9c1e7a-4b2d"
    return [
      [name as SecretName, value],
      [name as SecretName, core],
      [name as SecretName, Buffer.from(value).toString("base64")],
      [name as SecretName, encodeURIComponent(value)]
    ] as const
  }
)

export interface Leak {
  readonly secret: SecretName | "simulatorMinted"
  readonly needle: string
  readonly where: string
  readonly excerpt: string
}

/** Tokens the reference platform (`@mainsequence/a2a-testing`) mints itself: `msim-runtime-<n>-<32 hex>`. */
const simulatorToken = /msim-(?:runtime|user-access|user-refresh)-\d+-[0-9a-f]{32}/

/** Every leak of a token in `text` (labelled `where`). */
export const findLeaks = (where: string, text: string): ReadonlyArray<Leak> => {
  const known = needles.flatMap(([secret, needle]) => {
    const at = text.indexOf(needle)
    if (at < 0) return []
    return [{ secret, needle, where, excerpt: text.slice(Math.max(0, at - 80), at + needle.length + 80) }]
  })
  const minted = simulatorToken.exec(text)
  return minted === null ? known : [...known, {
    secret: "simulatorMinted" as const,
    needle: minted[0],
    where,
    excerpt: text.slice(Math.max(0, minted.index - 80), minted.index + minted[0].length + 80)
  }]
}

/** A place where captured outputs accumulate, labelled by channel. */
export class Captured {
  readonly entries: Array<{ readonly where: string; readonly text: string }> = []
  add(where: string, text: string): void {
    this.entries.push({ where, text })
  }
  /** Leaks in every channel, or only in `channels` (the first word of `where`, e.g. "stderr", "span-exit"). */
  leaks(channels?: ReadonlyArray<string>): ReadonlyArray<Leak> {
    return this.entries
      .filter((e) => channels === undefined || channels.includes(e.where.split(" ")[0] ?? ""))
      .flatMap((e) => findLeaks(e.where, e.text))
  }
  /** Channels seen (e.g. "stderr", "log", "span", "error:String"), to show the scan looked everywhere. */
  channels(): ReadonlySet<string> {
    return new Set(this.entries.map((e) => e.where.split(" ")[0] ?? e.where))
  }
}

/**
 * The channels the per-scenario suites check. `span-exit` (the failure a span ended with, as JSON) is
 * checked by the secrecy suite only: it currently leaks through `@effect/platform`'s `http.client` span
 * (see GUARANTEES.md / the interop report).
 */
export const ownChannels: ReadonlyArray<string> = ["stdout", "stderr", "file", "log", "span", "result"].concat(
  ["error:Cause.pretty", "error:String", "error:JSON", "error:message", "error:inspect"]
)
