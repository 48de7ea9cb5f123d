import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { layerTest, SimulatedPlatform } from "../src/index.js"
import { a2aHeaders, admitted, exchange, messageBody, rpcError, scenario } from "./support.js"

describe("the simulated runtime's routes", () => {
  it.effect("any path under a runtime that is not an A2A route is 404 NOT_FOUND as google.rpc Status JSON", () =>
    Effect.gen(function*() {
      const access = yield* admitted()
      const base = access.rpcUrl.replace(/\/+$/, "")
      const wrong = [
        "",
        "/",
        "/message:send",
        "/api/a2a/v1",
        "/api/a2a/v1/",
        "/api/a2a/v1/message:sendx",
        "/api/a2a/v1/messages:send",
        "/api/a2a/v2/message:send",
        "/api/a2a/v1/tasks/x/y"
      ]
      for (const rest of wrong) {
        const answer = yield* exchange(
          HttpClientRequest.post(`${base}${rest}`, { headers: a2aHeaders(access.token) }).pipe(
            HttpClientRequest.bodyUnsafeJson(messageBody())
          )
        )
        expect(answer.status, rest).toBe(404)
        expect(answer.headers["content-type"], rest).toBe("application/a2a+json")
        expect(yield* rpcError(answer), rest).toMatchObject({
          code: 404,
          status: "NOT_FOUND",
          message: expect.stringContaining(`No A2A route at "${rest}"`)
        })
      }
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const log = yield* platform.requestLog
      const runtimeEntries = log.filter((entry) => entry.target === "runtime")
      expect(runtimeEntries.map((entry) => entry.route)).toEqual(wrong.map(() => "unknown"))
      expect((yield* platform.counters).sends).toEqual({ [scenario().sessionUid]: 0 })
    }).pipe(Effect.provide(layerTest({ sessions: [scenario()] }))))
})
