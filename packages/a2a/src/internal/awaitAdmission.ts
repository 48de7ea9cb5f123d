/**
 * Step 3 (SPEC §1.3), as the session's resolution runs it: resolve; while the backend reports a transient
 * state with a numeric `retry_after_ms`, record the wait (the calls whose deadline the next resolve misses
 * leave then) and, while a call still waits, sleep exactly that long and resolve again. This is the only
 * wait before sending.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import { AgentRuntimeUnavailableError } from "../A2AError.js"
import type * as RuntimeAccess from "../RuntimeAccess.js"
import { enterStep, type SessionWait, spanAttributes } from "./callContext.js"
import type { CallContext } from "./clientEnv.js"
import { resolveRuntimeAccess } from "./resolveRuntimeAccess.js"
import * as Telemetry from "./telemetry.js"

/**
 * What the session's resolution does around each resolve: `beforeResolve` runs before each one; `recordWait` is
 * told each transient answer and says whether any call still waits.
 *
 * @internal
 */
export interface AdmissionHooks {
  readonly beforeResolve: Effect.Effect<void>
  readonly recordWait: (wait: SessionWait) => Effect.Effect<boolean>
}

/**
 * Resolves until admitted; a terminal answer fails with `AgentRuntimeUnavailableError`. When no call waits
 * any more after a transient answer, the wait ends with `None`.
 *
 * @internal
 */
export const awaitAdmission = Effect.fn("a2a.client.resolution", { captureStackTrace: false })(
  function*(call: CallContext, { beforeResolve, recordWait }: AdmissionHooks) {
    yield* Effect.annotateCurrentSpan(spanAttributes(call))
    for (let attempt = 1;; attempt++) {
      yield* beforeResolve
      const decision: RuntimeAccess.Decision = yield* resolveRuntimeAccess(call, attempt)
      switch (decision._tag) {
        case "Admitted": {
          return Option.some(decision)
        }
        case "Terminal": {
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
          if (!(yield* recordWait(wait))) return Option.none<RuntimeAccess.Admitted>()
          // Stryker disable next-line StringLiteral: the resolution has no deadline: nothing reads its step
          yield* enterStep(call, "await-runtime")
          yield* Telemetry.count(Telemetry.transientWaits)
          yield* Effect.sleep(Duration.millis(decision.retryAfterMs)).pipe(
            Effect.withSpan("a2a.client.await_runtime", {
              captureStackTrace: false,
              attributes: {
                ...spanAttributes(call),
                "a2a.client.attempt": attempt,
                "a2a.client.runtime_state": decision.state,
                "a2a.client.retry_after_ms": decision.retryAfterMs
              }
            }),
            Effect.ensuring(recordWaitTime(now))
          )
        }
      }
    }
  }
)

// Also when the wait is cut short (every call left or was interrupted): the time it did take.
const recordWaitTime = (startedMillis: number) =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (now) => Metric.update(Telemetry.histogramWith(Telemetry.transientWaitDuration, {}), (now - startedMillis) / 1000)
  )
