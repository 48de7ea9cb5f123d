import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { sha256Hex } from "../src/internal/sha256.js"

describe("sha256Hex", () => {
  it("matches node:crypto on lengths around the block boundaries", () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
      const text = "é".repeat(n % 7) + "a".repeat(n)
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text).digest("hex"))
    }
  })
})
