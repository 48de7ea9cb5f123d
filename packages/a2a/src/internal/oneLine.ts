/**
 * A text as one line for a message or a log: escape sequences go whole, whitespace runs (line breaks included)
 * become one space and other control characters go, so text a platform sent can neither add lines to a log nor
 * drive a terminal.
 */

// Escape sequences (ECMA-48): a control sequence (CSI), a control string (OSC, DCS, …) up to its terminator, any
// other escape. Each part repeats one character class: no hostile text makes it slow or overflow the stack, as
// Node's `stripVTControlCharacters` does from 8 MiB.
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

/** @internal */
export const oneLine = (text: string): string =>
  withoutEscapeSequences(text).replace(/\s+/g, " ").replace(/\p{Cc}/gu, "").trim()
