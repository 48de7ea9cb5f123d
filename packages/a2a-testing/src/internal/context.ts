/**
 * What a route handler gets to work with.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as SessionScenario from "../SessionScenario.js"
import type { SimRequest } from "./model.js"
import type { MutableLogEntry, PlatformState } from "./state.js"

/** @internal */
export interface HandlerContext {
  readonly state: PlatformState
  /** base URL without a trailing slash */
  readonly baseUrl: string
  readonly messageLimitSeconds: number
  readonly rotateRefreshTokens: boolean
  readonly request: SimRequest
  /** request headers with lower-case names */
  readonly headers: Readonly<Record<string, string>>
  readonly path: string
  readonly entry: MutableLogEntry
}

/** @internal */
export const rpcUrlOf = (baseUrl: string, serviceUid: string): string => `${baseUrl}/runtimes/${serviceUid}/`

/**
 * The `rpc_url` the backend hands out for a session: the scenario's external
 * `rpcUrl` verbatim, else the simulation's own runtime.
 *
 * @internal
 */
export const sessionRpcUrl = (baseUrl: string, scenario: SessionScenario.SessionScenario): string =>
  scenario.rpcUrl ?? rpcUrlOf(baseUrl, scenario.serviceUid)

/** Sleeps for a scripted delay; `"forever"` never returns. @internal */
export const delay = (value: SessionScenario.Delay | undefined): Effect.Effect<void> =>
  value === undefined ? Effect.void : value === "forever" ? Effect.never : Effect.sleep(value)

/** `decodeURIComponent` that keeps a malformed segment as it is. @internal */
export const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
