/**
 * A value as an input error quotes it (`must be a UUID (got 12)`). An untyped caller may pass anything: a
 * `bigint` or a circular object, which `JSON.stringify` throws on, or a text of megabytes. Never throws.
 */
import * as Either from "effect/Either"

/** @internal */
export const maxQuotedLength = 256

/**
 * A string as JSON (at most {@link maxQuotedLength} characters of it, then `…`), a small array or object as
 * JSON, anything else by its kind or `String`.
 *
 * @internal
 */
export const describeValue = (value: unknown): string => {
  switch (typeof value) {
    case "string":
      return value.length > maxQuotedLength
        ? `${JSON.stringify(value.slice(0, maxQuotedLength))}…`
        : JSON.stringify(value)
    case "bigint":
      return `${value}n`
    case "function":
      return "a function"
    case "object": {
      const json = Either.getOrUndefined(Either.try(() => JSON.stringify(value)))
      return json !== undefined && json.length <= maxQuotedLength ? json : Array.isArray(value) ? "a list" : "an object"
    }
    default:
      // number, boolean, symbol, undefined
      return String(value)
  }
}

/**
 * The reason an input error gives for a value of an untyped caller that is not a string.
 *
 * @internal
 */
export const notAStringReason = (value: unknown): string => `must be a string (got ${describeValue(value)})`
