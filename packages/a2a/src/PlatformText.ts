/**
 * How the SDK makes text a platform sent safe to show, for tools that show such text themselves (the CLI's
 * terminal output) the way the SDK does in its errors and progress events.
 *
 * @since 0.2.0
 */
import * as internal from "./internal/oneLine.js"

/**
 * `text` without its escape sequences (ECMA-48: control sequences such as `ESC [ 2 J`, control strings such as
 * an OSC up to its terminator, and any other escape), each removed whole. Linear in the text's length.
 *
 * @since 0.2.0
 * @category rendering
 */
export const withoutEscapeSequences: (text: string) => string = internal.withoutEscapeSequences

/**
 * `text` as one line, as the SDK puts the platform's text in its errors: escape sequences removed whole,
 * whitespace runs (line breaks included) one space, control characters and the bidirectional formatting
 * characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) removed, the ends trimmed.
 *
 * @since 0.2.0
 * @category rendering
 */
export const oneLine: (text: string) => string = internal.oneLine
