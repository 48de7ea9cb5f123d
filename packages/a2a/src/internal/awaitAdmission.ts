/**
 * Step 3 (SPEC §1.3): while the backend reports a transient state with a numeric `retry_after_ms`, wait
 * exactly that long and resolve again — unless the next resolution would not fit in the call's budget.
 * This is the only wait before sending.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { AgentRuntimeUnavailableError } from "../A2AError.js"
import * as A2AProgress from "../A2AProgress.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import { notReadyError } from "./budget.js"
import { type Call, type CallContext, enterStep, type SessionWait, spanAttributes } from "./callContext.js"
import { resolveRuntimeAccess } from "./resolveRuntimeAccess.js"
import { recordWait } from "./sessionWait.js"

/**
 * Fails with `AgentRuntimeNotReadyError` if the wait's next resolve does not fit in the call's budget,
 * else sleeps until then.
 */
const waitForRetry = (call: Call, wait: SessionWait) =>
  Effect.gen(function*() {
    const { attempt, transient } = wait
    yield* Ref.set(call.waitingFor, Option.some(transient))
    const now = yield* Clock.currentTimeMillis
    if (wait.retryAtMillis >= call.deadlineMillis) {
      return yield* notReadyError(call, transient, call.deadlineMillis - now)
    }
    yield* A2AProgress.report({
      _tag: "RuntimeAccessProgress",
      agentSessionUid: call.agentSessionUid,
      messageId: call.messageId,
      state: transient.state,
      notice: transient.notice,
      presencePhase: transient.presence?.phase ?? undefined,
      presenceDetail: transient.presence?.detail ?? undefined,
      retryAfterMs: transient.retryAfterMs,
      attempt
    })
    yield* enterStep(call, "await-runtime")
    yield* Effect.sleep(Duration.millis(Math.max(0, wait.retryAtMillis - now))).pipe(
      Effect.withSpan("a2a.awaitRuntime", {
        attributes: { ...spanAttributes(call, attempt), "a2a.retry_after_ms": transient.retryAfterMs }
      })
    )
  })

/**
 * Resolves until admitted; a terminal answer fails with `AgentRuntimeUnavailableError`, a next retry that
 * does not fit the budget with `AgentRuntimeNotReadyError`. With `takingOver`, the call continues the
 * session's wait that another call left (its budget ended): it resolves again only when that wait asked.
 *
 * @internal
 */
export const awaitAdmission = Effect.fn("a2a.awaitAdmission", { captureStackTrace: false })(
  function*(call: CallContext, takingOver: boolean) {
    yield* Effect.annotateCurrentSpan(spanAttributes(call))
    const leftOver = takingOver ? yield* Ref.get(call.session.wait) : Option.none()
    if (Option.isSome(leftOver)) yield* waitForRetry(call, leftOver.value)
    // A new resolution: what an earlier one saw is no longer the session's state.
    else yield* recordWait(call.session, Option.none())
    const firstAttempt = Option.match(leftOver, { onNone: () => 1, onSome: (wait) => wait.attempt + 1 })
    for (let attempt = firstAttempt;; attempt++) {
      const decision: RuntimeAccess.Decision = yield* resolveRuntimeAccess(call, attempt)
      switch (decision._tag) {
        case "Admitted": {
          yield* recordWait(call.session, Option.none())
          yield* Ref.set(call.waitingFor, Option.none())
          return decision
        }
        case "Terminal": {
          yield* recordWait(call.session, Option.none())
          return yield* new AgentRuntimeUnavailableError({
            state: decision.state,
            notice: decision.notice,
            detail: decision.detail,
            presenceDetail: decision.presence?.detail ?? undefined
          })
        }
        case "Transient": {
          const now = yield* Clock.currentTimeMillis
          const wait: SessionWait = { transient: decision, retryAtMillis: now + decision.retryAfterMs, attempt }
          yield* recordWait(call.session, Option.some(wait))
          yield* waitForRetry(call, wait)
        }
      }
    }
  }
)
