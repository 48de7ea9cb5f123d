import { describe, expect, it } from "@effect/vitest"
import { describeValue, maxQuotedLength } from "../src/internal/describeValue.js"

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
