/**
 * Step 4 (SPEC §4): `POST {rpc_url}/api/a2a/v1/message:send` with the exact bytes of step 1, the whole
 * answer read under the phase limits, then validated.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as Effect from "effect/Effect"
import { type A2AStep, InvalidA2AResponseError } from "../A2AError.js"
import * as A2AProtocol from "../A2AProtocol.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import { decodeSendAnswer } from "./answers.js"
import type { RequestBody } from "./buildRequestBody.js"
import { type CallContext, spanAttributes } from "./callContext.js"
import { exchange, type ExchangeError, type HttpAnswer, joinUrl, type ResponseTooLarge } from "./exchange.js"
import { checkRuntimeAnswer, messageError } from "./httpErrors.js"
import { traced } from "./spanned.js"

/**
 * A request to the runtime with the A2A v1 headers. `rpc_url` is opaque: its trailing `/` is trimmed and
 * the path appended, keeping any path it has.
 *
 * @internal
 */
export const runtimeRequest = (
  access: RuntimeAccessCache.CachedRuntimeAccess,
  method: "GET" | "POST",
  path: string,
  body: Uint8Array | undefined
): HttpClientRequest.HttpClientRequest => {
  const url = joinUrl(access.rpcUrl, path)
  const request = (method === "GET" ? HttpClientRequest.get(url) : HttpClientRequest.post(url)).pipe(
    HttpClientRequest.bearerToken(access.token),
    HttpClientRequest.setHeaders({
      "Accept": A2AProtocol.mediaType,
      "A2A-Extensions": A2AProtocol.responseKindExtensionUri,
      "A2A-Version": A2AProtocol.protocolVersion
    })
  )
  return body === undefined ? request : HttpClientRequest.bodyUint8Array(request, body, A2AProtocol.mediaType)
}

/** An answer over `maxResponseBytes`, as the runtime's: an `InvalidA2AResponseError`, rule `response-too-large`. */
const tooLarge = (refused: ResponseTooLarge) =>
  new InvalidA2AResponseError({
    url: refused.url,
    status: refused.status,
    rule: "response-too-large",
    reason: refused.reason
  })

/**
 * One exchange with the runtime, its answer handed to `then`; an answer over `maxResponseBytes` is an
 * `InvalidA2AResponseError` with rule `response-too-large`.
 *
 * @internal
 */
export const runtimeExchange = <A, E>(
  call: CallContext,
  step: A2AStep,
  request: HttpClientRequest.HttpClientRequest,
  carriesMessage: boolean,
  then: (answer: HttpAnswer) => Effect.Effect<A, E>
): Effect.Effect<A, E | ExchangeError | InvalidA2AResponseError> =>
  exchange(
    call.client,
    call,
    step,
    request,
    { maxResponseBytes: call.maxResponseBytes, carriesMessage, tooLarge },
    then
  )

/**
 * How a send's answer can fail (a rejection aside).
 *
 * @internal
 */
export type SendAnswerError = ExchangeError | InvalidA2AResponseError | ReturnType<typeof messageError>

/**
 * The message's bytes to the runtime; a 401/403 answer goes to `onRejected` (step 5's refresh).
 *
 * @internal
 */
export const sendToRuntime = <A, E>(
  call: CallContext,
  access: RuntimeAccessCache.CachedRuntimeAccess,
  body: RequestBody,
  attempt: number,
  onRejected: (answer: HttpAnswer) => Effect.Effect<A, E>
): Effect.Effect<A2AProtocol.Message | A2AProtocol.Task | A, SendAnswerError | E> =>
  traced("a2a.sendToRuntime", () => {
    // Stryker disable next-line StringLiteral: equivalent for "POST" only (compared with "GET"); the path's mutant is killed by rules.wire
    const request = runtimeRequest(access, "POST", "/api/a2a/v1/message:send", body.bytes)
    call.step = "send-message"
    return runtimeExchange(call, "send-message", request, true, (answer) =>
      checkRuntimeAnswer(
        answer,
        onRejected,
        (answer) => messageError(answer, call.backend.secrets.scrub),
        (answer) => decodeSendAnswer(call, answer, call.backend.secrets.scrub, body.responseKind, body.taskId)
      ))
  }, () => spanAttributes(call, attempt))
