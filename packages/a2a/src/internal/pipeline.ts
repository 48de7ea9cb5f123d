/**
 * `sendA2AMessage`, top to bottom as SPEC §1, under one total budget (§5).
 */
import * as Effect from "effect/Effect"
import type { SendA2AMessageInput } from "../A2AClient.js"
import type * as A2AError from "../A2AError.js"
import * as A2AProgress from "../A2AProgress.js"
import type * as A2AProtocol from "../A2AProtocol.js"
import * as Timeout from "../Timeout.js"
import { withinCallBudget } from "./budget.js"
import { buildRequestBody, validateSessionUid } from "./buildRequestBody.js"
import type { ClientEnv } from "./callContext.js"
import { ensureTaskSupport } from "./ensureTaskSupport.js"
import { obtainAccess } from "./obtainAccess.js"
import { refreshOnce } from "./refreshOnce.js"
import { type SendAnswerError, sendToRuntime } from "./sendToRuntime.js"
import { annotateTraced, traced } from "./spanned.js"

/** @internal */
export const sendMessage = (
  env: ClientEnv,
  agentSessionUid: string,
  input: SendA2AMessageInput
): Effect.Effect<A2AProtocol.Message | A2AProtocol.Task, A2AError.SendError> =>
  traced("a2a.sendA2AMessage", () =>
    // The preparation returns the call, which then runs in its place: nothing of the preparation waits on the
    // fiber's stack while the call is in flight.
    Effect.flatten(Effect.gen(function*() {
      yield* env.ready
      const uid = yield* validateSessionUid(agentSessionUid)
      const budget = yield* Timeout.toBudget(input.timeout)
      // 1. the exact bytes of the request
      const body = yield* buildRequestBody(uid, input)
      yield* annotateTraced(() => ({ "a2a.session_uid": uid, "a2a.message_id": body.messageId }))
      yield* A2AProgress.report({ _tag: "MessagePrepared", agentSessionUid: uid, messageId: body.messageId })
      const isTask = body.responseKind === "task"
      return withinCallBudget(env, {
        agentSessionUid: uid,
        messageId: body.messageId,
        taskId: body.taskId,
        budget,
        // Stryker disable next-line StringLiteral: equivalent: the first step is replaced (enterStep) before anything can time out
        step: isTask ? "discover-agent" : "resolve-runtime-access",
        // A Message call's every wait hands its abort to the budget; a Task call's discovery is left on a fiber of its own.
        onCallerFiber: !isTask
      }, (ctx) => {
        // 5. one refresh on a runtime 401/403, around:
        const exchange = refreshOnce<A2AProtocol.Message | A2AProtocol.Task, SendAnswerError>(ctx, {
          // 2–3. a cached access, else the session's one resolution (and wait while transient)
          obtainAccess: (fresh) => obtainAccess(ctx, fresh),
          // 4. the bytes to the runtime
          send: (access, attempt, onRejected) => sendToRuntime(ctx, access, body, attempt, onRejected)
        })
        return isTask ? Effect.zipRight(ensureTaskSupport(ctx, input.agentProfile), exchange) : exchange
      })
    })))
