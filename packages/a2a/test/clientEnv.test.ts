// The client's options as a user gives them: unusable ones fail every call before any request, and the cache
// key scopes entries by backend URL (a trailing slash is the same backend), user (username, else the access
// token) and session.
import type * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as A2AClient from "../src/A2AClient.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import * as Timeout from "../src/Timeout.js"
import { platform, session, sessionUid } from "./fixtures.js"

const otherToken = Redacted.make("another-user-access-token")
const base = SimulatedPlatform.defaultBaseUrl

/** One simulated platform and one cache shared by the clients a test makes. */
const shared = <A, E>(
  effect: Effect.Effect<
    A,
    E,
    Scope.Scope | SimulatedPlatform.SimulatedPlatform | RuntimeAccessCache.RuntimeAccessCache | HttpClient.HttpClient
  >
) =>
  Effect.scoped(effect).pipe(
    Effect.provide(Timeout.layerInstantConnect),
    Effect.provide(Layer.merge(
      layerTest({ sessions: [session()], userAccessTokens: [SimulatedPlatform.defaultUserAccessToken, otherToken] }),
      RuntimeAccessCache.layerMemory
    ))
  )

/** Sends once through a client made with `options`; the platform's resolve count after it. */
const sendWith = (options: Partial<A2AClient.A2AClientOptions>) =>
  Effect.scoped(Effect.gen(function*() {
    const client = yield* A2AClient.make({
      backendUrl: base,
      accessToken: SimulatedPlatform.defaultUserAccessToken,
      ...options
    })
    yield* client.sendA2AMessage(sessionUid, { message: "hi" })
    const log = yield* Effect.flatMap(platform, (p) => p.requestLog)
    return log.filter((entry) => entry.route === "resolve-runtime-access").length
  }))

describe("client options: unusable ones fail every call, nothing sent", () => {
  const refused = (options: Partial<A2AClient.A2AClientOptions>) =>
    Effect.gen(function*() {
      const client = yield* A2AClient.make({
        backendUrl: base,
        accessToken: SimulatedPlatform.defaultUserAccessToken,
        ...options
      })
      const error = yield* Effect.flip(client.sendA2AMessage(sessionUid, { message: "hi" }))
      const log = yield* Effect.flatMap(platform, (p) => p.requestLog)
      expect(log).toEqual([])
      return { ...error }
    })

  it.effect("an option of the wrong JavaScript type: named, a token never quoted; no options at all: what is missing", () =>
    shared(Effect.gen(function*() {
      const wrong = (options: Record<string, unknown>) => refused(options as Partial<A2AClient.A2AClientOptions>)
      const token = "must be a string or a Redacted string"
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string, string]> = [
        [{ backendUrl: 10n }, "backendUrl", "must be a string (got 10n)"],
        [
          { backendUrl: undefined },
          "backendUrl",
          "is missing (options given never read MAINSEQUENCE_ENDPOINT; layerConfig() and makeA2AClient() without options do)"
        ],
        [{ accessToken: 5 }, "accessToken", token],
        [{ accessToken: Redacted.make(5) }, "accessToken", token],
        [
          { accessToken: undefined },
          "accessToken",
          "is missing (options given never read MAINSEQUENCE_ACCESS_TOKEN; layerConfig() and makeA2AClient() without options do)"
        ],
        [{ refreshToken: 7 }, "refreshToken", token],
        [{ refreshToken: Redacted.make(["s3cret-refresh"]) }, "refreshToken", token],
        [{ username: {} }, "username", "must be a string (got {})"],
        [{ username: 12 }, "username", "must be a string (got 12)"],
        // Before its type: a misspelt field leaves the right one missing.
        [
          { backendURL: base, backendUrl: undefined },
          "options",
          `has an unknown field "backendURL" (did you mean "backendUrl"?)`
        ],
        // The Node layer's options given to A2AClient.make, which would drop them.
        [
          { proxy: "none" },
          "options",
          `has an unknown field "proxy" (the fields are backendUrl, accessToken, refreshToken, username, maxResponseBytes)`
        ]
      ]
      for (const [options, field, reason] of cases) {
        expect([options, yield* wrong(options)]).toEqual([options, { _tag: "A2AInputError", field, reason }])
      }
      for (const none of [null, "https://api.main-sequence.app"]) {
        const client = yield* A2AClient.make(none as unknown as A2AClient.A2AClientOptions)
        const error = yield* Effect.flip(client.sendA2AMessage(sessionUid, { message: "hi" }))
        expect({ ...error }).toEqual({
          _tag: "A2AInputError",
          field: "backendUrl",
          reason:
            "is missing (options given never read MAINSEQUENCE_ENDPOINT; layerConfig() and makeA2AClient() without options do)"
        })
      }
    })))

  it.effect("a blank or unusable backend URL, a blank or unsendable access token, a bad maxResponseBytes", () =>
    shared(Effect.gen(function*() {
      for (const backendUrl of ["", "   "]) {
        expect(yield* refused({ backendUrl })).toEqual({
          _tag: "A2AInputError",
          field: "backendUrl",
          reason:
            "is missing (options given never read MAINSEQUENCE_ENDPOINT; layerConfig() and makeA2AClient() without options do)"
        })
      }
      for (const accessToken of ["", "  ", Redacted.make(" ")]) {
        expect(yield* refused({ accessToken })).toEqual({
          _tag: "A2AInputError",
          field: "accessToken",
          reason:
            "is missing (options given never read MAINSEQUENCE_ACCESS_TOKEN; layerConfig() and makeA2AClient() without options do)"
        })
      }
      for (const accessToken of ["user-token\n", "user token", Redacted.make("tök€n")]) {
        expect(yield* refused({ accessToken })).toEqual({
          _tag: "A2AInputError",
          field: "accessToken",
          reason: "must be visible ASCII characters without spaces or line breaks (it is sent as a Bearer credential)"
        })
      }
      const notHttp = "has the scheme file:; it must be an absolute http: or https: URL"
      const unusableUrls: ReadonlyArray<readonly [string, string]> = [
        ["api.main-sequence.app", "is not an absolute URL; it must be an absolute http: or https: URL"],
        ...["localhost:8080", "127.0.0.1:8/api", " localhost:8080 "].map((url) =>
          [
            url,
            "is a host and a port without a scheme; it must be an absolute http: or https: URL, such as http://host:port"
          ] as const
        ),
        ["mailto:ops@main-sequence.app", "has the scheme mailto:; it must be an absolute http: or https: URL"],
        ["urn:1x", "has the scheme urn:; it must be an absolute http: or https: URL"],
        ["file:///etc/passwd", notHttp],
        [
          `${base}/?tenant=1`,
          "has a query or a fragment; it must be the backend's base URL, such as https://api.main-sequence.app"
        ],
        [
          `${base}#top`,
          "has a query or a fragment; it must be the backend's base URL, such as https://api.main-sequence.app"
        ]
      ]
      for (const [backendUrl, reason] of unusableUrls) {
        expect(yield* refused({ backendUrl })).toEqual({ _tag: "A2AInputError", field: "backendUrl", reason })
      }
      expect(yield* refused({ maxResponseBytes: 0 })).toEqual({
        _tag: "A2AInputError",
        field: "maxResponseBytes",
        reason: "must be a positive integer number of bytes (got 0)"
      })
      // An untyped caller's value is quoted by its kind, where `String` would throw.
      expect(yield* refused({ maxResponseBytes: Object.create(null) as number })).toEqual({
        _tag: "A2AInputError",
        field: "maxResponseBytes",
        reason: "must be a positive integer number of bytes (got {})"
      })
    })))
})

describe("client options: the cache key", () => {
  it.effect("the same backend (with or without a trailing slash) and user share entries", () =>
    shared(Effect.gen(function*() {
      expect(yield* sendWith({ backendUrl: `${base}/` })).toBe(1)
      expect(yield* sendWith({ backendUrl: `  ${base}  ` })).toBe(1)
      expect(yield* sendWith({ backendUrl: `${base}//` })).toBe(1)
      // made to stall a backtracking pattern: a million slashes, then a segment; a path the platform does not serve
      const error = yield* Effect.flip(sendWith({ backendUrl: `${base}/${"/".repeat(1_000_000)}x/` }))
      expect(error._tag).toBe("SessionNotFoundError")
      expect(yield* sendWith({})).toBe(1)
    })))

  it.effect("another backend with the same user and session does not share the entry: it resolves on its own", () =>
    shared(Effect.gen(function*() {
      expect(yield* sendWith({})).toBe(1)
      // the simulated platform answers only its own host: the other backend's resolve fails, nothing is sent
      const error = yield* Effect.flip(sendWith({ backendUrl: "https://other-backend.sim.mainsequence.test" }))
      expect({ ...error }).toMatchObject({
        _tag: "A2ATransportError",
        step: "resolve-runtime-access",
        url: `https://other-backend.sim.mainsequence.test/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`,
        code: "ENOTFOUND",
        messageMayHaveBeenSent: false
      })
      const log = yield* Effect.flatMap(platform, (p) => p.requestLog)
      expect(log.filter((entry) => entry.route === "message-send")).toHaveLength(1)
    })))

  it.effect("a username scopes the entries: other users resolve for themselves; a blank one is no username", () =>
    shared(Effect.gen(function*() {
      expect(yield* sendWith({ username: "ada" })).toBe(1)
      expect(yield* sendWith({ username: " ada " })).toBe(1)
      expect(yield* sendWith({ username: "grace" })).toBe(2)
      // without a username the access token scopes the entries: not ada's, not grace's
      expect(yield* sendWith({})).toBe(3)
      expect(yield* sendWith({ username: "  " })).toBe(3)
      // the same username with another token is the same user
      expect(yield* sendWith({ username: "ada", accessToken: otherToken })).toBe(3)
    })))

  it.effect("without a username, each access token is its own scope", () =>
    shared(Effect.gen(function*() {
      expect(yield* sendWith({})).toBe(1)
      expect(yield* sendWith({ accessToken: otherToken })).toBe(2)
      expect(yield* sendWith({ accessToken: Redacted.value(otherToken) })).toBe(2)
      expect(yield* sendWith({})).toBe(2)
    })))
})
