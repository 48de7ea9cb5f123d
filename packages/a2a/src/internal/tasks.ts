/**
 * The Task helpers (SPEC §7): get, cancel and wait, each one call with its own budget and the same access
 * rules as a send (cache, admission and transient wait, one refresh on 401/403).
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import type { A2AStep, TaskError } from "../A2AError.js"
import * as A2AProgress from "../A2AProgress.js"
import * as A2AProtocol from "../A2AProtocol.js"
import * as Timeout from "../Timeout.js"
import { decodeTaskAnswer } from "./answers.js"
import { withinCallBudget } from "./budget.js"
import { validateSessionUid, validateTaskCallOptions, validateTaskId } from "./buildRequestBody.js"
import { enterStep, noteTask, spanAttributes } from "./callContext.js"
import type { CallContext, ClientEnv } from "./clientEnv.js"
import { checkRuntimeAnswer, taskError } from "./httpErrors.js"
import { obtainAccess } from "./obtainAccess.js"
import type { TaskCallOptions } from "./options.js"
import { refreshOnce } from "./refreshOnce.js"
import { rejected, runtimeExchange, runtimeRequest } from "./sendToRuntime.js"
import * as Telemetry from "./telemetry.js"

const firstInterval = Duration.seconds(1)
const lastCheckBeforeDeadline = Duration.seconds(1)

/**
 * The wait before the next get: `interval`, or, when that get would come later than `lastCheckBeforeDeadline`
 * before the deadline, the wait that brings it to that moment (if at least `firstInterval`): a Task that ends
 * late in the budget is seen, not lost in a wait the budget cuts.
 */
const fittedInterval = (interval: Duration.Duration, leftMillis: number): Duration.Duration => {
  const latest = Duration.millis(leftMillis - Duration.toMillis(lastCheckBeforeDeadline))
  return Duration.greaterThan(interval, latest) && Duration.greaterThanOrEqualTo(latest, firstInterval)
    ? latest
    : interval
}

/**
 * `waitForA2ATask`'s intervals: 1 s, then 1.5 times longer each time, at most 30 s, the last one fitted to the
 * call's deadline; it goes on while the Task is neither terminal nor interrupted, and reports each wait before
 * it (`TaskProgress`).
 */
const waitSchedule = (
  call: CallContext,
  taskId: string
): Schedule.Schedule<A2AProtocol.Task, A2AProtocol.Task> =>
  Schedule.exponential(firstInterval, 1.5).pipe(
    Schedule.union(Schedule.spaced(Duration.seconds(30))),
    Schedule.whileInput((task: A2AProtocol.Task) => !(A2AProtocol.isTerminal(task) || A2AProtocol.isInterrupted(task))),
    Schedule.modifyDelayEffect((_, interval) =>
      Effect.map(Clock.currentTimeMillis, (now) => fittedInterval(interval, call.deadlineMillis - now))
    ),
    Schedule.delays,
    Schedule.intersect(Schedule.identity<A2AProtocol.Task>()),
    Schedule.onDecision(([delay, task], decision) =>
      ScheduleDecision.isContinue(decision)
        ? A2AProgress.report({
          _tag: "TaskProgress",
          agentSessionUid: call.agentSessionUid,
          taskId,
          state: task.status.state,
          retryAfterMs: Duration.toMillis(delay)
        })
        : Effect.void
    ),
    Schedule.passthrough
  )

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
    const checked = yield* validateTaskCallOptions(options)
    yield* Effect.annotateCurrentSpan({ "gen_ai.conversation.id": uid, "a2a.task.id": id })
    const budget = yield* Timeout.toBudget(checked?.timeout)
    return yield* withinCallBudget(env, { agentSessionUid: uid, taskId: id, budget, step: "resolve-runtime-access" }, (
      call
    ) => run(call, id))
  })

const requestTask = (call: CallContext, taskId: string, step: A2AStep, cancel: boolean) =>
  refreshOnce<A2AProtocol.Task, TaskError>(call, {
    obtainAccess: (fresh) => obtainAccess(call, fresh),
    send: (access) =>
      Effect.gen(function*() {
        yield* enterStep(call, step)
        const path = `/api/a2a/v1/tasks/${encodeURIComponent(taskId)}${cancel ? ":cancel" : ""}`
        const request = cancel
          ? runtimeRequest(access, "POST", path, new TextEncoder().encode("{}"))
          : runtimeRequest(access, "GET", path, undefined)
        const answer = yield* runtimeExchange(call, step, request, false)
        const task = yield* checkRuntimeAnswer(
          answer,
          rejected,
          (answer) => taskError(taskId, answer, call.backend.secrets.scrub),
          (answer) => decodeTaskAnswer(call, answer, call.backend.secrets.scrub)
        )
        yield* noteTask(call, task, call.backend.secrets.scrub)
        yield* Effect.annotateCurrentSpan("a2a.task.state", task.status.state)
        return task
      })
  })

/** @internal */
export const getTask = (env: ClientEnv, agentSessionUid: string, taskId: string, options?: TaskCallOptions) =>
  taskCall(env, agentSessionUid, taskId, options, (call, id) => requestTask(call, id, "get-task", false)).pipe(
    Telemetry.observeCall("GetTask")
  )

/** @internal */
export const cancelTask = (env: ClientEnv, agentSessionUid: string, taskId: string, options?: TaskCallOptions) =>
  taskCall(env, agentSessionUid, taskId, options, (call, id) => requestTask(call, id, "cancel-task", true)).pipe(
    Telemetry.observeCall("CancelTask")
  )

/**
 * Gets the Task on {@link waitSchedule} until it is terminal or interrupted, or the budget ends (with the
 * last Task seen on the timeout error).
 *
 * @internal
 */
export const waitForTask = (env: ClientEnv, agentSessionUid: string, taskId: string, options?: TaskCallOptions) =>
  taskCall(env, agentSessionUid, taskId, options, (call, id) =>
    Effect.repeat(
      requestTask(call, id, "wait-task", false).pipe(Telemetry.observeCall("GetTask", spanAttributes(call))),
      waitSchedule(call, id)
    )).pipe(Telemetry.observeCall("WaitForTask"))
