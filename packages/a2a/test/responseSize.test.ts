import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as A2AClient from "../src/A2AClient.js"
import { client, failFor, fakeRuntime, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"

const tooLarge = { _tag: "InvalidA2AResponseError", rule: "response-too-large" } as const

const answerBytes = new TextEncoder().encode(JSON.stringify({
  message: { messageId: "a-1", role: "ROLE_AGENT", contextId: sessionUid, parts: [{ text: "x".repeat(1000) }] }
}))

/** The answer streamed in two pieces, without a Content-Length. */
const streamedAnswer = (options: { readonly maxResponseBytes: number }) =>
  fakeRuntime((request) =>
    Effect.succeed(HttpClientResponse.fromWeb(
      request,
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(answerBytes.subarray(0, 10))
            controller.enqueue(answerBytes.subarray(10))
            controller.close()
          }
        }),
        { status: 200, headers: { "content-type": "application/a2a+json" } }
      )
    )), options)

describe("maxResponseBytes", () => {
  it.effect("an answer whose Content-Length is over the limit is refused before its body is read", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // the resolve answer fits; the echo of 5000 characters, trickled over 9 s, does not
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "x".repeat(5000), timeout: 60 }),
        "1 minute"
      )
      expect(error).toMatchObject(tooLarge)
      expect(error.message).toContain("limit of 3000 bytes")
      expect(error.message).toContain("Content-Length")
      expect(millis).toBe(0)
      const [send] = yield* runtimeSends
      expect(send?.bodyOutcome).not.toBe("complete")
    }).pipe(Effect.provide(simulated({
      sessions: [session({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 10, gapMs: 1000 } } } })]
    }, { maxResponseBytes: 3000 }))))

  it.effect("a chunked body stops being read once it passes the limit (no Content-Length)", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      // ~10 kB in 10 pieces a second apart: the third piece passes 2500 bytes, 7 s before the body would end
      const { error, millis } = yield* failFor(
        a2a.sendA2AMessage(sessionUid, { message: "x".repeat(10_000), timeout: 60 }),
        "1 minute"
      )
      expect(error).toMatchObject(tooLarge)
      expect(error.message).toContain("its body passed the limit of 2500 bytes")
      expect(millis).toBe(2000)
      const [send] = yield* runtimeSends
      expect(send?.bodyOutcome).toBe("aborted")
    }).pipe(Effect.provide(simulated({
      sessions: [session({
        agent: { behaviour: { _tag: "Answer", trickle: { chunks: 10, gapMs: 1000, chunked: true } } }
      })]
    }, { maxResponseBytes: 2500 }))))

  it.effect("a body of exactly the limit is read; one byte more is refused", () =>
    Effect.gen(function*() {
      const exact = yield* Effect.flatMap(client, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" })).pipe(
        Effect.provide(streamedAnswer({ maxResponseBytes: answerBytes.length }))
      )
      expect(exact.parts).toEqual([{ text: "x".repeat(1000) }])
      const over = yield* Effect.flip(
        Effect.flatMap(client, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" })).pipe(
          Effect.provide(streamedAnswer({ maxResponseBytes: answerBytes.length - 1 }))
        )
      )
      expect(over).toMatchObject(tooLarge)
    }))

  it.effect("the default is 64 MiB: a declared 64 MiB + 1 is refused, nothing read", () =>
    Effect.gen(function*() {
      expect(A2AClient.defaultMaxResponseBytes).toBe(64 * 1024 * 1024)
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      expect(error).toMatchObject(tooLarge)
      expect(error.message).toContain(`limit of ${64 * 1024 * 1024} bytes`)
    }).pipe(Effect.provide(fakeRuntime((request) =>
      Effect.succeed(HttpClientResponse.fromWeb(
        request,
        new Response(new ReadableStream(), {
          status: 200,
          headers: { "content-type": "application/a2a+json", "content-length": String(64 * 1024 * 1024 + 1) }
        })
      ))
    ))))

  it.effect("a backend answer over the limit is a BackendContractError naming the limit, nothing sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      expect(error).toMatchObject({ _tag: "BackendContractError" })
      expect(error.message).toContain("limit of 1000 bytes")
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(simulated({
      sessions: [session({ backend: { extraResolveFields: { padding: "x".repeat(2000) } } })]
    }, { maxResponseBytes: 1000 }))))

  it.effect("an unusable limit fails every call with A2AInputError before any request", () =>
    Effect.gen(function*() {
      for (const maxResponseBytes of [0, -1, 1.5, Number.NaN]) {
        const error = yield* Effect.flip(
          Effect.flatMap(
            client,
            (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" })
          ).pipe(Effect.provide(simulated({ sessions: [session()] }, { maxResponseBytes })))
        )
        expect(error).toMatchObject({ _tag: "A2AInputError", field: "maxResponseBytes" })
      }
    }))

  it.effect("MAINSEQUENCE_MAX_RESPONSE_BYTES is read by A2AClient.config (optional)", () =>
    Effect.gen(function*() {
      const env = (extra: ReadonlyArray<readonly [string, string]>) =>
        ConfigProvider.fromMap(
          new Map([["MAINSEQUENCE_ENDPOINT", "https://backend.example"], ["MAINSEQUENCE_ACCESS_TOKEN", "t"], ...extra])
        )
      const set = yield* Effect.withConfigProvider(A2AClient.config, env([["MAINSEQUENCE_MAX_RESPONSE_BYTES", "1234"]]))
      expect(set.maxResponseBytes).toBe(1234)
      const unset = yield* Effect.withConfigProvider(A2AClient.config, env([]))
      expect(unset.maxResponseBytes).toBeUndefined()
    }))
})
