/**
 * Step 2 (SPEC §3): one `POST {backend}/api/v1/agent-sessions/{uid}/resolve-runtime-access/`, decoded into
 * an admission decision. The cache lookup lives in `obtainAccess`, the shared wait in `sessionResolution`.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { BackendContractError } from "../A2AError.js"
import * as RuntimeAccess from "../RuntimeAccess.js"
import { schemaPath } from "./answers.js"
import { enterStep, spanAttributes } from "./callContext.js"
import type { CallContext } from "./clientEnv.js"
import { cutText, maxDetailLength } from "./exchange.js"
import { scrubTexts } from "./scrubSecrets.js"
import * as Telemetry from "./telemetry.js"

const decodeAnswer = Schema.decodeUnknown(RuntimeAccess.ResolveRuntimeAccessAnswer)

/** A text of the platform's for display: scrubbed of secrets and at most `maxDetailLength` characters. */
const shownWith = (scrub: (text: string) => string) => (text: string): string => cutText(scrub(text), maxDetailLength)

/**
 * The decision's texts from the platform (state, notice, detail, presence, expiry, service uid) `scrub`bed of
 * secrets and cut; the `rpcUrl` is used as given.
 */
const scrubDecision = (
  decision: RuntimeAccess.Decision,
  scrub: (text: string) => string
): RuntimeAccess.Decision => {
  const optional = (text: string | undefined) => text === undefined ? undefined : scrub(text)
  // A notice and a presence are shown, never decided on: every text in them, keys too, scrubbed and read again.
  const notice = RuntimeAccess.noticeOf(scrubTexts(decision.notice, scrub))
  const presence = (value: RuntimeAccess.RuntimePresence | undefined) =>
    RuntimeAccess.presenceOf(scrubTexts(value, scrub))
  const state = scrub(decision.state)
  switch (decision._tag) {
    case "Admitted":
      return {
        ...decision,
        state,
        notice,
        expiresAt: optional(decision.expiresAt),
        serviceUid: optional(decision.serviceUid)
      }
    case "Transient":
      return { ...decision, state, notice, presence: presence(decision.presence) }
    case "Terminal":
      return {
        ...decision,
        state,
        notice,
        detail: optional(decision.detail),
        presence: presence(decision.presence)
      }
  }
}

/** @internal */
export const resolveRuntimeAccess = (call: CallContext, attempt: number) =>
  Effect.gen(function*() {
    yield* enterStep(call, "resolve-runtime-access")
    const answer = yield* call.backend.request(
      call,
      "resolve-runtime-access",
      "POST",
      `/api/v1/agent-sessions/${call.agentSessionUid}/resolve-runtime-access/`
    )
    const { secrets } = call.backend
    const contractError = (reason: string) =>
      new BackendContractError({
        url: answer.url,
        status: answer.status,
        reason: secrets.scrub(reason)
      })
    const decoded = yield* decodeAnswer(answer.json).pipe(
      Effect.mapError((error) => contractError(`the runtime-access answer has an unexpected shape${schemaPath(error)}`))
    )
    // The token just received is a secret from now on: the answer's own texts may quote it.
    if (decoded.token !== undefined && decoded.token !== null) secrets.add("runtime", decoded.token)
    return yield* Either.map(
      Either.mapLeft(RuntimeAccess.decide(decoded), contractError),
      (decision) => scrubDecision(decision, shownWith(secrets.scrub))
    )
  }).pipe(
    Effect.onExit((exit) =>
      Telemetry.count(Telemetry.resolutions, {
        "a2a.client.resolution.result": Exit.isSuccess(exit) ? exit.value._tag.toLowerCase() : "failed"
      })
    ),
    Effect.withSpan("a2a.client.resolve_runtime_access", {
      captureStackTrace: false,
      attributes: { ...spanAttributes(call), "a2a.client.attempt": attempt }
    })
  )
