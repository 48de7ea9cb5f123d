/**
 * The backend's runtime-access answer (SPEC §3) for a session at a Clock
 * reading. Cold starts are driven by simulated time: the first resolve starts
 * the wake and later ones report the phase for the elapsed time.
 *
 * @internal
 */
import type * as SessionScenario from "../SessionScenario.js"
import type { JsonObject } from "./agent.js"
import type { PlatformState, RuntimeToken, SessionState } from "./state.js"
import { isoTime } from "./wire.js"

/** Reuse a token only while it has more than this left before `expires_at`. */
const TOKEN_REUSE_MARGIN_MS = 60_000

/** How long after the expected end of a wake its deadline lies. */
const WAKE_DEADLINE_MARGIN_MS = 120_000

/** @internal */
export type Decision =
  | { readonly _tag: "Ready"; readonly warning: SessionScenario.Notice | undefined }
  | {
    readonly _tag: "Transient"
    readonly state: SessionScenario.TransientState
    readonly retryAfterMs: number | null
    readonly detail: string | undefined
    readonly expectedEndMs: number | null
  }
  | {
    readonly _tag: "Terminal"
    readonly state: SessionScenario.TerminalState
    readonly notice: SessionScenario.Notice | null | undefined
    readonly detail: string | undefined
  }
  | { readonly _tag: "Legacy"; readonly admit: boolean; readonly detail: string | undefined }
  | {
    readonly _tag: "ContractBreaking"
    readonly violation: typeof SessionScenario.ContractBreakingAccess.Type["violation"]
  }

const fromFinal = (access: SessionScenario.SessionScenario["access"] & { readonly _tag: "Ready" | "Terminal" }) =>
  access._tag === "Ready"
    ? { _tag: "Ready" as const, warning: access.warning }
    : { _tag: "Terminal" as const, state: access.state, notice: access.notice, detail: access.detail }

/**
 * The decision for the session now. With `startWake`, a cold start that has
 * not begun begins now (a resolve does that; a peek does not).
 *
 * @internal
 */
export const decide = (session: SessionState, nowMs: number, startWake: boolean): Decision => {
  const access = session.scenario.access
  switch (access._tag) {
    case "Ready":
    case "Terminal":
      return fromFinal(access)
    case "Legacy":
      return { _tag: "Legacy", admit: access.admit, detail: access.detail }
    case "ContractBreaking":
      return { _tag: "ContractBreaking", violation: access.violation }
    case "StuckTransient":
      if (startWake && session.wakeStartedAtMs === null) session.wakeStartedAtMs = nowMs
      return {
        _tag: "Transient",
        state: access.state,
        retryAfterMs: access.retryAfterMs,
        detail: access.detail,
        expectedEndMs: null
      }
    case "ColdStart": {
      if (startWake && session.wakeStartedAtMs === null) session.wakeStartedAtMs = nowMs
      const startedAt = session.wakeStartedAtMs
      const first = access.phases[0]
      if (startedAt === null) {
        return {
          _tag: "Transient",
          state: first.state,
          retryAfterMs: first.retryAfterMs,
          detail: first.detail,
          expectedEndMs: null
        }
      }
      const elapsed = nowMs - startedAt
      const total = access.phases.reduce((sum, phase) => sum + phase.durationMs, 0)
      let end = 0
      for (const phase of access.phases) {
        end += phase.durationMs
        if (elapsed < end) {
          return {
            _tag: "Transient",
            state: phase.state,
            retryAfterMs: phase.retryAfterMs,
            detail: phase.detail,
            expectedEndMs: startedAt + total
          }
        }
      }
      return fromFinal(access.then)
    }
  }
}

/**
 * Whether the runtime is up now (a peek: starts nothing). A runtime that is
 * down is answered by the gateway, not by the runtime.
 *
 * @internal
 */
export const runtimeIsUp = (session: SessionState, nowMs: number): boolean => {
  const decision = decide(session, nowMs, false)
  switch (decision._tag) {
    case "Ready":
    case "ContractBreaking":
      return true
    case "Legacy":
      return decision.admit
    case "Transient":
    case "Terminal":
      return false
  }
}

const usableToken = (session: SessionState, nowMs: number): RuntimeToken | undefined => {
  const token = session.currentToken
  if (token === null || token.revoked || session.scenario.token.mintOnEveryResolve) return undefined
  if (token.expiresAtMs !== null && token.expiresAtMs - nowMs <= TOKEN_REUSE_MARGIN_MS) return undefined
  return token
}

/** The current token, or a freshly minted one. @internal */
export const tokenFor = (state: PlatformState, session: SessionState, nowMs: number): RuntimeToken =>
  usableToken(session, nowMs) ?? state.mintRuntimeToken(session, nowMs)

const defaultNotice = (state: SessionScenario.TerminalState): SessionScenario.Notice => {
  switch (state) {
    case "update_required":
      return {
        code: "agent_runtime_update_required",
        severity: "warning",
        title: "Agent update required",
        message: "This agent must be redeployed before it can take messages."
      }
    case "update_failed":
      return {
        code: "agent_runtime_update_failed",
        severity: "error",
        title: "Agent update failed",
        message: "The last update of this agent failed; redeploy it to take messages again."
      }
    case "unavailable":
      return {
        code: "agent_runtime_unavailable",
        severity: "error",
        title: "Agent unavailable",
        message: "The agent runtime is unavailable."
      }
  }
}

const defaultTerminalDetail = (state: SessionScenario.TerminalState): string => {
  switch (state) {
    case "update_required":
      return "Runtime reconciliation is queued."
    case "update_failed":
      return "The last runtime rollout failed."
    case "unavailable":
      return "The runtime is not available."
  }
}

const terminalPresence = (state: SessionScenario.TerminalState): JsonObject => {
  switch (state) {
    case "update_required":
      return {
        phase: "not_deployed",
        replicas: { desired: 0, actual: 0 },
        detail: "The runtime is not deployed.",
        observed_at: null,
        wake: null
      }
    case "update_failed":
      return {
        phase: "failed",
        replicas: { desired: 1, actual: 0 },
        detail: "The last rollout failed.",
        observed_at: null,
        wake: null
      }
    case "unavailable":
      return {
        phase: "stopped",
        replicas: { desired: 0, actual: 0 },
        detail: "The runtime is stopped.",
        observed_at: null,
        wake: null
      }
  }
}

const transientPresence = (state: SessionScenario.TransientState): { phase: string; detail: string } => {
  switch (state) {
    case "checking":
      return { phase: "checking", detail: "Checking the runtime." }
    case "starting":
      return { phase: "provisioning", detail: "Starting the runtime." }
    case "waking":
      return { phase: "waking", detail: "Waking the runtime." }
    case "updating":
      return { phase: "rolling_out", detail: "Updating the runtime." }
  }
}

/** @internal */
export interface AnswerContext {
  readonly state: PlatformState
  readonly session: SessionState
  readonly nowMs: number
  readonly rpcUrl: string
}

const readyAnswer = (
  context: AnswerContext,
  warning: SessionScenario.Notice | undefined,
  withToken = true
): JsonObject => {
  const { nowMs, rpcUrl, session, state } = context
  const token = withToken ? tokenFor(state, session, nowMs) : undefined
  return {
    coding_agent_service_uid: session.scenario.serviceUid,
    mode: "token",
    rpc_url: rpcUrl,
    token: token === undefined ? null : token.value,
    expires_at: token === undefined || token.expiresAtMs === null ? null : isoTime(token.expiresAtMs),
    runtime_paths: { a2a: "/api/a2a/v1" },
    runtime_interaction: {
      state: warning === undefined ? "ready" : "warning",
      can_submit: true,
      notice: warning ?? null,
      operation: null,
      retry_after_ms: null
    },
    runtime_presence: {
      phase: "serving",
      replicas: { desired: 1, actual: 1 },
      detail: "The runtime is serving requests.",
      observed_at: isoTime(nowMs),
      wake: null
    }
  }
}

/**
 * The JSON answer of `resolve-runtime-access` for a decision.
 *
 * @internal
 */
export const accessAnswer = (context: AnswerContext, decision: Decision): JsonObject => {
  const { nowMs, rpcUrl, session, state } = context
  const serviceUid = session.scenario.serviceUid
  switch (decision._tag) {
    case "Ready":
      return readyAnswer(context, decision.warning)
    case "Transient": {
      const startedAt = session.wakeStartedAtMs ?? nowMs
      session.wakeOperationUid ??= state.nextOperationUid()
      const operationUid = session.wakeOperationUid
      const presence = transientPresence(decision.state)
      const deadline = (decision.expectedEndMs ?? startedAt) + WAKE_DEADLINE_MARGIN_MS
      return {
        coding_agent_service_uid: serviceUid,
        mode: "unavailable",
        rpc_url: null,
        token: null,
        expires_at: null,
        runtime_interaction: {
          state: decision.state,
          can_submit: false,
          notice: null,
          operation: {
            uid: operationUid,
            status: "running",
            created_at: isoTime(startedAt),
            started_at: isoTime(startedAt),
            finished_at: null,
            support_reference: `sim-op-${operationUid.slice(-6)}`
          },
          retry_after_ms: decision.retryAfterMs
        },
        runtime_presence: {
          phase: presence.phase,
          replicas: { desired: 1, actual: 0 },
          detail: decision.detail ?? presence.detail,
          observed_at: isoTime(nowMs),
          wake: {
            operation_uid: operationUid,
            state: "in_progress",
            requested_at: isoTime(startedAt),
            deadline_at: isoTime(deadline)
          }
        }
      }
    }
    case "Terminal":
      return {
        coding_agent_service_uid: serviceUid,
        mode: "unavailable",
        rpc_url: null,
        token: null,
        expires_at: null,
        runtime_interaction: {
          state: decision.state,
          can_submit: false,
          notice: decision.notice === undefined ? defaultNotice(decision.state) : decision.notice,
          operation: null,
          retry_after_ms: null
        },
        runtime_presence: terminalPresence(decision.state),
        detail: decision.detail ?? defaultTerminalDetail(decision.state)
      }
    case "Legacy": {
      if (!decision.admit) {
        return {
          coding_agent_service_uid: serviceUid,
          mode: "unavailable",
          rpc_url: null,
          token: null,
          expires_at: null,
          detail: decision.detail ?? "The runtime is not available."
        }
      }
      const token = tokenFor(state, session, nowMs)
      return {
        coding_agent_service_uid: serviceUid,
        mode: "token",
        rpc_url: rpcUrl,
        token: token.value,
        expires_at: token.expiresAtMs === null ? null : isoTime(token.expiresAtMs),
        ...(decision.detail === undefined ? {} : { detail: decision.detail })
      }
    }
    case "ContractBreaking": {
      switch (decision.violation) {
        case "mode_not_token":
          return { ...readyAnswer(context, undefined), mode: "unavailable" }
        case "blank_rpc_url":
          return { ...readyAnswer(context, undefined), rpc_url: "" }
        case "null_rpc_url":
          return { ...readyAnswer(context, undefined), rpc_url: null }
        case "blank_token":
          return { ...readyAnswer(context, undefined, false), token: "" }
        case "null_token":
          return readyAnswer(context, undefined, false)
      }
    }
  }
}
