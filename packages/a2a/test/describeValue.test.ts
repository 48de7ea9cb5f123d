import { describe, expect, it } from "@effect/vitest"
import {
  describeValue,
  maxQuotedLength,
  optionsObjectReason,
  unknownFieldReason
} from "../src/internal/describeValue.js"

describe("describeValue: how an input error quotes a value of any type", () => {
  it("strings and small JSON values as JSON, the rest by kind, and never throws", () => {
    const circular: Record<string, unknown> = {}
    circular["self"] = circular
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      ["abc", `"abc"`],
      ["", `""`],
      [12, "12"],
      [Number.NaN, "NaN"],
      [true, "true"],
      [undefined, "undefined"],
      [null, "null"],
      [10n, "10n"],
      [Symbol.for("s"), "Symbol(s)"],
      [() => 1, "a function"],
      [[5, 0], "[5,0]"],
      [{ a: 1 }, `{"a":1}`],
      [{}, "{}"],
      [circular, "an object"],
      [[circular], "a list"],
      [{ big: 1n }, "an object"],
      [{ toJSON: () => undefined }, "an object"],
      [Array.from({ length: 200 }, () => 1), "a list"],
      [{ text: "x".repeat(maxQuotedLength) }, "an object"]
    ]
    for (const [value, shown] of cases) expect([value, describeValue(value)]).toEqual([value, shown])
  })

  it(`a string longer than ${maxQuotedLength} characters: its start as JSON, then …`, () => {
    expect(describeValue("y".repeat(maxQuotedLength))).toBe(JSON.stringify("y".repeat(maxQuotedLength)))
    expect(describeValue("y".repeat(maxQuotedLength + 1))).toBe(`${JSON.stringify("y".repeat(maxQuotedLength))}…`)
    expect(describeValue("a\"b\n")).toBe(`"a\\"b\\n"`)
  })

  it(`an array or object whose JSON has ${maxQuotedLength} characters is still written out`, () => {
    const exactly = { k: "z".repeat(maxQuotedLength - 8) }
    expect(JSON.stringify(exactly)).toHaveLength(maxQuotedLength)
    expect(describeValue(exactly)).toBe(JSON.stringify(exactly))
  })
})

describe("options objects of untyped callers: an object of known fields", () => {
  const fields = ["message", "taskId", "timeout"]

  it("an unknown field is named; one at most 2 edits from a field (case aside) is suggested, else all are listed", () => {
    expect(unknownFieldReason({ message: "hi", timeout: 5 }, fields)).toBeUndefined()
    expect(unknownFieldReason({}, fields)).toBeUndefined()
    expect(unknownFieldReason({ message: "hi", taskID: "t" }, fields)).toBe(
      `has an unknown field "taskID" (did you mean "taskId"?)`
    )
    expect(unknownFieldReason({ message: "hi", files: [] }, fields)).toBe(
      `has an unknown field "files" (the fields are message, taskId, timeout)`
    )
    // misspelt: a letter missing, one too many, one changed, two letters swapped (2 edits), and case on top
    const misspelt = [["mesage", "message"], ["taskIdd", "taskId"], ["timeuot", "timeout"], ["MESAGE", "message"]]
    for (const [name, field] of misspelt) {
      expect(unknownFieldReason({ [name]: 1 }, fields)).toBe(
        `has an unknown field "${name}" (did you mean "${field}"?)`
      )
    }
    // 3 edits away from every field: no suggestion
    expect(unknownFieldReason({ tmeuot: 1 }, fields)).toBe(
      `has an unknown field "tmeuot" (the fields are message, taskId, timeout)`
    )
    // the nearest field wins, the first of equals
    expect(unknownFieldReason({ ab: 1 }, ["abcd", "abc", "abx"])).toBe(
      `has an unknown field "ab" (did you mean "abc"?)`
    )
    expect(unknownFieldReason({ a: 1 }, ["abc", "ab"])).toBe(`has an unknown field "a" (did you mean "ab"?)`)
    expect(unknownFieldReason({ x: 1 }, ["a", "b"])).toBe(`has an unknown field "x" (did you mean "a"?)`)
    expect(unknownFieldReason({ abcd: 1 }, ["", "abcdef"])).toBe(`has an unknown field "abcd" (did you mean "abcdef"?)`)
    // no fields at all: nothing to suggest
    expect(unknownFieldReason({ a: 1 }, [])).toBe(`has an unknown field "a" (the fields are )`)
    // the first unknown one, in the object's own order
    expect(unknownFieldReason({ b: 1, a: 2 }, fields)).toBe(
      `has an unknown field "b" (the fields are message, taskId, timeout)`
    )
  })

  it("a field set to undefined is left alone; a name is quoted bounded", () => {
    expect(unknownFieldReason({ message: "hi", files: undefined }, fields)).toBeUndefined()
    expect(unknownFieldReason({ extra: null }, fields)).toBe(
      `has an unknown field "extra" (the fields are message, taskId, timeout)`
    )
    const long = "k".repeat(maxQuotedLength + 1)
    expect(unknownFieldReason({ [long]: 1 }, fields)).toBe(
      `has an unknown field ${describeValue(long)} (the fields are message, taskId, timeout)`
    )
    // a name over 64 characters is not compared, however near; one of 64 is
    expect(unknownFieldReason({ [`${"m".repeat(64)}x`]: 1 }, ["m".repeat(64)])).toContain("(the fields are")
    expect(unknownFieldReason({ [`${"m".repeat(63)}x`]: 1 }, ["m".repeat(64)])).toContain("(did you mean")
  })

  it("a value that is no object, or a list, is refused with the example; an object goes on to its fields", () => {
    for (const [value, got] of [[null, "null"], [5, "5"], ["hi", `"hi"`], [[1], "[1]"], [undefined, "undefined"]]) {
      expect(optionsObjectReason(value, fields, "{ timeout: 30 }")).toBe(
        `must be an object such as { timeout: 30 } (got ${got})`
      )
    }
    expect(optionsObjectReason({ timeout: 30 }, fields, "{ timeout: 30 }")).toBeUndefined()
    expect(optionsObjectReason({ Timeout: 30 }, fields, "{ timeout: 30 }")).toBe(
      `has an unknown field "Timeout" (did you mean "timeout"?)`
    )
  })
})
