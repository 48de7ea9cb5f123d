/**
 * The Task helpers (SPEC §7): get, cancel and wait, each one call with its own budget and the same access
 * rules as a send (cache, admission and transient wait, one refresh on 401/403).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { TaskCallOptions } from "../A2AClient.js"
import type { A2AStep, TaskError } from "../A2AError.js"
import * as A2AProtocol from "../A2AProtocol.js"
import * as Timeout from "../Timeout.js"
import { decodeTaskAnswer } from "./answers.js"
import { withinCallBudget } from "./budget.js"
import { validateSessionUid, validateTaskId } from "./buildRequestBody.js"
import { type CallContext, type ClientEnv, enterStep, spanAttributes } from "./callContext.js"
import { checkRuntimeAnswer, taskError } from "./httpErrors.js"
import { obtainAccess } from "./obtainAccess.js"
import { refreshOnce } from "./refreshOnce.js"
import { runtimeExchange, runtimeRequest } from "./sendToRuntime.js"

/** The first interval of `waitForA2ATask`, its growth factor and its cap. */
const firstWaitMillis = 1_000
const waitGrowth = 1.5
const maxWaitMillis = 30_000

const taskCall = <A, E extends TaskError>(
  env: ClientEnv,
  agentSessionUid: string,
  taskId: string,
  options: TaskCallOptions | undefined,
  run: (call: CallContext, taskId: string) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    yield* env.ready
    const uid = yield* validateSessionUid(agentSessionUid)
    const id = yield* validateTaskId(taskId)
    const budget = yield* Timeout.toBudget(options?.timeout)
    return yield* withinCallBudget(
      env,
      {
        agentSessionUid: uid,
        taskId: id,
        budget,
        // Stryker disable next-line StringLiteral: equivalent: the first step is replaced (enterStep) before anything can time out
        step: "resolve-runtime-access"
      },
      (call) => run(call, id)
    )
  })

const requestTask = (call: CallContext, taskId: string, step: A2AStep, cancel: boolean) =>
  refreshOnce<A2AProtocol.Task, TaskError>(call, {
    obtainAccess: (fresh) => obtainAccess(call, fresh),
    send: (access, attempt, onRejected) =>
      Effect.gen(function*() {
        yield* Effect.annotateCurrentSpan(spanAttributes(call, attempt))
        yield* enterStep(call, step)
        const path = `/api/a2a/v1/tasks/${encodeURIComponent(taskId)}${cancel ? ":cancel" : ""}`
        const request = cancel
          // Stryker disable next-line StringLiteral: equivalent: the method is only compared with "GET"
          ? runtimeRequest(access, "POST", path, new TextEncoder().encode("{}"))
          : runtimeRequest(access, "GET", path, undefined)
        const task = yield* runtimeExchange(call, step, request, false, (answer) =>
          checkRuntimeAnswer(
            answer,
            onRejected,
            (answer) => taskError(taskId, answer, call.backend.secrets.scrub),
            (answer) => decodeTaskAnswer(call, answer, call.backend.secrets.scrub)
          ))
        call.lastTask = Option.some(task)
        return task
      }).pipe(Effect.withSpan(cancel ? "a2a.cancelTask" : "a2a.getTask"))
  })

/** @internal */
export const getTask = (env: ClientEnv, agentSessionUid: string, taskId: string, options?: TaskCallOptions) =>
  taskCall(env, agentSessionUid, taskId, options, (call, id) => requestTask(call, id, "get-task", false)).pipe(
    Effect.withSpan("a2a.getA2ATask")
  )

/** @internal */
export const cancelTask = (env: ClientEnv, agentSessionUid: string, taskId: string, options?: TaskCallOptions) =>
  taskCall(env, agentSessionUid, taskId, options, (call, id) => requestTask(call, id, "cancel-task", true)).pipe(
    Effect.withSpan("a2a.cancelA2ATask")
  )

/**
 * Gets the Task repeatedly, 1 s apart and then 1.5 times longer each time (at most 30 s), until it is
 * terminal or interrupted, or the budget ends: its alarm ends the wait under way at the deadline (no request
 * at or past it), with the last Task seen on the timeout error.
 *
 * @internal
 */
export const waitForTask = (env: ClientEnv, agentSessionUid: string, taskId: string, options?: TaskCallOptions) =>
  taskCall(env, agentSessionUid, taskId, options, (call, id) =>
    Effect.gen(function*() {
      let interval = firstWaitMillis
      for (;;) {
        const task = yield* requestTask(call, id, "wait-task", false)
        if (A2AProtocol.isTerminal(task) || A2AProtocol.isInterrupted(task)) return task
        yield* enterStep(call, "wait-task")
        yield* Effect.sleep(Duration.millis(interval))
        interval = Math.min(interval * waitGrowth, maxWaitMillis)
      }
    })).pipe(Effect.withSpan("a2a.waitForA2ATask"))
