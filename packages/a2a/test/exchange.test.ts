import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { withinBudget } from "../src/internal/budget.js"
import { makeCall } from "../src/internal/callContext.js"
import { exchange } from "../src/internal/exchange.js"
import type * as Timeout from "../src/Timeout.js"
import { failFor, sessionUid } from "./fixtures.js"

describe("exchange: phase limits", () => {
  it.effect("a head that never comes is cut at connect + read and reported as the response-head limit", () =>
    Effect.gen(function*() {
      // a total well past connect + read, so the head limit is what ends the exchange
      const budget: Timeout.Budget = {
        total: Duration.seconds(100),
        connect: Duration.seconds(1),
        read: Duration.seconds(2),
        totalSeconds: 100
      }
      const call = yield* makeCall({ agentSessionUid: sessionUid, messageId: "m-1", budget, step: "send-message" })
      const silent = HttpClient.make(() => Effect.never)
      const request = HttpClientRequest.post("https://runtime.example/api/a2a/v1/message:send")
      const { error, millis } = yield* failFor(
        // the call's one watchdog (withinBudget) enforces the phase deadline the exchange sets
        withinBudget(
          call,
          exchange(silent, call, "send-message", request, { maxResponseBytes: 1024, carriesMessage: true }).pipe(
            Effect.catchTag("ResponseTooLarge", Effect.die)
          )
        ),
        "1 minute"
      )
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        limit: "response-head",
        seconds: 3,
        step: "send-message",
        messageMayHaveBeenSent: true
      })
      expect(error.message).toMatch(/^No response head within 3 s \(the connect \+ read limits\) during send-message;/)
      expect(millis).toBe(3000)
    }))
})
