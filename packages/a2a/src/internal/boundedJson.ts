/**
 * JSON from the platform, parsed within a nesting depth checked by an iterative scan before `JSON.parse`:
 * nothing downstream (schemas, `JSON.stringify`, equality, inspection) then recurses deeper than that.
 *
 * The limit, {@link maxJsonDepth} = 512 levels: a genuine answer is a few levels deep (the envelope, a
 * Task's artifacts, a part) plus an Agent's own `data`; parsers that bound nesting stop at 128 (serde_json)
 * to 1,000 (Python), and 512 levels of any value still decode, print and compare on a default stack. The
 * size is bounded before this, by the client's `maxResponseBytes` (the whole answer is read into memory).
 *
 * A member named `__proto__` is dropped: a Schema decodes an object with unknown keys by assigning each, and
 * that name would assign the decoded object's prototype (a Message that inherits a Task's fields).
 */
import * as Either from "effect/Either"

/**
 * The deepest nesting of arrays and objects accepted in an answer.
 *
 * @internal
 */
export const maxJsonDepth = 512

/**
 * Why a text is not accepted as JSON: it is not JSON, or it nests deeper than the limit.
 *
 * @internal
 */
export type JsonRefusal = "not-json" | "too-deep"

const openers = new Set([0x5b, 0x7b]) // [ {
const closers = new Set([0x5d, 0x7d]) // ] }

/** Whether `text` nests arrays and objects (outside strings) at most `limit` deep; stops at the first level past it. */
const withinDepth = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (openers.has(c)) {
      if (++depth > limit) return false
    } else if (closers.has(c)) {
      depth--
    }
  }
  return true
}

// A reviver makes a parse several times slower: it runs only on texts that may spell the name, escapes included.
const mayNameProto = /__proto__|\\u00(?:5[fF]|6[fF]|7[024])/
const withoutProto = (key: string, value: unknown): unknown => key === "__proto__" ? undefined : value

/**
 * `text` parsed as JSON (without `__proto__` members), if it is JSON nested at most `limit` levels deep.
 *
 * @internal
 */
export const parseBoundedJson = (text: string, limit: number = maxJsonDepth): Either.Either<unknown, JsonRefusal> => {
  if (!withinDepth(text, limit)) return Either.left("too-deep")
  try {
    return Either.right(JSON.parse(text, mayNameProto.test(text) ? withoutProto : undefined))
  } catch {
    return Either.left("not-json")
  }
}
