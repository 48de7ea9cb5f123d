import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { maxJsonDepth, parseBoundedJson } from "../src/internal/boundedJson.js"

const nested = (levels: number, open = "[", close = "]") => `${open.repeat(levels)}${close.repeat(levels)}`

describe("parseBoundedJson", () => {
  it("parses JSON nested up to the limit (512 by default) and refuses one level more", () => {
    expect(maxJsonDepth).toBe(512)
    expect(Either.isRight(parseBoundedJson(nested(512)))).toBe(true)
    expect(parseBoundedJson(nested(513))).toEqual(Either.left("too-deep"))
    expect(parseBoundedJson(`{"a":${nested(3)}}`, 4)).toEqual(Either.right({ a: [[[]]] }))
    expect(parseBoundedJson(`{"a":${nested(4)}}`, 4)).toEqual(Either.left("too-deep"))
  })

  it("counts objects as arrays, and closing brackets give the level back", () => {
    expect(parseBoundedJson(`{"a":{"b":{}}}`, 2)).toEqual(Either.left("too-deep"))
    expect(parseBoundedJson(`[{}, {}, [], {"a": []}]`, 3)).toEqual(Either.right([{}, {}, [], { a: [] }]))
    expect(parseBoundedJson(`[${Array(100).fill("[]").join(",")}]`, 2)).toEqual(Either.right(Array(100).fill([])))
  })

  it("does not count brackets inside strings, escaped quotes and backslashes included", () => {
    const text = JSON.stringify(["\\", "\"[[[[", "]]]]{{{{"])
    expect(parseBoundedJson(text, 1)).toEqual(Either.right(["\\", "\"[[[[", "]]]]{{{{"]))
  })

  it("a 5,000-level text is refused at once, not parsed", () => {
    expect(parseBoundedJson(nested(5000, "{\"a\":", "}"))).toEqual(Either.left("too-deep"))
  })

  it("drops every \"__proto__\" member, however its name is escaped; the objects keep Object's prototype", () => {
    for (const name of ["__proto__", "\\u005f_proto__", "__pr\\u006fto\\u005F_", "__\\u0070r\\u006ft\\u006f__"]) {
      const parsed = parseBoundedJson(`{"${name}":{"polluted":1},"a":[{"${name}":{"b":2},"c":3}]}`)
      expect(parsed).toEqual(Either.right({ a: [{ c: 3 }] }))
      const value = Either.getOrThrow(parsed) as { a: Array<object> }
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
      expect(Object.getPrototypeOf(value.a[0])).toBe(Object.prototype)
      expect(Object.hasOwn(value, "__proto__")).toBe(false)
    }
    // a text that cannot spell the name is parsed as it is
    expect(parseBoundedJson(`{"proto":"\\u00e9"}`)).toEqual(Either.right({ proto: "é" }))
  })

  it("text that is not JSON is not-json", () => {
    expect(parseBoundedJson("{ not json")).toEqual(Either.left("not-json"))
    expect(parseBoundedJson("")).toEqual(Either.left("not-json"))
  })
})
