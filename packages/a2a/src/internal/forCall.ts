/**
 * A resolution shared through the cache (single flight) fails with the ids of the call that led it; each call
 * reports its own ids (and its own `messageMayHaveBeenSent`).
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as A2AError from "../A2AError.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import type { Call } from "./budget.js"

/** @internal */
export const forCall = (call: Call) => (error: RuntimeAccessCache.ResolveError) =>
  Effect.map(Ref.get(call.sent), (sent): RuntimeAccessCache.ResolveError => {
    if (error.agentSessionUid === call.agentSessionUid && error.messageId === call.messageId) return error
    const ids = { agentSessionUid: call.agentSessionUid, messageId: call.messageId }
    switch (error._tag) {
      case "NotLoggedInError":
        return new A2AError.NotLoggedInError({ ...error, ...ids })
      case "PermissionDeniedError":
        return new A2AError.PermissionDeniedError({ ...error, ...ids })
      case "SessionNotFoundError":
        return new A2AError.SessionNotFoundError({ ...error, ...ids })
      case "RateLimitedError":
        return new A2AError.RateLimitedError({ ...error, ...ids })
      case "BackendContractError":
        return new A2AError.BackendContractError({ ...error, ...ids })
      case "ServerError":
        return new A2AError.ServerError({ ...error, ...ids })
      case "AgentRuntimeNotReadyError":
        return new A2AError.AgentRuntimeNotReadyError({ ...error, ...ids })
      case "AgentRuntimeUnavailableError":
        return new A2AError.AgentRuntimeUnavailableError({ ...error, ...ids })
      case "A2ATransportError":
        return new A2AError.A2ATransportError({ ...error, ...ids, messageMayHaveBeenSent: sent })
      case "A2ATimeoutError":
        return new A2AError.A2ATimeoutError({
          ...error,
          ...ids,
          messageMayHaveBeenSent: sent,
          taskId: call.taskId,
          lastTask: undefined
        })
    }
  })
