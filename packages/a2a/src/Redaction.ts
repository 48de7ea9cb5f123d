/**
 * How the SDK recognises a secret a platform echoes back, for tools that hide secrets in what they show
 * themselves (the CLI's `--debug` log) the way the SDK does in its errors, spans and progress events.
 *
 * @since 0.2.0
 */
import * as internal from "./internal/scrubSecrets.js"

/**
 * A secret as a platform may echo it: as is, percent-encoded (upper- or lower-case hex; a URL, a query, a form),
 * with its `/` escaped as `\/` (JSON as some servers write it), and base64-encoded in the standard or URL-safe
 * alphabet, alone or inside a longer encoded value (the characters its own bytes decide, in each of their three
 * alignments). The SDK hides each of these forms.
 *
 * @since 0.2.0
 * @category redaction
 */
export const echoedForms: (secret: string) => ReadonlyArray<string> = internal.echoedForms

/**
 * What the SDK writes in place of a secret: `<redacted>`, as Effect's `Redacted` prints.
 *
 * @since 0.2.0
 * @category redaction
 */
export const marker: string = internal.redactedMarker
