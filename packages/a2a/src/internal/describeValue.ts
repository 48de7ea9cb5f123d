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

/**
 * The reason an input error gives for an object with a field the SDK does not read, if any: without it, a
 * misspelt or misplaced option (`timout`, `files`) would be dropped without a word; a misspelling is
 * suggested its field. A field set to `undefined` is left alone.
 *
 * @internal
 */
export const unknownFieldReason = (value: object, fields: ReadonlyArray<string>): string | undefined => {
  const unknown = Object.keys(value).find((key) => !fields.includes(key) && Reflect.get(value, key) !== undefined)
  if (unknown === undefined) return undefined
  const near = nearestField(unknown, fields)
  return `has an unknown field ${describeValue(unknown)} (${
    near === undefined ? `the fields are ${fields.join(", ")}` : `did you mean "${near}"?`
  })`
}

// A misspelling: the field at most 2 edits away, case aside (a name over 64 characters is not compared).
const nearestField = (unknown: string, fields: ReadonlyArray<string>): string | undefined => {
  if (unknown.length > 64) return undefined
  const scored = fields.map((field) => ({ field, edits: editDistance(unknown.toLowerCase(), field.toLowerCase()) }))
  const best = scored.reduce<typeof scored[number] | undefined>(
    (nearest, each) => nearest === undefined || each.edits < nearest.edits ? each : nearest,
    undefined
  )
  return best !== undefined && best.edits <= 2 ? best.field : undefined
}

// Insertions, deletions and substitutions from `a` to `b`, one row of the table at a time.
const editDistance = (a: string, b: string): number => {
  const target = Array.from(b)
  let row = Array.from({ length: target.length + 1 }, (_, j) => j)
  for (const [i, char] of Array.from(a).entries()) {
    const next = [i + 1]
    for (const [j, other] of target.entries()) {
      next.push(Math.min(row[j + 1] + 1, next[j] + 1, row[j] + (char === other ? 0 : 1)))
    }
    row = next
  }
  return row[target.length]
}

/**
 * The reason an input error gives for an options object of an untyped caller, if any: it must be an object
 * (not a list) of known fields, such as `example`.
 *
 * @internal
 */
export const optionsObjectReason = (
  value: unknown,
  fields: ReadonlyArray<string>,
  example: string
): string | undefined =>
  typeof value !== "object" || value === null || Array.isArray(value)
    ? `must be an object such as ${example} (got ${describeValue(value)})`
    : unknownFieldReason(value, fields)
