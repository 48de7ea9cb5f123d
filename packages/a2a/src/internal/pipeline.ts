/**
 * The send pipeline, top to bottom as SPEC §1, under one total budget (§5).
 */
import * as Effect from "effect/Effect"
import * as Equivalence from "effect/Equivalence"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { SendA2AMessageInput } from "../A2AClient.js"
import * as A2AProgress from "../A2AProgress.js"
import type * as A2AProtocol from "../A2AProtocol.js"
import * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import * as Timeout from "../Timeout.js"
import { awaitAdmission, outlivedByWait } from "./awaitAdmission.js"
import { type Call, makeCall, withinBudget } from "./budget.js"
import { buildRequestBody, validateSessionUid } from "./buildRequestBody.js"
import { ensureTaskSupport } from "./discoverAgent.js"
import type { Env } from "./env.js"
import { forCall } from "./forCall.js"
import type { RuntimeCredentialsRejected } from "./httpErrors.js"
import { refreshOnce } from "./refreshOnce.js"
import { sendToRuntime } from "./sendToRuntime.js"

const sameToken = Redacted.getEquivalence(Equivalence.string)

/**
 * Steps 2–3: a valid cached access, else resolve (and wait while transient). Concurrent calls for the
 * same session share one resolution through the cache; `fresh` skips the cached entry.
 *
 * @internal
 */
export const obtainAccess = (env: Env, call: Call, fresh: boolean) =>
  env.cache.getOrResolve(
    env.cacheKey(call.agentSessionUid),
    Effect.flatMap(awaitAdmission(env, call, false), RuntimeAccessCache.fromAdmitted),
    {
      fresh,
      // Each call's own budget decides: it leaves a shared wait that no longer fits it, and takes over
      // (resuming where the wait stands) one that still fits when the leading call had to leave.
      whileJoined: outlivedByWait(call),
      takeOver: Effect.flatMap(awaitAdmission(env, call, true), RuntimeAccessCache.fromAdmitted)
    }
  ).pipe(Effect.catchAll((error) => Effect.flip(forCall(call)(error))))

/**
 * Steps 2–5 around one runtime exchange: obtain access, run `attempt`, and on a runtime 401/403 drop the
 * cached access, obtain fresh access and run it once more.
 *
 * @internal
 */
export const withRuntimeAccess = <A, E>(
  env: Env,
  call: Call,
  attempt: (
    access: RuntimeAccessCache.CachedRuntimeAccess,
    attempt: number
  ) => Effect.Effect<A, E | RuntimeCredentialsRejected>
) =>
  Effect.gen(function*() {
    const key = env.cacheKey(call.agentSessionUid)
    const access = yield* obtainAccess(env, call, false)
    return yield* refreshOnce({
      call,
      access,
      refresh: (rejected) =>
        Effect.flatMap(env.cache.get(key), (current) =>
          // Another call already replaced the rejected access: use its fresh one instead of resolving again.
          Option.isSome(current) && !sameToken(current.value.token, rejected.token)
            ? Effect.succeed(current.value)
            : Effect.zipRight(env.cache.invalidate(key), obtainAccess(env, call, true))),
      attempt
    })
  })

/**
 * `sendA2AMessage`: build the body (1), then under the budget: Task-mode discovery when asked for, access
 * (2–3), send (4), one refresh on 401/403 (5).
 *
 * @internal
 */
export const sendMessage = (env: Env, agentSessionUid: string, input: SendA2AMessageInput) =>
  Effect.gen(function*() {
    yield* env.ready
    const uid = yield* validateSessionUid(agentSessionUid)
    const budget = yield* Timeout.toBudget(input.timeout)
    const body = yield* buildRequestBody(uid, input)
    yield* Effect.annotateCurrentSpan({ "a2a.session_uid": uid, "a2a.message_id": body.messageId })
    yield* A2AProgress.report({ _tag: "MessagePrepared", agentSessionUid: uid, messageId: body.messageId })
    const call = yield* makeCall({
      agentSessionUid: uid,
      messageId: body.messageId,
      taskId: body.taskId,
      budget,
      step: body.responseKind === "task" ? "discover-agent" : "resolve-runtime-access",
      sessionWaitingFor: yield* env.sessionWaitingFor(uid)
    })
    return yield* withinBudget(
      call,
      Effect.gen(function*() {
        if (body.responseKind === "task") yield* ensureTaskSupport(env, call, input.agentProfile)
        const answer: A2AProtocol.Message | A2AProtocol.Task = yield* withRuntimeAccess(
          env,
          call,
          (access, attempt) => sendToRuntime(env, call, access, body, attempt)
        )
        return answer
      })
    )
  }).pipe(Effect.withSpan("a2a.sendA2AMessage"))
