/**
 * The addresses the client sends to: the backend URL it is given and each runtime's `rpc_url`. Their problems
 * never repeat the value, which may hold credentials.
 */

/**
 * What makes `url` unusable as an address to send to, if anything: it must be an absolute `http:` or `https:`
 * URL (used as given, never rewritten, so `blob:http://…` is refused, not followed).
 *
 * @internal
 */
export const httpUrlProblem = (url: string): string | undefined => {
  const absolute = "it must be an absolute http: or https: URL"
  // `localhost:8080` parses as the scheme `localhost:`.
  if (/^\s*[^\s/:?#@]+:\d+(?:[/?#]|\s*$)/.test(url)) {
    return `is a host and a port without a scheme; ${absolute}, such as http://host:port`
  }
  if (!URL.canParse(url)) return `is not an absolute URL; ${absolute}`
  const scheme = new URL(url).protocol
  return scheme === "http:" || scheme === "https:" ? undefined : `has the scheme ${scheme}; ${absolute}`
}

// A base URL has paths appended to it: a query or a fragment would take them in.
const baseUrlProblem = (url: string, mustBe: string): string | undefined =>
  httpUrlProblem(url) ?? (/[?#]/.test(url) ? `has a query or a fragment; it must be ${mustBe}` : undefined)

/**
 * What makes `url` unusable as the backend's base URL, if anything: an {@link httpUrlProblem}, a query or a
 * fragment.
 *
 * @internal
 */
export const backendUrlProblem = (url: string): string | undefined =>
  baseUrlProblem(url, "the backend's base URL, such as https://api.main-sequence.app")

/**
 * What makes `url` unusable as a runtime's `rpc_url`, if anything: an {@link httpUrlProblem}, a query or a
 * fragment.
 *
 * @internal
 */
export const rpcUrlProblem = (url: string): string | undefined =>
  baseUrlProblem(url, "the runtime's base URL, which the A2A paths are appended to")

/**
 * `url` without the slashes it ends with. The look-behind starts a match at the first slash of a run only:
 * `/\/+$/` would retry from each one, a time quadratic in an `rpc_url` of many slashes.
 *
 * @internal
 */
export const withoutTrailingSlashes = (url: string): string => url.replace(/(?<!\/)\/+$/, "")
