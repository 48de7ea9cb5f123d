import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as A2AClient from "../src/A2AClient.js"
import type * as Timeout from "../src/Timeout.js"
import { client, fakeRuntime, recordSpans, runtimeSends, sendUrl, session, sessionUid, simulated } from "./fixtures.js"

// SPEC §5 / §10: a failed connection is A2ATransportError naming the step, method, URL and the failure's
// kind and code (never request text); only a failure of the connect phase, on every address tried, proves
// that nothing left (messageMayHaveBeenSent false); undici's connect timeout is the connect limit.

const coded = (code: string) => Object.assign(new Error(`connect ${code}`), { code })

/** The error of one send whose runtime request fails with `error(request)`. */
const failingWith = (
  error: (request: HttpClientRequest.HttpClientRequest) => HttpClientError.HttpClientError,
  timeout: Timeout.Timeout = [5, 10]
) =>
  Effect.flatMap(
    A2AClient.A2AClient,
    (a2a) => Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", timeout }))
  ).pipe(
    // `cause` is the error's own text field, not enumerable on the Error
    Effect.map((e) => ({ ...e, cause: "cause" in e && typeof e.cause === "string" ? e.cause : undefined })),
    Effect.provide(fakeRuntime((request) => Effect.fail(error(request))))
  )

const transport = (cause: unknown) => (request: HttpClientRequest.HttpClientRequest) =>
  new HttpClientError.RequestError({ request, reason: "Transport", cause })

const transportError = (messageMayHaveBeenSent: boolean, cause: string | undefined) => ({
  _tag: "A2ATransportError",
  agentSessionUid: sessionUid,
  messageId: "m-1",
  method: "POST",
  url: sendUrl,
  step: "send-message",
  messageMayHaveBeenSent,
  ...(cause === undefined ? {} : { cause }),
  // the failure's code, when it has one, is also a field of its own ("<kind> <code>" in `cause`)
  ...(cause?.split(" ")[1] === undefined ? {} : { code: cause.split(" ")[1] })
})

describe("rules: which transport failures prove the request never left (SPEC §5)", () => {
  it.effect("a refused connection: never left, the cause is the kind and the code", () =>
    Effect.gen(function*() {
      expect(yield* failingWith(transport(coded("ECONNREFUSED")))).toEqual(
        transportError(false, "Transport ECONNREFUSED")
      )
    }))

  it.effect("an AggregateError where one address refused and another reset: it may have left", () =>
    Effect.gen(function*() {
      expect(
        yield* failingWith(transport(new AggregateError([coded("ECONNREFUSED"), coded("ECONNRESET")])))
      ).toEqual(transportError(true, "Transport"))
      expect(
        yield* failingWith(transport(new AggregateError([coded("ENETUNREACH"), coded("EHOSTUNREACH")])))
      ).toEqual(transportError(false, "Transport"))
    }))

  it.effect("an AggregateError without attempts is judged by its own code", () =>
    Effect.gen(function*() {
      expect(yield* failingWith(transport(Object.assign(new AggregateError([]), { code: "ENOTFOUND" })))).toEqual(
        transportError(false, "Transport ENOTFOUND")
      )
      expect(yield* failingWith(transport(new AggregateError([])))).toEqual(transportError(true, "Transport"))
    }))

  it.effect("a failure that is not of the transport (an invalid URL, an encoding error): it may have left", () =>
    Effect.gen(function*() {
      expect(
        yield* failingWith((request) =>
          new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: coded("ECONNREFUSED") })
        )
      ).toEqual(transportError(true, "InvalidUrl ECONNREFUSED"))
      expect(yield* failingWith((request) => new HttpClientError.RequestError({ request, reason: "Encode" })))
        .toEqual(transportError(true, "Encode"))
    }))

  it.effect("undici's connect timeout: the connect limit with a pair, a transport error with a total budget", () =>
    Effect.gen(function*() {
      expect(yield* failingWith(transport(coded("UND_ERR_CONNECT_TIMEOUT")), [2, 10])).toEqual({
        _tag: "A2ATimeoutError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        step: "send-message",
        limit: "connect",
        seconds: 2,
        messageMayHaveBeenSent: false
      })
      expect(yield* failingWith(transport(coded("UND_ERR_CONNECT_TIMEOUT")), 30)).toEqual(
        transportError(false, "Transport UND_ERR_CONNECT_TIMEOUT")
      )
    }))
})

describe("rules: trace propagation from the exchange's own span", () => {
  it.effect("the runtime request carries a traceparent of its a2a.http span; none with propagation off", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { spans, tracer } = yield* recordSpans
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }).pipe(Effect.withTracer(tracer))
      const post = spans.find((span) =>
        span.name === "POST" && span.attributes.get("a2a.client.step") === "send-message"
      )
      const [send] = yield* runtimeSends
      expect(send?.headers["traceparent"]).toBe(`00-${post?.traceId}-${post?.spanId}-01`)
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-2" }).pipe(
        Effect.locally(HttpClient.currentTracerPropagation, false)
      )
      const [, second] = yield* runtimeSends
      expect(second?.messageId).toBe("m-2")
      expect(second?.headers["traceparent"]).toBeUndefined()
    }).pipe(Effect.provide(simulated({ sessions: [session()] }))))
})
