/**
 * Text from the platform or an Agent, made safe to print on a terminal. A terminal acts on escape sequences,
 * control characters and bidirectional overrides instead of showing them (it can be made to clear the screen,
 * rewrite a line, set the clipboard or reorder what is read), so none of them reaches it from here.
 *
 * @since 0.2.0
 */
import { PlatformText } from "@mainsequence/a2a"

const unsafe = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u
const everyUnsafe = new RegExp(unsafe.source, "gu")

/**
 * Whether a text (one character or more) holds a character a terminal would act on instead of showing it: C0
 * and C1 controls, DEL, and the bidirectional formatting characters.
 *
 * @since 0.2.0
 * @category predicates
 */
export const isUnsafe = (text: string): boolean => unsafe.test(text)

/**
 * `text` with each character a terminal would act on replaced by what `escape` gives for it.
 *
 * @since 0.2.0
 * @category rendering
 */
export const escapeUnsafe = (text: string, escape: (char: string) => string): string =>
  text.replace(everyUnsafe, escape)

const otherLineBreaks = /\r\n?|[\v\f\u0085\u2028\u2029]/g
const unsafeInLines = /[^\P{Cc}\n\t]|[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu

const withoutEscapes = PlatformText.withoutEscapeSequences

/**
 * A text as one line: escape sequences and unsafe characters removed, whitespace runs (line breaks and tabs
 * included) one space, as the SDK writes the platform's text in its errors.
 *
 * @since 0.2.0
 * @category rendering
 */
export const oneLine: (text: string) => string = PlatformText.oneLine

/**
 * A text as the lines it has, tabs kept: escape sequences and unsafe characters removed.
 *
 * @since 0.2.0
 * @category rendering
 */
export const printable = (text: string): string =>
  withoutEscapes(text).replace(otherLineBreaks, "\n").replace(unsafeInLines, "")

const unsafeInJson = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu

/**
 * A value as JSON (2-space indent) that a terminal shows as it is: the unsafe characters `JSON.stringify` leaves
 * as they are (DEL, C1 controls, bidirectional formatting) written as `\uXXXX` escapes, so the document's value
 * is unchanged.
 *
 * @since 0.2.0
 * @category rendering
 */
export const json = (value: unknown): string =>
  JSON.stringify(value, null, 2).replace(
    unsafeInJson,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`
  )
