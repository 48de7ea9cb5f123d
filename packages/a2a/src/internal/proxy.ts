/**
 * The Node layer's proxy settings, and what a proxy that refuses a request becomes. Which host goes through
 * which proxy (`NO_PROXY`), the CONNECT tunnel and `Proxy-Authorization` are undici's (`EnvHttpProxyAgent`);
 * this module only holds the settings, names a proxy without its credentials, and recognises undici's
 * refusals.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/** @internal */
export interface ProxySettings {
  /** The proxy for `http:` targets (absolute-form requests). */
  readonly http: Option.Option<Redacted.Redacted<string>>
  /** The proxy for `https:` targets (a CONNECT tunnel). */
  readonly https: Option.Option<Redacted.Redacted<string>>
  /** Hosts that bypass the proxy, in `NO_PROXY`'s syntax. */
  readonly noProxy: string
}

/** @internal */
export const direct: ProxySettings = { http: Option.none(), https: Option.none(), noProxy: "" }

/** @internal */
export const isDirect = (settings: ProxySettings): boolean =>
  Option.isNone(settings.http) && Option.isNone(settings.https)

/**
 * A proxy URL as curl reads it: `host:port` means `http://host:port`; only `http:` and `https:` proxies.
 * The failure says what is wrong without repeating the value (it may hold a password).
 *
 * @internal
 */
export const parseProxyUrl = (value: string): Either.Either<Redacted.Redacted<string>, string> => {
  const text = value.trim()
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    return Either.left("is not a URL (expected http://[user:password@]host:port)")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Either.left("must be an http:// or https:// proxy URL")
  }
  return Either.right(Redacted.make(url.href))
}

/**
 * The proxy's URL without its credentials (`http://proxy:3128`), for messages and error fields.
 *
 * @internal
 */
export const displayProxy = (proxy: Redacted.Redacted<string>): string => {
  const url = new URL(Redacted.value(proxy))
  return `${url.protocol}//${url.host}`
}

/**
 * The code an HTTP layer gives a proxy's refusal: the exchange counts it as a failure before anything was
 * sent to the server.
 *
 * @internal
 */
export const proxyRefusedCode = "A2A_PROXY_REFUSED"

/**
 * The proxy answered a CONNECT with another status than 200, or a forwarded request with 407: it sent
 * nothing on to the server.
 *
 * @internal
 */
export class ProxyRefused extends Error {
  readonly code = proxyRefusedCode
  constructor(readonly proxy: string, readonly status: number) {
    super(`The proxy ${proxy} refused the request (${status})`)
    this.name = "ProxyRefused"
  }
}

/**
 * The status of a refusal undici reports: `Proxy response (403) !== 200 when HTTP Tunneling` for a CONNECT,
 * `Proxy Authentication Required (407)` for a forwarded (absolute-form) request.
 *
 * @internal
 */
export const refusalStatus = (error: unknown): number | undefined => {
  if (!(error instanceof Error)) return undefined
  const tunnel = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/.exec(error.message)
  if (tunnel !== null) return Number(tunnel[1])
  return error.message === "Proxy Authentication Required (407)" ? 407 : undefined
}
