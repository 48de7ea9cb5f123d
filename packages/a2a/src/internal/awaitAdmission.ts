/**
 * Step 3 (SPEC §1.3): while the backend reports a transient state with a numeric `retry_after_ms`, wait
 * exactly that long and resolve again — unless the next resolution would not fit in the call's budget.
 * This is the only wait before sending.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { AgentRuntimeNotReadyError, AgentRuntimeUnavailableError } from "../A2AError.js"
import * as A2AProgress from "../A2AProgress.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import { type Call, enterStep, remainingMillis, spanAttributes } from "./budget.js"
import type { Env } from "./env.js"
import { resolveRuntimeAccess } from "./resolveRuntimeAccess.js"

/**
 * Resolves until admitted; a terminal answer fails with `AgentRuntimeUnavailableError`, a next retry that
 * does not fit the budget with `AgentRuntimeNotReadyError`.
 *
 * @internal
 */
export const awaitAdmission = Effect.fn("a2a.awaitAdmission")(function*(env: Env, call: Call) {
  yield* Effect.annotateCurrentSpan(spanAttributes(call))
  // A new resolution: what an earlier one saw is no longer the session's state.
  yield* Ref.set(call.sessionWaitingFor, Option.none())
  for (let attempt = 1;; attempt++) {
    const decision: RuntimeAccess.Decision = yield* resolveRuntimeAccess(env, call, attempt)
    yield* Ref.set(call.sessionWaitingFor, decision._tag === "Transient" ? Option.some(decision) : Option.none())
    switch (decision._tag) {
      case "Admitted": {
        yield* Ref.set(call.waitingFor, Option.none())
        return decision
      }
      case "Terminal": {
        return yield* new AgentRuntimeUnavailableError({
          agentSessionUid: call.agentSessionUid,
          messageId: call.messageId,
          state: decision.state,
          notice: decision.notice,
          detail: decision.detail,
          presenceDetail: decision.presence?.detail ?? undefined
        })
      }
      case "Transient": {
        yield* Ref.set(call.waitingFor, Option.some(decision))
        const remainingMs = yield* remainingMillis(call)
        if (decision.retryAfterMs >= remainingMs) {
          return yield* new AgentRuntimeNotReadyError({
            agentSessionUid: call.agentSessionUid,
            messageId: call.messageId,
            state: decision.state,
            retryAfterMs: decision.retryAfterMs,
            remainingMs: Math.max(0, remainingMs),
            detail: decision.presence?.detail ?? undefined
          })
        }
        yield* A2AProgress.report({
          _tag: "RuntimeAccessProgress",
          agentSessionUid: call.agentSessionUid,
          messageId: call.messageId,
          state: decision.state,
          notice: decision.notice,
          presencePhase: decision.presence?.phase ?? undefined,
          presenceDetail: decision.presence?.detail ?? undefined,
          retryAfterMs: decision.retryAfterMs,
          attempt
        })
        yield* enterStep(call, "await-runtime")
        yield* Effect.sleep(Duration.millis(decision.retryAfterMs)).pipe(
          Effect.withSpan("a2a.awaitRuntime", {
            attributes: { ...spanAttributes(call, attempt), "a2a.retry_after_ms": decision.retryAfterMs }
          })
        )
      }
    }
  }
})
