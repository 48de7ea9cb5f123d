import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { withinBudget } from "../src/internal/budget.js"
import { type Call, makeCall } from "../src/internal/callContext.js"
import { currentConnectPhase, noConnectPhase } from "../src/internal/connectPhase.js"
import { exchange, type ResponseTooLarge } from "../src/internal/exchange.js"
import { ProxyRefused, proxyRefusedCode } from "../src/internal/proxy.js"
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

// One exchange to a client that never answers, within the call's total (withinBudget): the error and when it came.
const unanswered = (
  budget: Timeout.Budget,
  step: "send-message" | "discover-agent",
  options: { readonly carriesMessage?: boolean }
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
        exchange(silent, call, step, request, {
          maxResponseBytes: 1024,
          ...options,
          peer: "runtime",
          tooLarge: tooLargeDies
        })
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

  // When an exchange's head limit ends together with the call's total, the error is the total's (SPEC §5).
  it.effect("an exchange whose head limit ends with the call's total reports the total", () =>
    Effect.gen(function*() {
      const { error, millis } = yield* unanswered(headLimits(3), "discover-agent", {})
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        limit: "total",
        seconds: 3,
        step: "discover-agent",
        messageMayHaveBeenSent: false
      })
      expect(millis).toBe(3000)
    }))

  const request = HttpClientRequest.post("https://runtime.example/api/a2a/v1/message:send")
  const answered = (client: HttpClient.HttpClient, call: Call) =>
    exchange(client, call, "get-task", request, { maxResponseBytes: 1024, peer: "runtime", tooLarge: tooLargeDies })

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

// What passes between an exchange and the HTTP layer for the head: the connect phase in the fiber's refs, with
// the platform's own span off (it would hold the bearer token); both set back after the head.
describe("exchange: the connect phase handed to the HTTP layer", () => {
  const request = HttpClientRequest.get("https://runtime.example/api/a2a/v1/tasks/t-1")
  type Seen = readonly [label: string, phase: string, spanOff: boolean]
  const seen = (label: string, log: Array<Seen>) =>
    Effect.withFiberRuntime((fiber) => {
      const phase = fiber.getFiberRef(currentConnectPhase) === noConnectPhase ? "none" : "exchange"
      log.push([label, phase, fiber.getFiberRef(HttpClient.currentTracerDisabledWhen)(request)])
      return Effect.void
    })

  it.effect("the client sees the exchange's phase during the head, with the platform's span off; both set back after", () =>
    Effect.gen(function*() {
      const call = yield* makeCall({ agentSessionUid: sessionUid, messageId: "m-1", budget: phased, step: "get-task" })
      const before = yield* FiberRef.get(HttpClient.currentTracerDisabledWhen)
      const log: Array<Seen> = []
      const client = HttpClient.make((request) =>
        Effect.as(seen("head", log), jsonResponse(request, 200, { ok: true }))
      )
      yield* exchange(client, call, "get-task", request, {
        maxResponseBytes: 1024,
        peer: "runtime",
        tooLarge: tooLargeDies
      })
      yield* seen("after", log)
      expect(log).toEqual([["head", "exchange", true], ["after", "none", before(request)]])
      expect(yield* FiberRef.get(HttpClient.currentTracerDisabledWhen)).toBe(before)
    }))
})

// A message:send through `client` (a [1, 2] budget, nothing over its size limit): the exchange's error.
const sendFailure = (client: HttpClient.HttpClient) =>
  Effect.gen(function*() {
    const call = yield* makeCall({
      agentSessionUid: sessionUid,
      messageId: "m-1",
      budget: phased,
      step: "send-message"
    })
    const request = HttpClientRequest.post("https://runtime.example/api/a2a/v1/message:send")
    return yield* Effect.flip(
      exchange(client, call, "send-message", request, {
        maxResponseBytes: 1024,
        carriesMessage: true,
        peer: "runtime",
        tooLarge: tooLargeDies
      })
    )
  })

describe("exchange: transport failures", () => {
  it.effect("a proxy's refusal: an A2ATransportError naming the proxy and its status; the message was never sent", () =>
    Effect.gen(function*() {
      const refusing = HttpClient.make((request) =>
        Effect.fail(
          new HttpClientError.RequestError({
            request,
            reason: "Transport",
            cause: new ProxyRefused("http://proxy.example:3128", 407)
          })
        )
      )
      expect(yield* sendFailure(refusing)).toMatchObject({
        _tag: "A2ATransportError",
        step: "send-message",
        code: proxyRefusedCode,
        proxy: "http://proxy.example:3128",
        proxyStatus: 407,
        messageMayHaveBeenSent: false
      })
    }))

  it.effect("a body that breaks off: an A2ATransportError at step read-response; the message may have been sent", () =>
    Effect.gen(function*() {
      const breaking = HttpClient.make((request) =>
        Effect.sync(() => {
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("{\"message\":"))
              controller.error(new Error("socket hang up"))
            }
          })
          return HttpClientResponse.fromWeb(request, new Response(body, { status: 200 }))
        })
      )
      expect(yield* sendFailure(breaking)).toMatchObject({
        _tag: "A2ATransportError",
        step: "read-response",
        url: "https://runtime.example/api/a2a/v1/message:send",
        messageMayHaveBeenSent: true
      })
    }))
})
