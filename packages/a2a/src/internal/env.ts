/**
 * What the steps of a call share: the HTTP client, the backend client, the cache and its key.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as SubscriptionRef from "effect/SubscriptionRef"
import type { A2AInputError } from "../A2AError.js"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import type { BackendClient } from "./backendClient.js"
import type { SessionWait } from "./budget.js"

/** @internal */
export interface Env {
  readonly client: HttpClient.HttpClient
  readonly backend: BackendClient
  readonly cache: RuntimeAccessCache.Service
  /** Fails when the client's options are unusable (blank backend URL or access token). */
  readonly ready: Effect.Effect<void, A2AInputError>
  /** The cache key of a session: a hash of backend URL, user and session uid. */
  readonly cacheKey: (agentSessionUid: string) => string
  /** The largest answer read, in bytes. */
  readonly maxResponseBytes: number
  /** The last transient answer of a session's resolution under way, shared by the calls waiting on it. */
  readonly sessionWaitingFor: (
    agentSessionUid: string
  ) => Effect.Effect<SubscriptionRef.SubscriptionRef<Option.Option<SessionWait>>>
}
