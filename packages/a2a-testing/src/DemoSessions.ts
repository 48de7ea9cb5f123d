/**
 * The demo sessions of the reference platform (`serveReferencePlatform` in
 * `./node`): ready-made scenarios for the CLI demo, manual testing and docs.
 * Plain data: usable with the in-memory platform too.
 *
 * @since 0.1.0
 */
import type * as Redacted from "effect/Redacted"
import type * as SessionScenario from "./SessionScenario.js"
import { defaultRefreshToken, defaultUserAccessToken } from "./SimulatedPlatform.js"

/**
 * The uids of the demo sessions a reference platform serves out of the box.
 *
 * - `ready`: answers at once ("You said: …"; a strict dictionary when asked)
 * - `coldStart`: wakes over ~3 s (checking → starting → waking), then ready
 * - `updateRequired`: terminal `update_required`; never admits
 * - `slow`: the Agent works 5 s before answering (half the Message limit when
 *   that is shorter, so it still answers in time)
 * - `messageLimit`: the Agent works a long job ({@link demoLongJobMs}: the
 *   Message limit plus a few seconds, 120 s with the default 90 s limit), so
 *   the platform answers 504 `MESSAGE_RESPONSE_LIMIT_EXCEEDED` at the limit
 * - `taskJob`: advertises Task mode; its job is as long (longer than the
 *   Message limit: a direct Message gets the 504, a Task completes after 1 s
 *   queued + the job)
 * - `trickle`: the answer body arrives in 5 pieces, 400 ms apart
 * - `inputRequired`: advertises Task mode; its Task works 1 s, then asks
 *   for input (`TASK_STATE_INPUT_REQUIRED`, status message
 *   {@link demoInputRequiredQuestion}) and waits there until a follow-up
 *   turn (`message.taskId` = the Task's id, `responseKind: "task"`); the
 *   follow-up works 1 s more and the Task completes with the artifact
 *   `Report ready for: <the follow-up's text>`
 *
 * @since 0.1.0
 * @category demo
 */
export const demoSessionUids = {
  ready: "5e55a0e1-0000-4000-8000-000000000001",
  coldStart: "5e55a0e1-0000-4000-8000-000000000002",
  updateRequired: "5e55a0e1-0000-4000-8000-000000000003",
  slow: "5e55a0e1-0000-4000-8000-000000000004",
  messageLimit: "5e55a0e1-0000-4000-8000-000000000005",
  taskJob: "5e55a0e1-0000-4000-8000-000000000006",
  trickle: "5e55a0e1-0000-4000-8000-000000000007",
  inputRequired: "5e55a0e1-0000-4000-8000-000000000008"
} as const

/**
 * The question the `inputRequired` demo Agent asks (the status message of
 * its `TASK_STATE_INPUT_REQUIRED` Task).
 *
 * @since 0.1.0
 * @category demo
 */
export const demoInputRequiredQuestion = "Which region should the report cover?"

/**
 * The user access token a reference platform accepts (unless other tokens are given).
 *
 * @since 0.1.0
 * @category demo
 */
export const demoUserAccessToken: Redacted.Redacted<string> = defaultUserAccessToken

/**
 * The refresh token a reference platform accepts (unless other tokens are given).
 *
 * @since 0.1.0
 * @category demo
 */
export const demoRefreshToken: Redacted.Redacted<string> = defaultRefreshToken

const demo = (
  index: number,
  name: string,
  rest: Omit<SessionScenario.SessionScenarioInput, "sessionUid" | "agentUid" | "serviceUid" | "name">
): SessionScenario.SessionScenarioInput => {
  const suffix = String(index).padStart(12, "0")
  return {
    sessionUid: `5e55a0e1-0000-4000-8000-${suffix}`,
    agentUid: `a9e47000-0000-4000-8000-${suffix}`,
    serviceUid: `5e7f1ce0-0000-4000-8000-${suffix}`,
    name,
    ...rest
  }
}

/**
 * The length of the demo sessions' long job for a Message limit: the limit
 * plus a few seconds, `limit + max(3 s, limit / 3)` — 120 s for the default
 * 90 s limit, 8 s for a 5 s limit, so a demo with a short limit finishes its
 * Task in seconds.
 *
 * @since 0.1.0
 * @category demo
 */
export const demoLongJobMs = (messageLimitSeconds: number): number => {
  const limitMs = messageLimitSeconds * 1000
  return Math.round(limitMs + Math.max(3000, limitMs / 3))
}

const seconds = (millis: number): string => `${Number((millis / 1000).toFixed(1))} s`

/**
 * The demo session scenarios (see {@link demoSessionUids}) for a Message
 * limit: the `messageLimit` and `taskJob` Agents work {@link demoLongJobMs}.
 * `serveReferencePlatform` serves the ones for its `messageLimitSeconds`.
 *
 * @since 0.1.0
 * @category demo
 */
export const demoSessionsFor = (
  messageLimitSeconds: number
): ReadonlyArray<SessionScenario.SessionScenarioInput> => {
  const longJobMs = demoLongJobMs(messageLimitSeconds)
  const slowMs = Math.min(5000, Math.round(messageLimitSeconds * 500))
  return [
    demo(1, "Ready echo Agent", { agent: { name: "Echo" } }),
    demo(2, "Cold start (~3 s)", {
      access: {
        _tag: "ColdStart",
        phases: [
          { state: "checking", retryAfterMs: 250, durationMs: 500, detail: "Checking the runtime." },
          { state: "starting", retryAfterMs: 500, durationMs: 1000, detail: "Starting the runtime." },
          { state: "waking", retryAfterMs: 750, durationMs: 1500, detail: "Loading the Agent." }
        ]
      },
      agent: { name: "Sleepy echo" }
    }),
    demo(3, "Agent needs an update", {
      access: { _tag: "Terminal", state: "update_required" },
      agent: { name: "Outdated Agent" }
    }),
    demo(4, `Slow Agent (${seconds(slowMs)})`, { agent: { name: "Slow thinker", workMs: slowMs } }),
    demo(5, `Agent beyond the Message limit (${seconds(longJobMs)} of work)`, {
      agent: { name: "Marathon", workMs: longJobMs }
    }),
    demo(6, `Task-capable Agent (${seconds(longJobMs)} job)`, {
      agent: { name: "Job runner", taskSupport: true, workMs: longJobMs }
    }),
    demo(7, "Trickling Agent", {
      agent: { name: "Trickler", behaviour: { _tag: "Answer", trickle: { chunks: 5, gapMs: 400 } } }
    }),
    demo(8, "Agent that asks for input (Task mode)", {
      agent: {
        name: "Report writer",
        taskSupport: true,
        workMs: 1000,
        reply: { _tag: "Echo", prefix: "Report ready for: " },
        task: { queuedMs: 0, questions: [demoInputRequiredQuestion] }
      }
    })
  ]
}

/**
 * The demo session scenarios for the default 90 s Message limit (see
 * {@link demoSessionsFor}).
 *
 * @since 0.1.0
 * @category demo
 */
export const demoSessions: ReadonlyArray<SessionScenario.SessionScenarioInput> = demoSessionsFor(90)
