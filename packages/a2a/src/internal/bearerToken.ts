/**
 * The tokens the client sends as `Authorization: Bearer <token>`: the user's access token and each runtime
 * token. One that an HTTP header cannot carry is refused where it comes in, never sent.
 */
import * as Schema from "effect/Schema"

/**
 * What makes `token` unusable as a Bearer credential, if anything: it must be visible ASCII characters without
 * spaces (RFC 6750's `b64token`, and every JWT or opaque token in use). The problem never repeats the value.
 *
 * @internal
 */
export const bearerTokenProblem = (token: string): string | undefined =>
  /^[\x21-\x7e]+$/.test(token)
    ? undefined
    : "must be visible ASCII characters without spaces or line breaks (it is sent as a Bearer credential)"

/**
 * A token a Bearer header can carry; a failure names the {@link bearerTokenProblem}, never the value.
 *
 * @internal
 */
export const BearerToken = Schema.String.pipe(Schema.filter(bearerTokenProblem))
