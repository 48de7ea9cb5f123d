/**
 * Step 4 (SPEC §4): `POST {rpc_url}/api/a2a/v1/message:send` with the exact bytes of step 1, the whole
 * answer read under the phase limits, then validated.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { type A2AStep, InvalidA2AResponseError } from "../A2AError.js"
import * as A2AProgress from "../A2AProgress.js"
import * as A2AProtocol from "../A2AProtocol.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import { decodeSendAnswer } from "./answers.js"
import type { RequestBody } from "./buildRequestBody.js"
import { enterStep } from "./callContext.js"
import type { CallContext } from "./clientEnv.js"
import { exchange, type ExchangeError, type HttpAnswer, joinUrl, type ResponseTooLarge } from "./exchange.js"
import { checkRuntimeAnswer, messageError } from "./httpErrors.js"

/**
 * The runtime answered 401/403: step 5 (`refreshOnce`) catches it.
 *
 * @internal
 */
export class RuntimeRejected extends Data.TaggedError("RuntimeRejected")<{ readonly answer: HttpAnswer }> {}

/** @internal */
export const rejected = (answer: HttpAnswer): Effect.Effect<never, RuntimeRejected> =>
  Effect.fail(new RuntimeRejected({ answer }))

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
 * One exchange with the runtime; an answer over `maxResponseBytes` is an `InvalidA2AResponseError` with
 * rule `response-too-large`.
 *
 * @internal
 */
export const runtimeExchange = (
  call: CallContext,
  step: A2AStep,
  request: HttpClientRequest.HttpClientRequest,
  carriesMessage: boolean
): Effect.Effect<HttpAnswer, ExchangeError | InvalidA2AResponseError> =>
  exchange(call.client, call, step, request, {
    maxResponseBytes: call.maxResponseBytes,
    carriesMessage,
    peer: "runtime",
    tooLarge,
    scrub: call.backend.secrets.scrub
  })

/**
 * How a send's answer can fail.
 *
 * @internal
 */
export type SendAnswerError = ExchangeError | InvalidA2AResponseError | ReturnType<typeof messageError>

/**
 * The message's bytes to the runtime, its answer validated; a 401/403 is {@link RuntimeRejected}.
 *
 * @internal
 */
export const sendToRuntime = (
  call: CallContext,
  access: RuntimeAccessCache.CachedRuntimeAccess,
  body: RequestBody
): Effect.Effect<A2AProtocol.Message | A2AProtocol.Task, SendAnswerError | RuntimeRejected> => {
  const request = runtimeRequest(access, "POST", "/api/a2a/v1/message:send", body.bytes)
  const sending = { _tag: "MessageSending", agentSessionUid: call.agentSessionUid, messageId: body.messageId } as const
  return enterStep(call, "send-message").pipe(
    Effect.zipRight(A2AProgress.report(sending)),
    Effect.zipRight(runtimeExchange(call, "send-message", request, true)),
    Effect.flatMap((answer) =>
      checkRuntimeAnswer(
        answer,
        rejected,
        (answer) => messageError(answer, call.backend.secrets.scrub),
        (answer) => decodeSendAnswer(call, answer, call.backend.secrets.scrub, body.responseKind, body.taskId)
      )
    )
  )
}
