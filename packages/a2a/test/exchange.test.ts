import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as TestClock from "effect/TestClock"
import { A2AInputError } from "../src/A2AError.js"
import { withinBudget } from "../src/internal/budget.js"
import { type Call, makeCall } from "../src/internal/callContext.js"
import { currentConnectPhase, noConnectPhase } from "../src/internal/connectTimeout.js"
import { exchange, type ResponseTooLarge } from "../src/internal/exchange.js"
import type * as Timeout from "../src/Timeout.js"
import { failFor, jsonResponse, runFor, sessionUid } from "./fixtures.js"

// No answer in these tests is over its limit.
const tooLargeDies = (refused: ResponseTooLarge): never => {
  throw refused
}

// connect 1 s, read 2 s, and a total of `totalSeconds`.
const headLimits = (totalSeconds: number): Timeout.Budget => ({
  total: Duration.seconds(totalSeconds),
  connect: Duration.seconds(1),
  read: Duration.seconds(2),
  totalSeconds
})

// A total well past connect + read, so that the phase limits are what the tests see.
const phased = headLimits(100)

// One exchange to a client that never answers, under the call's one watchdog (withinBudget), which enforces
// the phase deadline the exchange sets: the error and when it came.
const unanswered = (
  budget: Timeout.Budget,
  step: "send-message" | "discover-agent",
  options: { readonly carriesMessage?: boolean; readonly shared?: boolean }
) =>
  Effect.gen(function*() {
    const call = yield* makeCall({ agentSessionUid: sessionUid, messageId: "m-1", budget, step })
    const silent = HttpClient.make(() => Effect.never)
    const request = step === "send-message"
      ? HttpClientRequest.post("https://runtime.example/api/a2a/v1/message:send")
      : HttpClientRequest.get("https://backend.example/api/v1/agent-sessions/s-1/")
    return yield* failFor(
      withinBudget(
        call,
        exchange(
          silent,
          call,
          step,
          request,
          { maxResponseBytes: 1024, ...options, tooLarge: tooLargeDies },
          Effect.succeed
        )
      ),
      "1 minute"
    )
  })

describe("exchange: phase limits", () => {
  it.effect("a head that never comes is cut at connect + read and reported as the response-head limit", () =>
    Effect.gen(function*() {
      // a total well past connect + read, so the head limit is what ends the exchange
      const { error, millis } = yield* unanswered(headLimits(100), "send-message", { carriesMessage: true })
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

  // A shared exchange (the backend's) runs under an alarm of its own, without the call's total; when its head
  // limit ends together with the call's total, the error is still the total's (SPEC §5).
  it.effect("a shared exchange whose head limit ends with the call's total reports the total", () =>
    Effect.gen(function*() {
      const { error, millis } = yield* unanswered(headLimits(3), "discover-agent", { shared: true })
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        limit: "total",
        seconds: 3,
        step: "discover-agent",
        messageMayHaveBeenSent: false
      })
      expect(millis).toBe(3000)
    }))

  // The call's one watchdog (withinBudget) enforces the exchange's phase limits.
  const request = HttpClientRequest.post("https://runtime.example/api/a2a/v1/message:send")
  const answered = (client: HttpClient.HttpClient, call: Call) =>
    exchange(client, call, "get-task", request, { maxResponseBytes: 1024, tooLarge: tooLargeDies }, Effect.succeed)

  it.effect("an exchange's phase limit ends with it: the call may then wait longer than read, up to its total", () =>
    Effect.gen(function*() {
      const call = yield* makeCall({ agentSessionUid: sessionUid, messageId: "m-1", budget: phased, step: "get-task" })
      const answering = HttpClient.make((request) => Effect.succeed(jsonResponse(request, 200, { ok: true })))
      const { error, millis, value } = yield* runFor(
        withinBudget(
          call,
          Effect.gen(function*() {
            const answer = yield* answered(answering, call)
            yield* Effect.sleep("10 seconds")
            return answer.status
          })
        ),
        "1 minute"
      )
      expect(error).toBeUndefined()
      expect(value).toBe(200)
      expect(millis).toBe(10_000)
    }))

  it.effect("the total still ends a call whose exchanges each keep within the phase limits", () =>
    Effect.gen(function*() {
      const call = yield* makeCall({ agentSessionUid: sessionUid, messageId: "m-1", budget: phased, step: "get-task" })
      const answering = HttpClient.make((request) => Effect.succeed(jsonResponse(request, 200, { ok: true })))
      const polling = Effect.forever(
        Effect.zipRight(
          answered(answering, call),
          Effect.sleep("1500 millis")
        )
      )
      const { error, millis } = yield* failFor(withinBudget(call, polling), "5 minutes")
      expect(error).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", seconds: 100, step: "get-task" })
      expect(millis).toBe(100_000)
    }))
})

// What passes between an exchange and the HTTP layer for the head: a client that takes the phase directly (the
// Node layer's) is handed it and no fiber ref is set; any other sees it in the fiber's refs, set back after the
// head. A step of the call between two exchanges (a custom cache, say) sees the refs as they were.
describe("exchange: the connect phase handed to the HTTP layer", () => {
  type Seen = readonly [
    label: string,
    phase: string,
    disabledWhen: (request: HttpClientRequest.HttpClientRequest) => boolean
  ]
  const request = HttpClientRequest.get("https://runtime.example/api/a2a/v1/tasks/t-1")
  const seen = (label: string, log: Array<Seen>) =>
    Effect.withFiberRuntime((fiber) => {
      const phase = fiber.getFiberRef(currentConnectPhase) === noConnectPhase ? "none" : "exchange"
      log.push([label, phase, fiber.getFiberRef(HttpClient.currentTracerDisabledWhen)])
      return Effect.void
    })

  it.effect("a generic client sees it in the fiber's refs, set back after the head; a client that takes it, none set", () =>
    Effect.gen(function*() {
      const call = yield* makeCall({ agentSessionUid: sessionUid, messageId: "m-1", budget: phased, step: "get-task" })
      const before = yield* FiberRef.get(HttpClient.currentTracerDisabledWhen)
      const log: Array<Seen> = []
      const generic = HttpClient.make((request) =>
        Effect.as(seen("generic, head", log), jsonResponse(request, 200, { ok: true }))
      )
      for (const client of [generic]) {
        yield* exchange(
          client,
          call,
          "get-task",
          request,
          { maxResponseBytes: 1024, tooLarge: tooLargeDies },
          (answer) => Effect.as(seen("after", log), answer)
        )
      }
      expect(log.map(([label, phase]) => [label, phase])).toEqual([
        ["generic, head", "exchange"],
        ["after", "none"]
      ])
      // The platform's own span is off for the generic client's head only; the ref is the same one after.
      expect(log[0]?.[2](request)).toBe(true)
      expect(log.slice(1).map(([, , disabledWhen]) => disabledWhen === before)).toEqual([true])
    }))
})

// A call's deadline is an alarm in its client's queue; the budget takes it out when the call ends, however it
// ends, so a client that runs for months keeps no alarm for calls gone (the default budget is 905 s).
describe("budget: a call that has ended leaves no alarm behind", () => {
  it.effect("succeeded, failed, interrupted or timed out: its alarm is out of the queue", () =>
    Effect.gen(function*() {
      const budgetOf = (seconds: number): Timeout.Budget => ({
        total: Duration.seconds(seconds),
        connect: undefined,
        read: undefined,
        totalSeconds: seconds
      })
      const call = (seconds: number) =>
        makeCall({ agentSessionUid: sessionUid, messageId: "m-1", budget: budgetOf(seconds), step: "send-message" })
      const long = yield* call(905)
      const alarms = long.alarms.of(yield* Clock.clockWith(Effect.succeed))
      expect(yield* withinBudget(long, Effect.succeed("done"))).toBe("done")
      expect(alarms.size).toBe(0)
      const refused = new A2AInputError({ field: "message", reason: "must not be blank" })
      expect(yield* Effect.flip(withinBudget(long, Effect.fail(refused)))).toBe(refused)
      expect(alarms.size).toBe(0)
      const interrupted = yield* Effect.fork(withinBudget(long, Effect.never))
      yield* TestClock.adjust("1 second")
      expect(alarms.size).toBe(1)
      yield* Fiber.interrupt(interrupted)
      expect(alarms.size).toBe(0)
      const timedOut = yield* Effect.fork(Effect.flip(withinBudget(yield* call(2), Effect.never)))
      yield* TestClock.adjust("3 seconds")
      expect(yield* Fiber.join(timedOut)).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", seconds: 2 })
      expect(alarms.size).toBe(0)
    }))
})
