// The telemetry module's own logic: the `error.type` of an exit and the server of a URL.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { A2AInputError } from "../src/A2AError.js"
import { errorTypeOf, serverOf } from "../src/internal/telemetry.js"

describe("error.type of an exit", () => {
  it("none for a success; the tag of a tagged failure; _OTHER for any other failure", () => {
    expect(errorTypeOf(Exit.succeed(1))).toEqual(Option.none())
    expect(errorTypeOf(Exit.fail(new A2AInputError({ field: "message", reason: "empty" }))))
      .toEqual(Option.some("A2AInputError"))
    for (const error of ["text", null, undefined, {}, { _tag: 7 }]) {
      expect(errorTypeOf(Exit.fail(error))).toEqual(Option.some("_OTHER"))
    }
  })

  it.effect("interrupted for an interruption alone; _OTHER for a defect", () =>
    Effect.gen(function*() {
      expect(errorTypeOf(yield* Effect.exit(Effect.interrupt))).toEqual(Option.some("interrupted"))
      expect(errorTypeOf(Exit.die(new Error("boom")))).toEqual(Option.some("_OTHER"))
    }))
})

describe("server.address and server.port of a URL", () => {
  it("the host and the port, the scheme's default when none is given; nothing for a text that is no URL", () => {
    expect(serverOf("https://runtime.example/a2a")).toEqual({ "server.address": "runtime.example", "server.port": 443 })
    expect(serverOf("http://runtime.example/a2a")).toEqual({ "server.address": "runtime.example", "server.port": 80 })
    expect(serverOf("http://127.0.0.1:8080/")).toEqual({ "server.address": "127.0.0.1", "server.port": 8080 })
    expect(serverOf("not a url")).toEqual({})
  })
})
