/**
 * A text as one line for a message or a log: whitespace runs (line breaks included) become one space and other
 * control characters go, so text a platform sent can neither add lines to a log nor drive a terminal.
 *
 * @internal
 */
export const oneLine = (text: string): string => text.replace(/\s+/g, " ").replace(/\p{Cc}/gu, "").trim()
