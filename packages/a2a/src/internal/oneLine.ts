/**
 * A text as one line for a message or a log: escape sequences go whole, whitespace runs (line breaks included)
 * become one space, and other control characters and the bidirectional formatting characters go, so text a
 * platform sent can neither add lines to a log, drive a terminal nor reorder what is read.
 */

// Escape sequences (ECMA-48): a control sequence (CSI), a control string (OSC, DCS, …) up to its terminator, any
// other escape. Each part repeats one character class: no hostile text makes it slow or overflow the stack, as
// Node's `stripVTControlCharacters` does on a long one.
const escapeSequence = new RegExp(
  [
    "(?:\u001b\\[|\u009b)[0-?]*[ -/]*[@-~]",
    "(?:\u001b[\\]PX^_]|[\u0090\u0098\u009d-\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\\\|\u009c)",
    "\u001b[ -/]*[0-~]"
  ].join("|"),
  "g"
)

/** @internal */
export const withoutEscapeSequences = (text: string): string => text.replace(escapeSequence, "")

// Control characters, and the bidirectional formatting ones: a viewer reorders the text around those instead of
// showing them (a name shown reversed, a log line that reads otherwise).
const unshown = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu

/** @internal */
export const oneLine = (text: string): string =>
  withoutEscapeSequences(text).replace(/[\s\u0085]+/g, " ").replace(unshown, "").trim()
