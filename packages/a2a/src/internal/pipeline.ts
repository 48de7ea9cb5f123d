/**
 * `sendA2AMessage`, top to bottom as SPEC §1, under one total budget (§5).
 */
import * as Effect from "effect/Effect"
import type * as A2AError from "../A2AError.js"
import * as A2AProgress from "../A2AProgress.js"
import * as A2AProtocol from "../A2AProtocol.js"
import * as Timeout from "../Timeout.js"
import { withinCallBudget } from "./budget.js"
import { buildRequestBody, validateInput, validateSessionUid } from "./buildRequestBody.js"
import type { ClientEnv } from "./clientEnv.js"
import { ensureTaskSupport } from "./ensureTaskSupport.js"
import { obtainAccess } from "./obtainAccess.js"
import type { SendA2AMessageInput } from "./options.js"
import { refreshOnce } from "./refreshOnce.js"
import { sendToRuntime } from "./sendToRuntime.js"
import * as Telemetry from "./telemetry.js"

/** @internal */
export const sendMessage = (
  env: ClientEnv,
  agentSessionUid: string,
  given: SendA2AMessageInput
): Effect.Effect<A2AProtocol.Message | A2AProtocol.Task, A2AError.SendError> =>
  Effect.gen(function*() {
    yield* env.ready
    const uid = yield* validateSessionUid(agentSessionUid)
    const input = yield* validateInput(given)
    const budget = yield* Timeout.toBudget(input.timeout)
    // 1. the exact bytes of the request
    const body = yield* buildRequestBody(uid, input)
    yield* Effect.annotateCurrentSpan({ "gen_ai.conversation.id": uid, "a2a.message.id": body.messageId })
    yield* A2AProgress.report({ _tag: "MessagePrepared", agentSessionUid: uid, messageId: body.messageId })
    const isTask = body.responseKind === "task"
    const options = {
      agentSessionUid: uid,
      messageId: body.messageId,
      taskId: body.taskId,
      budget,
      step: isTask
        // Stryker disable next-line StringLiteral: ensureTaskSupport enters this step before anything can time out
        ? "discover-agent" as const
        : "resolve-runtime-access" as const
    }
    const answer = yield* withinCallBudget(env, options, (call) => {
      // 5. one refresh on a runtime 401/403, around:
      const accessAndSend = refreshOnce(call, {
        // 2–3. a cached access, else the session's one resolution (and wait while transient)
        obtainAccess: (fresh) => obtainAccess(call, fresh),
        // 4. the bytes to the runtime
        send: (access) => sendToRuntime(call, access, body)
      })
      return isTask ? Effect.zipRight(ensureTaskSupport(call, input.agentProfile), accessAndSend) : accessAndSend
    })
    if (A2AProtocol.isTask(answer)) {
      yield* Effect.annotateCurrentSpan({ "a2a.task.id": answer.id, "a2a.task.state": answer.status.state })
    }
    return answer
  }).pipe(
    Effect.tapErrorTag("A2AMessageLimitExceededError", () => Telemetry.count(Telemetry.messageLimitAnswers)),
    Telemetry.observeCall("SendMessage")
  )
