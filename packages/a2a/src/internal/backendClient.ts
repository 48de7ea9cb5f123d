/**
 * Requests to the Main Sequence backend with the user's bearer token (SPEC §3, §8): error mapping, and one
 * refresh of the access token on a 401 when a refresh token is configured. Nothing else is retried.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as A2AError from "../A2AError.js"
import {
  type A2AStep,
  BackendContractError,
  NotLoggedInError,
  PermissionDeniedError,
  RateLimitedError,
  ServerError,
  SessionNotFoundError
} from "../A2AError.js"
import { BearerToken } from "./bearerToken.js"
import { maxJsonDepth, parseBoundedJson } from "./boundedJson.js"
import { type Call, spanAttributes } from "./callContext.js"
import {
  describeBody,
  exchange,
  type ExchangeError,
  type HttpAnswer,
  joinUrl,
  jsonOf,
  maxDetailLength,
  platformText,
  type ResponseTooLarge,
  textOf
} from "./exchange.js"
import { isSuccessStatus } from "./httpErrors.js"
import type { A2AClientOptions } from "./options.js"
import { type KnownSecrets, makeKnownSecrets } from "./scrubSecrets.js"
import * as Telemetry from "./telemetry.js"

/**
 * The public backend errors, plus what one exchange can end in (a timeout of the call's budget among them).
 *
 * @internal
 */
export type BackendError = A2AError.BackendError | ExchangeError

/** @internal */
export interface BackendAnswer {
  readonly url: string
  readonly status: number
  readonly json: Readonly<Record<string, unknown>>
}

/** @internal */
export interface BackendClient {
  /** A JSON object answered with 2xx, or the mapped error. */
  readonly request: (
    call: Call,
    step: A2AStep,
    method: "GET" | "POST",
    path: string
  ) => Effect.Effect<BackendAnswer, BackendError>
  /** The secrets the client knows (the user's tokens, the runtime tokens it has held), for every text it shows. */
  readonly secrets: KnownSecrets
}

const pickString = (u: unknown, key: string): string | undefined =>
  Predicate.hasProperty(u, key) && Predicate.isString(u[key]) && u[key].trim() !== "" ? u[key] : undefined

/**
 * The message of a backend error: JSON `detail`, `error` (or `error.message`) or `message`, else the text;
 * `scrub`bed of secrets, one bounded line.
 *
 * @internal
 */
export const backendErrorDetail = (answer: HttpAnswer, scrub: (text: string) => string): string | undefined => {
  const detail = Option.match(jsonOf(answer), {
    onNone: () => undefined,
    onSome: (json) =>
      pickString(json, "detail") ?? pickString(json, "error") ??
        (Predicate.hasProperty(json, "error") ? pickString(json.error, "message") : undefined) ??
        pickString(json, "message")
  })
  return detail === undefined ? describeBody(answer, scrub) : platformText(detail, scrub, maxDetailLength)
}

// An HTTP date is 29 characters; a longer `Retry-After` is cut.
const maxRetryAfterLength = 64

/**
 * The error for a non-2xx backend answer, its detail `scrub`bed of secrets.
 *
 * @internal
 */
export const backendError = (answer: HttpAnswer, scrub: (text: string) => string): BackendError => {
  const fields = {
    method: answer.method,
    url: answer.url,
    status: answer.status,
    detail: backendErrorDetail(answer, scrub)
  }
  switch (answer.status) {
    case 401:
      return new NotLoggedInError(fields)
    case 403:
      return new PermissionDeniedError(fields)
    case 404:
      return new SessionNotFoundError(fields)
    case 429: {
      const retryAfter = answer.headers["retry-after"]
      return new RateLimitedError({
        ...fields,
        retryAfter: retryAfter === undefined ? undefined : platformText(retryAfter, scrub, maxRetryAfterLength)
      })
    }
  }
  if (answer.status >= 500) return new ServerError({ ...fields, origin: "backend" })
  return new BackendContractError({
    url: answer.url,
    status: answer.status,
    reason: `unexpected status ${answer.status}${fields.detail === undefined ? "" : `: ${fields.detail}`}`
  })
}

/** How the one refresh of the user's access token went. */
type Refresh = Data.TaggedEnum<{
  Refreshed: {}
  NoRefreshToken: {}
  Refused: { readonly reason: string }
}>
const { NoRefreshToken, Refreshed, Refused } = Data.taggedEnum<Refresh>()

// Why the refresh endpoint refused the refresh token, `scrub`bed: its status and detail.
const refusalText = (answer: HttpAnswer, scrub: (text: string) => string): string => {
  const detail = backendErrorDetail(answer, scrub)
  return `the backend refused the refresh token (${answer.status})${detail === undefined ? "" : `: ${detail}`}`
}

const RefreshAnswer = Schema.Struct({
  access: Schema.Redacted(BearerToken),
  refresh: Schema.optional(Schema.NullOr(Schema.Redacted(Schema.NonEmptyTrimmedString)))
})

/** An answer over `maxResponseBytes`, as the backend's: a `BackendContractError`. */
const tooLarge = (refused: ResponseTooLarge) =>
  new BackendContractError({ url: refused.url, status: refused.status, reason: refused.reason })

/** @internal */
export const make = (
  options: Omit<A2AClientOptions, "accessToken" | "refreshToken"> & {
    readonly accessToken: Redacted.Redacted<string>
    readonly refreshToken?: Redacted.Redacted<string> | undefined
  },
  client: HttpClient.HttpClient,
  maxResponseBytes: number
): Effect.Effect<BackendClient> =>
  Effect.gen(function*() {
    const backendExchange = (call: Call, step: A2AStep, request: HttpClientRequest.HttpClientRequest) =>
      exchange(client, call, step, request, { maxResponseBytes, peer: "backend", tooLarge, scrub: secrets.scrub })
    const secrets = makeKnownSecrets()
    secrets.add("user", options.accessToken)
    if (options.refreshToken !== undefined) secrets.add("user", options.refreshToken)
    const accessToken = yield* Ref.make(options.accessToken)
    const refreshToken = yield* Ref.make(Option.fromNullable(options.refreshToken))
    // Stryker disable next-line ConditionalExpression,StringLiteral: a non-string backendUrl fails every call first
    const url = (path: string) => joinUrl(typeof options.backendUrl === "string" ? options.backendUrl.trim() : "", path)

    const refreshLock = yield* Effect.makeSemaphore(1)

    const send = (call: Call, step: A2AStep, method: "GET" | "POST", path: string) =>
      Effect.flatMap(Ref.get(accessToken), (token) => {
        const base = method === "GET" ? HttpClientRequest.get(url(path)) : HttpClientRequest.post(url(path))
        const request = base.pipe(
          HttpClientRequest.bearerToken(token),
          HttpClientRequest.acceptJson,
          method === "POST" ? HttpClientRequest.bodyText("{}", "application/json") : (r) => r
        )
        return Effect.map(backendExchange(call, step, request), (answer) => ({ answer, token }))
      })

    // One refresh of the user's access token. Concurrent calls that were refused the same token share one
    // refresh: a rotated refresh token is single-use.
    const refreshAccess = (call: Call, step: A2AStep, refused: Redacted.Redacted<string>) =>
      Effect.gen(function*() {
        if ((yield* Ref.get(accessToken)) !== refused) return Refreshed()
        const refresh = yield* Ref.get(refreshToken)
        if (Option.isNone(refresh)) return NoRefreshToken()
        const request = HttpClientRequest.post(url("/auth/jwt-token/token/refresh/")).pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyText(JSON.stringify({ refresh: Redacted.value(refresh.value) }), "application/json")
        )
        const answer = yield* backendExchange(call, step, request)
        if (answer.status >= 500 || answer.status === 429) {
          return yield* Effect.fail(backendError(answer, secrets.scrub))
        }
        if (!isSuccessStatus(answer.status)) return Refused({ reason: refusalText(answer, secrets.scrub) })
        const decoded = Schema.decodeUnknownOption(RefreshAnswer)(jsonOf(answer).pipe(Option.getOrUndefined))
        if (Option.isNone(decoded)) {
          return Refused({ reason: `the answer (${answer.status}) holds no access token a request header can carry` })
        }
        secrets.add("user", decoded.value.access)
        yield* Ref.set(accessToken, decoded.value.access)
        const rotated = decoded.value.refresh
        if (rotated !== undefined && rotated !== null) {
          secrets.add("user", rotated)
          yield* Ref.set(refreshToken, Option.some(rotated))
        }
        yield* Telemetry.count(Telemetry.credentialRefreshes, { "a2a.client.peer": "backend" })
        return Refreshed()
      }).pipe(
        refreshLock.withPermits(1),
        Effect.withSpan("a2a.client.refresh_access_token", {
          captureStackTrace: false,
          attributes: spanAttributes(call)
        })
      )

    const retriedAfterRefresh = (call: Call, step: A2AStep, method: "GET" | "POST", path: string) =>
      Effect.gen(function*() {
        const first = yield* send(call, step, method, path)
        if (first.answer.status !== 401) return first.answer
        const answer = first.answer
        const refresh = yield* refreshAccess(call, step, first.token)
        switch (refresh._tag) {
          case "Refreshed":
            return (yield* send(call, step, method, path)).answer
          case "NoRefreshToken":
            return answer
          case "Refused":
            return yield* new NotLoggedInError({
              method: answer.method,
              url: answer.url,
              status: answer.status,
              detail: backendErrorDetail(answer, secrets.scrub),
              refreshFailure: refresh.reason
            })
        }
      })

    const request = (call: Call, step: A2AStep, method: "GET" | "POST", path: string) =>
      Effect.gen(function*() {
        const answer = yield* retriedAfterRefresh(call, step, method, path)
        if (!isSuccessStatus(answer.status)) return yield* Effect.fail(backendError(answer, secrets.scrub))
        const json = parseBoundedJson(textOf(answer))
        if (Either.isLeft(json) || !Predicate.isRecord(json.right)) {
          const what = describeBody(answer, secrets.scrub)
          return yield* new BackendContractError({
            url: answer.url,
            status: answer.status,
            reason: Either.isLeft(json) && json.left === "too-deep"
              ? `the answer nests arrays and objects deeper than ${maxJsonDepth} levels`
              : `the answer is not a JSON object${what === undefined ? "" : ` (${what})`}`
          })
        }
        const result: BackendAnswer = { url: answer.url, status: answer.status, json: json.right }
        return result
      })

    return { request, secrets }
  })
