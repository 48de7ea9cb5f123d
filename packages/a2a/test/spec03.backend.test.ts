// SPEC §3, the backend's runtime access: its answers and errors, the resolve request.
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import { SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as A2AClient from "../src/A2AClient.js"
import {
  type Answer,
  base,
  client,
  failFor,
  fakePlatform,
  jsonResponse,
  platform,
  readyAccessForTests,
  recordSpans,
  refreshUrl,
  resolves,
  resolveUrl,
  runFor,
  runtimeSends,
  sendUrl,
  session,
  sessionUid,
  simulated,
  simulatedWith
} from "./fixtures.js"

// SPEC §3: a backend error's message comes from JSON `detail`, `error` (or `error.message`) or `message`,
// in that order, a blank field skipped, else the text; the status decides the error, none is retried.

/** One send whose resolve is answered by hand with `answer` (every other request by the platform). */
const resolveAnswered = (answer: Answer, client: Parameters<typeof simulatedWith>[2] = {}) => {
  const { layer, overridden } = simulatedWith(
    { sessions: [session()] },
    (request: HttpClientRequest.HttpClientRequest) => request.url === resolveUrl ? answer : undefined,
    client
  )
  return Effect.gen(function*() {
    const a2a = yield* A2AClient.A2AClient
    const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
    expect(overridden).toEqual([`POST ${resolveUrl}`])
    // nothing reached the runtime (the platform saw no request at all)
    expect(yield* (yield* platform).requestLog).toEqual([])
    return { ...error }
  }).pipe(Effect.provide(layer))
}

const notFound = (detail: string | undefined) => ({
  _tag: "SessionNotFoundError",
  agentSessionUid: sessionUid,
  messageId: "m-1",
  method: "POST",
  url: resolveUrl,
  status: 404,
  ...(detail === undefined ? {} : { detail })
})

describe("rules: which field of a backend error becomes its message (SPEC §3)", () => {
  const cases: ReadonlyArray<readonly [string, Answer, string | undefined]> = [
    ["detail first", { status: 404, body: { detail: "D", error: "E", message: "M" } }, "D"],
    ["a blank detail is skipped for error", { status: 404, body: { detail: "  ", error: "E", message: "M" } }, "E"],
    ["a non-string detail is skipped", { status: 404, body: { detail: 5, error: "E" } }, "E"],
    ["error before message", { status: 404, body: { error: "E", message: "M" } }, "E"],
    ["error.message when error is an object", { status: 404, body: { error: { message: "EM" }, message: "M" } }, "EM"],
    ["a blank error.message is skipped", { status: 404, body: { error: { message: " " }, message: "M" } }, "M"],
    ["a blank error is skipped", { status: 404, body: { error: "", message: "M" } }, "M"],
    ["message last", { status: 404, body: { message: "M" } }, "M"],
    ["none of them: the JSON text", { status: 404, body: { code: "gone" } }, "{\"code\":\"gone\"}"],
    ["a blank message: the JSON text", { status: 404, body: { message: " " } }, "{\"message\":\" \"}"],
    ["not JSON: the text, squashed", { status: 404, text: "  Session\n  gone  " }, "Session gone"],
    [
      "an HTML page: its title",
      { status: 404, text: "<html><title>Not here</title></html>" },
      "an HTML page \"Not here\""
    ],
    ["an empty body: no detail", { status: 404, text: "" }, undefined]
  ]
  for (const [what, answer, detail] of cases) {
    it.effect(what, () =>
      Effect.gen(function*() {
        expect(yield* resolveAnswered(answer)).toEqual(notFound(detail))
      }))
  }

  it.effect("a JSON detail is one line without control characters or escape sequences, cut at 1,000 characters", () =>
    Effect.gen(function*() {
      const detail = `Session\r\n  gone\u0007\u001b[2J\u001b]52;c;aGk=\u0007 ${"x".repeat(1200)}`
      const error = yield* resolveAnswered({ status: 404, body: { detail } })
      expect(error).toEqual(notFound(`${`Session gone ${"x".repeat(1200)}`.slice(0, 1000)}…`))
      expect(yield* resolveAnswered({ status: 404, body: { detail: "y".repeat(1000) } })).toEqual(
        notFound("y".repeat(1000))
      )
      // Only the start is made one line: what follows a long run of spaces is cut, not read.
      const spaced = yield* resolveAnswered({ status: 404, body: { detail: `  Gone${" ".repeat(5000)}and more  ` } })
      expect(spaced).toEqual(notFound("Gone…"))
    }))

  it.effect("a long text is cut at 200 characters", () =>
    Effect.gen(function*() {
      const error = yield* resolveAnswered({ status: 404, text: "x".repeat(250) })
      expect(error).toEqual(notFound(`${"x".repeat(200)}…`))
      expect(yield* resolveAnswered({ status: 404, text: "y".repeat(200) })).toEqual(notFound("y".repeat(200)))
    }))
})

describe("rules: the status of a backend error decides the error (SPEC §3)", () => {
  const fields = (status: number) => ({
    agentSessionUid: sessionUid,
    messageId: "m-1",
    method: "POST",
    url: resolveUrl,
    status,
    detail: "why"
  })

  it.effect("401 → NotLoggedInError (no refresh token), 403 → PermissionDeniedError", () =>
    Effect.gen(function*() {
      expect(yield* resolveAnswered({ status: 401, body: { detail: "why" } })).toEqual({
        _tag: "NotLoggedInError",
        ...fields(401)
      })
      expect(yield* resolveAnswered({ status: 403, body: { detail: "why" } })).toEqual({
        _tag: "PermissionDeniedError",
        ...fields(403)
      })
    }))

  it.effect("429 → RateLimitedError keeping Retry-After", () =>
    Effect.gen(function*() {
      expect(yield* resolveAnswered({ status: 429, body: { detail: "why" }, headers: { "retry-after": "30" } }))
        .toEqual({ _tag: "RateLimitedError", ...fields(429), retryAfter: "30" })
      expect(yield* resolveAnswered({ status: 429, body: { detail: "why" } }))
        .toEqual({ _tag: "RateLimitedError", ...fields(429) })
    }))

  it.effect("500 and 503 → ServerError from the backend", () =>
    Effect.gen(function*() {
      for (const status of [500, 503]) {
        expect(yield* resolveAnswered({ status, body: { detail: "why" } })).toEqual({
          _tag: "ServerError",
          ...fields(status),
          origin: "backend"
        })
      }
    }))

  it.effect("another status → BackendContractError \"unexpected status\", with the detail when there is one", () =>
    Effect.gen(function*() {
      const contract = (status: number, reason: string) => ({
        _tag: "BackendContractError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        url: resolveUrl,
        status,
        reason
      })
      expect(yield* resolveAnswered({ status: 418, body: { detail: "why" } })).toEqual(
        contract(418, "unexpected status 418: why")
      )
      expect(yield* resolveAnswered({ status: 302, text: "" })).toEqual(contract(302, "unexpected status 302"))
      expect(yield* resolveAnswered({ status: 499, body: { detail: "why" } })).toEqual(
        contract(499, "unexpected status 499: why")
      )
    }))

  it.effect("a 2xx answer that is not a JSON object → BackendContractError saying what came", () =>
    Effect.gen(function*() {
      const contract = (status: number, reason: string) => ({
        _tag: "BackendContractError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        url: resolveUrl,
        status,
        reason
      })
      expect(yield* resolveAnswered({ status: 200, body: [1, 2] })).toEqual(
        contract(200, "the answer is not a JSON object ([1,2])")
      )
      expect(yield* resolveAnswered({ status: 200, text: "ok" })).toEqual(
        contract(200, "the answer is not a JSON object (ok)")
      )
      expect(yield* resolveAnswered({ status: 201, text: "" })).toEqual(
        contract(201, "the answer is not a JSON object")
      )
      expect(yield* resolveAnswered({ status: 200, body: "text" })).toEqual(
        contract(200, "the answer is not a JSON object (\"text\")")
      )
    }))
})

describe("rules: a resolve answer of another shape (SPEC §3)", () => {
  it.effect("a deciding field of the wrong type → BackendContractError naming where", () =>
    Effect.gen(function*() {
      expect(
        yield* resolveAnswered({
          status: 200,
          body: { mode: "token", runtime_interaction: { state: "ready", can_submit: "yes" } }
        })
      ).toEqual({
        _tag: "BackendContractError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        url: resolveUrl,
        status: 200,
        reason: "the runtime-access answer has an unexpected shape at runtime_interaction.can_submit"
      })
    }))
})

describe("rules: can_submit false with a transient state but no numeric retry_after_ms is terminal (SPEC §3)", () => {
  it.effect("a string, boolean or object retry_after_ms → AgentRuntimeUnavailableError, resolved once, nothing sent", () =>
    Effect.gen(function*() {
      for (const retry of ["1500", true, { ms: 1500 }, null]) {
        const error = yield* resolveAnswered({
          status: 200,
          body: { runtime_interaction: { state: "waking", can_submit: false, retry_after_ms: retry } }
        })
        expect(error).toMatchObject({ _tag: "AgentRuntimeUnavailableError", state: "waking" })
      }
    }))

  it.effect("the answer's texts are kept to 1,000 characters: 1,000 whole, 1,001 cut with an ellipsis", () =>
    Effect.gen(function*() {
      const details: Array<unknown> = []
      for (const length of [1000, 1001]) {
        const error = yield* resolveAnswered({
          status: 200,
          body: {
            detail: "d".repeat(length),
            runtime_interaction: { state: "unavailable", can_submit: false, notice: { message: "n".repeat(length) } }
          }
        })
        const { detail, notice } = error as { detail?: unknown; notice?: { message?: unknown } }
        details.push([detail, notice?.message])
      }
      expect(details).toEqual([
        ["d".repeat(1000), "n".repeat(1000)],
        [`${"d".repeat(1000)}…`, `${"n".repeat(1000)}…`]
      ])
    }))

  it.effect("a \"__proto__\" member cannot lend the answer fields it lacks → BackendContractError, never a defect", () =>
    Effect.gen(function*() {
      const error = yield* resolveAnswered({
        status: 200,
        text: `{"__proto__":{"mode":"token","rpc_url":"${base}/runtimes/x/","token":"inherited-token-1"},` +
          `"runtime_interaction":{"state":"ready","can_submit":true}}`
      })
      expect(error).toMatchObject({
        _tag: "BackendContractError",
        reason: "can_submit is true but the answer lacks mode \"token\", a non-blank rpc_url or a token"
      })
    }))
})

describe("rules: an admitted runtime token must be one an HTTP header can carry (SPEC §3)", () => {
  it.effect("a token with a line break, a space or a non-ASCII character → BackendContractError, nothing sent", () =>
    Effect.gen(function*() {
      for (const token of ["tok\nen", "tok\r\nX-Evil: 1", "tok en", "tök€n"]) {
        const error = yield* resolveAnswered({
          status: 200,
          body: {
            mode: "token",
            rpc_url: `${base}/runtimes/x/`,
            token,
            runtime_interaction: { state: "ready", can_submit: true }
          }
        })
        expect(error).toEqual({
          _tag: "BackendContractError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          url: resolveUrl,
          status: 200,
          reason:
            "the token must be visible ASCII characters without spaces or line breaks (it is sent as a Bearer credential)"
        })
      }
    }))
})

describe("rules: the resolve request on the wire (SPEC §3)", () => {
  it.effect("POST with the user's bearer token, JSON content type and accept, body {}", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" })
      const [resolve, ...more] = yield* resolves
      expect(more).toEqual([])
      expect({
        method: resolve?.method,
        url: resolve?.url,
        bodyText: resolve?.bodyText,
        contentType: resolve?.headers["content-type"],
        accept: resolve?.headers["accept"],
        tokenLabel: resolve?.tokenLabel
      }).toEqual({
        method: "POST",
        url: resolveUrl,
        bodyText: "{}",
        contentType: "application/json",
        accept: "application/json",
        tokenLabel: "user-token#1"
      })
    }).pipe(Effect.provide(simulatedWith({ sessions: [session()] }, () => undefined).layer)))
})

describe("rules: one refresh of the user's token on a backend 401 (SPEC §8)", () => {
  const refusedRefreshes: ReadonlyArray<readonly [string, Answer, string]> = [
    [
      "its own 401",
      { status: 401, body: { detail: "refresh refused" } },
      "the backend refused the refresh token (401): refresh refused"
    ],
    ["its own 401 with an empty body", { status: 401, text: "" }, "the backend refused the refresh token (401)"],
    [
      "a 400 echoing the refresh token",
      { status: 400, body: { detail: "refresh-1 is expired" } },
      "the backend refused the refresh token (400): <redacted> is expired"
    ],
    // not 2xx, whatever it holds
    [
      "a 300 with an access token",
      { status: 300, body: { access: "user-2" } },
      "the backend refused the refresh token (300): {\"access\":\"<redacted>\"}"
    ],
    ...["  ", "new\ntoken", " new-token"].map((access) =>
      [
        `an access token a header cannot carry ${JSON.stringify(access)}`,
        { status: 200, body: { access } },
        "the answer (200) holds no access token a request header can carry"
      ] as const
    )
  ]
  const refusedRefreshLayer = (refreshAnswer: Answer) =>
    simulatedWith(
      { sessions: [session()] },
      (request) =>
        request.url === resolveUrl
          ? { status: 401, body: { detail: "expired" } }
          : request.url === refreshUrl
          ? refreshAnswer
          : undefined,
      { refreshToken: Redacted.make("refresh-1") }
    )
  for (const [what, refreshAnswer, refreshFailure] of refusedRefreshes) {
    it.effect(`a refused refresh (${what}) ends NotLoggedInError of the first answer, saying why; asked once`, () => {
      const { layer, overridden } = refusedRefreshLayer(refreshAnswer)
      return Effect.gen(function*() {
        const a2a = yield* A2AClient.A2AClient
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
        expect({ ...error }).toEqual({
          _tag: "NotLoggedInError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          method: "POST",
          url: resolveUrl,
          status: 401,
          detail: "expired",
          refreshFailure
        })
        expect(error.message).toContain(`(401): expired; the token refresh failed: ${refreshFailure}`)
        expect(overridden).toEqual([`POST ${resolveUrl}`, `POST ${refreshUrl}`])
      }).pipe(Effect.provide(layer))
    })
  }

  it.effect("a refresh the backend failed (5xx, 429) ends in that failure, naming the refresh request", () =>
    Effect.gen(function*() {
      const failures: Array<unknown> = []
      for (const status of [500, 503, 429]) {
        const { layer } = refusedRefreshLayer({ status, body: { detail: "down" } })
        const error = yield* Effect.flip(
          Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" })).pipe(
            Effect.provide(layer)
          )
        )
        failures.push([
          error._tag,
          "url" in error ? error.url : undefined,
          "status" in error ? error.status : undefined
        ])
      }
      expect(failures).toEqual([
        ["ServerError", refreshUrl, 500],
        ["ServerError", refreshUrl, 503],
        ["RateLimitedError", refreshUrl, 429]
      ])
    }))

  it.effect("the refresh request: POST {\"refresh\": …} as JSON; the new token is used for the retry", () => {
    const seen: Array<{ url: string; body: string; type: string | undefined; auth: string | undefined }> = []
    let resolvesSeen = 0
    const { layer } = simulatedWith(
      { sessions: [session()] },
      (request) => {
        if (request.url === refreshUrl) {
          const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
          seen.push({
            url: request.url,
            body,
            type: request.headers["content-type"],
            auth: request.headers["authorization"]
          })
          return { status: 200, body: { access: "user-2", refresh: "refresh-2" } }
        }
        if (request.url === resolveUrl && resolvesSeen++ === 0) return { status: 401, body: { detail: "expired" } }
        if (request.url === resolveUrl) {
          seen.push({ url: request.url, body: "", type: undefined, auth: request.headers["authorization"] })
          return { status: 403, body: { detail: "not yours" } }
        }
        return undefined
      },
      { refreshToken: Redacted.make("refresh-1") }
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
      expect(error._tag).toBe("PermissionDeniedError")
      expect(seen).toEqual([
        { url: refreshUrl, body: "{\"refresh\":\"refresh-1\"}", type: "application/json", auth: undefined },
        { url: resolveUrl, body: "", type: undefined, auth: "Bearer user-2" }
      ])
    }).pipe(Effect.provide(layer))
  })

  it.effect("only a 401 is refreshed: a 403 is PermissionDeniedError at once", () => {
    const { layer, overridden } = simulatedWith(
      { sessions: [session()] },
      (request) => request.url === resolveUrl ? { status: 403, body: { detail: "no" } } : undefined,
      { refreshToken: Redacted.make("refresh-1") }
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" }))
      expect(error._tag).toBe("PermissionDeniedError")
      expect(overridden).toEqual([`POST ${resolveUrl}`])
      // no refresh request reached the platform either
      expect(yield* (yield* platform).requestLog).toEqual([])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a rotated refresh token is used for the next refresh; a null one keeps the last", () => {
    const seen: Array<string> = []
    const refreshes = [{ access: "user-2", refresh: "refresh-2" }, { access: "user-3", refresh: null }, {
      access: "user-4"
    }]
    // each call's first resolve is refused (401), the one after its refresh finds no session (404)
    let refuseNext = false
    const { layer } = simulatedWith(
      { sessions: [session()] },
      (request) => {
        if (request.url === refreshUrl) {
          const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
          seen.push(`refresh ${body}`)
          return { status: 200, body: refreshes.shift() }
        }
        if (request.url !== resolveUrl) return undefined
        seen.push(`resolve ${request.headers["authorization"]}`)
        const refuse = refuseNext
        refuseNext = false
        return refuse ? { status: 401, body: { detail: "expired" } } : { status: 404, body: { detail: "gone" } }
      },
      { refreshToken: Redacted.make("refresh-1") }
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      for (let i = 0; i < 3; i++) {
        refuseNext = true
        const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: `m-${i}` }))
        expect(error._tag).toBe("SessionNotFoundError")
      }
      expect(seen).toEqual([
        `resolve Bearer ${Redacted.value(SimulatedPlatform.defaultUserAccessToken)}`,
        "refresh {\"refresh\":\"refresh-1\"}",
        "resolve Bearer user-2",
        "resolve Bearer user-2",
        "refresh {\"refresh\":\"refresh-2\"}",
        "resolve Bearer user-3",
        "resolve Bearer user-3",
        "refresh {\"refresh\":\"refresh-2\"}",
        "resolve Bearer user-4"
      ])
    }).pipe(Effect.provide(layer))
  })

  it.effect("the refresh runs in span a2a.refreshAccessToken with the call's ids", () => {
    const { layer } = simulatedWith(
      { sessions: [session()] },
      (request) =>
        request.url === resolveUrl
          ? { status: 401, body: { detail: "expired" } }
          : request.url === refreshUrl
          ? { status: 401, body: { detail: "no" } }
          : undefined,
      { refreshToken: Redacted.make("refresh-1") }
    )
    return Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const { spans, tracer } = yield* recordSpans
      yield* Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" })).pipe(
        Effect.withTracer(tracer)
      )
      const refresh = spans.filter((span) => span.name === "a2a.client.refresh_access_token")
      expect(refresh.map((span) => Object.fromEntries(span.attributes))).toEqual([
        { "gen_ai.conversation.id": sessionUid, "a2a.message.id": "m-1" }
      ])
    }).pipe(Effect.provide(layer))
  })
})

describe("rules: the backend URL (SPEC §3)", () => {
  it.effect("a padded backend URL with a trailing slash is trimmed before the path is joined", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1" })
      expect((yield* resolves).map((entry) => entry.url)).toEqual([resolveUrl])
    }).pipe(
      Effect.provide(simulatedWith({ sessions: [session()] }, () => undefined, { backendUrl: ` ${base}/ ` }).layer)
    ))

  it.effect("a 300 answer is not a success: BackendContractError \"unexpected status 300\"", () =>
    Effect.gen(function*() {
      expect(yield* resolveAnswered({ status: 300, body: { detail: "moved" } })).toEqual({
        _tag: "BackendContractError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        url: resolveUrl,
        status: 300,
        reason: "unexpected status 300: moved"
      })
    }))
})

describe("rules: a backend answer nested deeper than 512 levels is a BackendContractError, never a defect", () => {
  const contract = (reason: string) => ({
    _tag: "BackendContractError",
    agentSessionUid: sessionUid,
    messageId: "m-1",
    url: resolveUrl,
    status: 200,
    reason
  })
  const tooDeep = contract("the answer nests arrays and objects deeper than 512 levels")
  /** A ready resolve answer whose `runtime_paths` nests `levels` arrays (it starts at depth 2). */
  const readyWithPaths = (levels: number) =>
    `{"mode":"token","rpc_url":"${base}/runtimes/x/","token":"t","runtime_paths":${"[".repeat(levels)}${
      "]".repeat(levels)
    }}`

  it.effect("a resolve answer 5,000 levels deep → BackendContractError saying how deep, nothing sent", () =>
    Effect.gen(function*() {
      expect(yield* resolveAnswered({ status: 200, text: `{"token":${"[".repeat(5000)}${"]".repeat(5000)}}` }))
        .toEqual(tooDeep)
      expect(yield* resolveAnswered({ status: 200, text: readyWithPaths(512) })).toEqual(tooDeep)
    }))

  it.effect("512 levels are an answer: the resolve answer is decided on (here its rpc_url is refused)", () =>
    Effect.gen(function*() {
      expect(yield* resolveAnswered({ status: 200, text: readyWithPaths(511).replace(base, "ftp://x") })).toEqual(
        contract("rpc_url has the scheme ftp:; it must be an absolute http: or https: URL")
      )
    }))

  it.effect("an error answer 5,000 levels deep is still the status's error, its body excerpted", () =>
    Effect.gen(function*() {
      const error = yield* resolveAnswered({ status: 404, text: "[".repeat(5000) + "]".repeat(5000) })
      expect(error).toEqual(notFound(`${"[".repeat(200)}…`))
    }))
})

describe("rules: rpc_url must be an absolute http: or https: URL without a query, used as given (SPEC §3)", () => {
  const ready = (rpcUrl: string) => ({
    status: 200,
    body: { mode: "token", rpc_url: rpcUrl, token: "runtime-token", expires_at: null }
  })
  const refused = (reason: string) => ({
    _tag: "BackendContractError",
    agentSessionUid: sessionUid,
    messageId: "m-1",
    url: resolveUrl,
    status: 200,
    reason: `rpc_url ${reason}`
  })
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["file:///etc/passwd", "file:"],
    ["data:text/plain,hi", "data:"],
    ["ftp://runtime.example/rt/", "ftp:"],
    ["javascript:alert(1)", "javascript:"],
    [`blob:${base}/runtimes/x/`, "blob:"]
  ]
  for (const [rpcUrl, scheme] of cases) {
    it.effect(`${scheme} → BackendContractError naming rpc_url and the scheme; nothing sent`, () =>
      Effect.gen(function*() {
        expect(yield* resolveAnswered(ready(rpcUrl))).toEqual(
          refused(`has the scheme ${scheme}; it must be an absolute http: or https: URL`)
        )
      }))
  }
  for (const rpcUrl of ["https://runtime.example/rt/x/?sig=abc", "https://runtime.example/rt/x#frag"]) {
    it.effect(`an rpc_url with a query or a fragment (${rpcUrl}) → BackendContractError; nothing sent`, () =>
      Effect.gen(function*() {
        expect(yield* resolveAnswered(ready(rpcUrl))).toEqual(
          refused("has a query or a fragment; it must be the runtime's base URL, which the A2A paths are appended to")
        )
      }))
  }
  for (const rpcUrl of ["/runtimes/x/", "runtimes/x/", "//runtime.example/rt/"]) {
    it.effect(`a relative rpc_url (${rpcUrl}) → BackendContractError; nothing sent`, () =>
      Effect.gen(function*() {
        expect(yield* resolveAnswered(ready(rpcUrl))).toEqual(
          refused("is not an absolute URL; it must be an absolute http: or https: URL")
        )
      }))
  }
})

describe("diagnostic fields never decide (SPEC §3)", () => {
  for (const odd of ["string", "array", "mistyped"] as const) {
    it.effect(`an admitted answer with a ${odd} presence, notice and operation still sends`, () =>
      Effect.gen(function*() {
        const a2a = yield* client
        const answer = yield* a2a.sendA2AMessage(sessionUid, { message: "hi" })
        expect(answer).toMatchObject({ role: "ROLE_AGENT", parts: [{ text: "You said: hi" }] })
        expect(yield* runtimeSends).toHaveLength(1)
      }).pipe(Effect.provide(simulated({ sessions: [session({ backend: { oddDiagnostics: odd } })] }))))

    it.effect(`a transient answer with a ${odd} presence still waits, then sends`, () =>
      Effect.gen(function*() {
        const a2a = yield* client
        const { error, millis } = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "10 seconds")
        expect(error).toBeUndefined()
        expect(millis).toBe(3000)
        expect(yield* resolves).toHaveLength(4)
        expect(yield* runtimeSends).toHaveLength(1)
      }).pipe(Effect.provide(simulated({
        sessions: [session({
          access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 3000 }] },
          backend: { oddDiagnostics: odd }
        })]
      }))))
  }

  it.effect("a terminal answer with mistyped diagnostics fails as unavailable, keeping what has the expected shape", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "1 second")
      expect(error._tag).toBe("AgentRuntimeUnavailableError")
      if (error._tag !== "AgentRuntimeUnavailableError") return
      expect(error.state).toBe("update_required")
      expect(error.notice).toEqual({ message: "Maintenance tonight." })
      expect(error.detail).toBeUndefined()
      expect(error.presenceDetail).toBeUndefined()
      expect(error.message).toContain("(state update_required): Maintenance tonight.")
      expect(yield* runtimeSends).toHaveLength(0)
    }).pipe(Effect.provide(simulated({
      sessions: [
        session({ access: { _tag: "Terminal", state: "update_required" }, backend: { oddDiagnostics: "mistyped" } })
      ]
    }))))

  it.effect("a deciding field that breaks the contract is still a contract error and nothing is sent", () =>
    Effect.gen(function*() {
      const a2a = yield* client
      const { error } = yield* failFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "1 second")
      expect(error).toMatchObject({ _tag: "BackendContractError" })
      expect(yield* runtimeSends).toHaveLength(0)
    }).pipe(Effect.provide(simulated({
      sessions: [
        session({
          backend: { extraResolveFields: {}, oddDiagnostics: "string" },
          access: { _tag: "ContractBreaking", violation: "mode_not_token" }
        })
      ]
    }))))
})

// SPEC §3: can_submit decides alone; transient states are checking | starting | waking | updating; the presence
// is diagnostic only. The backend's answers are written by hand, one per resolve, the last one repeated.
const answeredInTurn = (answers: ReadonlyArray<Record<string, unknown>>) => {
  const resolveAt: Array<number> = []
  const agentAnswer = { messageId: "a-1", role: "ROLE_AGENT", contextId: sessionUid, parts: [{ text: "hello" }] }
  const layer = fakePlatform((request) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      if (request.url === sendUrl) return jsonResponse(request, 200, { message: agentAnswer })
      resolveAt.push(now)
      return jsonResponse(request, 200, {
        ...readyAccessForTests,
        ...answers[Math.min(resolveAt.length, answers.length) - 1]
      })
    })
  )
  return { layer, resolveAt }
}

const interaction = (state: string, canSubmit: boolean, retryAfterMs: number | null) => ({
  runtime_interaction: { state, can_submit: canSubmit, notice: null, operation: null, retry_after_ms: retryAfterMs }
})

describe("rules: can_submit is the only admission (SPEC §3)", () => {
  for (const state of ["checking", "starting", "waking", "updating"]) {
    it.effect(`${state} with can_submit false and a numeric retry_after_ms is transient: it waits, resolves again, sends`, () => {
      const { layer, resolveAt } = answeredInTurn([
        { mode: "unavailable", rpc_url: null, token: null, ...interaction(state, false, 1500) },
        interaction("ready", true, null)
      ])
      return Effect.gen(function*() {
        const a2a = yield* A2AClient.A2AClient
        const { millis, value } = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "10 seconds")
        expect(value?.parts).toEqual([{ text: "hello" }])
        expect(resolveAt).toEqual([0, 1500])
        expect(millis).toBe(1500)
      }).pipe(Effect.provide(layer))
    })

    it.effect(`${state} with can_submit true is admitted at once, its retry_after_ms ignored`, () => {
      const { layer, resolveAt } = answeredInTurn([interaction(state, true, 1500)])
      return Effect.gen(function*() {
        const a2a = yield* A2AClient.A2AClient
        const { millis, value } = yield* runFor(a2a.sendA2AMessage(sessionUid, { message: "hi" }), "10 seconds")
        expect(value?.parts).toEqual([{ text: "hello" }])
        expect(resolveAt).toEqual([0])
        expect(millis).toBe(0)
      }).pipe(Effect.provide(layer))
    })
  }

  it.effect("the presence never decides: not_deployed with can_submit true sends; serving with a terminal state fails", () => {
    const presence = (phase: string) => ({ phase, replicas: { desired: 1, actual: 1 }, detail: `${phase}.` })
    const admitted = answeredInTurn([{
      ...interaction("ready", true, null),
      runtime_presence: presence("not_deployed")
    }])
    const refused = answeredInTurn([{
      mode: "unavailable",
      rpc_url: null,
      token: null,
      ...interaction("update_required", false, null),
      runtime_presence: presence("serving")
    }])
    return Effect.gen(function*() {
      const send = Effect.flatMap(A2AClient.A2AClient, (a2a) => a2a.sendA2AMessage(sessionUid, { message: "hi" }))
      const answer = yield* Effect.provide(send, admitted.layer)
      expect(answer.parts).toEqual([{ text: "hello" }])
      const error = yield* Effect.flip(Effect.provide(send, refused.layer))
      expect(error).toMatchObject({ _tag: "AgentRuntimeUnavailableError", state: "update_required" })
      expect([admitted.resolveAt, refused.resolveAt]).toEqual([[0], [0]])
    })
  })
})
