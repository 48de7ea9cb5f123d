/**
 * Step 2 (SPEC §3): one `POST {backend}/api/v1/agent-sessions/{uid}/resolve-runtime-access/`, decoded into
 * an admission decision. The cache lookup and the shared wait around it live in `obtainAccess`.
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
import * as Telemetry from "./telemetry.js"

// Built once: `Schema.decodeUnknown` compiles the schema's parser on each call.
const decodeAnswer = Schema.decodeUnknown(RuntimeAccess.ResolveRuntimeAccessAnswer)

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
    const contractError = (reason: string) =>
      new BackendContractError({
        url: answer.url,
        status: answer.status,
        reason
      })
    const decoded = yield* decodeAnswer(answer.json).pipe(
      Effect.mapError((error) => contractError(`the runtime-access answer has an unexpected shape${schemaPath(error)}`))
    )
    return yield* Either.mapLeft(RuntimeAccess.decide(decoded), contractError)
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
