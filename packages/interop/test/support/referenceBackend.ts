/**
 * The backend of every suite: the reference platform of `@mainsequence/a2a-testing` (its node face on
 * 127.0.0.1:0), with sessions whose scenario names an external `rpc_url` (the official A2A server, a fault
 * runtime, a closed port). It plays SPEC §3 resolve (ready, cold starts, stuck and terminal states, faults
 * and hangs), the discovery routes and the user-token refresh, and mints the runtime tokens
 * (`msim-runtime-<n>-<hex>`) the runtimes under test accept.
 */
import type { SessionScenario, SimulatedPlatform } from "@mainsequence/a2a-testing"
import { type ServeOptions, serveReferencePlatform } from "@mainsequence/a2a-testing/node"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import type { ScenarioContext } from "./scenario.js"
import { secrets } from "./secrets.js"

/** Runtime tokens the reference platform mints. */
export const simulatorRuntimeToken = /^msim-runtime-\d+-[0-9a-f]{32}$/

/** A discovery profile that advertises Task mode (what a caller may pass as `agentProfile`). */
export const taskProfile = {
  response_kind_extension_uri: "https://mainsequence.ai/a2a/extensions/response-kind/v1",
  supported_response_kinds: ["message", "task"],
  default_response_kind: "message"
}

export interface ReferenceBackend {
  /** The backend URL for clients. */
  readonly url: string
  readonly platform: SimulatedPlatform.Service
  readonly counters: () => Promise<SimulatedPlatform.Counters>
  readonly requestLog: () => Promise<ReadonlyArray<SimulatedPlatform.RequestLogEntry>>
  /** resolve-runtime-access calls for a session. */
  readonly resolves: (sessionUid: string) => Promise<number>
  /** When the backend received its first request, on `performance.now()`'s scale (undefined: none yet). */
  readonly firstRequestAt: () => Promise<number | undefined>
  readonly close: () => Promise<void>
}

/**
 * Serves the reference platform with `sessions` (no demo sessions); the user accepts `secrets.userAccess`
 * and the refresh token `secrets.userRefresh` unless `options` say otherwise.
 */
export const startReferenceBackend = async (
  sessions: ReadonlyArray<SessionScenario.SessionScenarioInput>,
  options: Omit<ServeOptions, "sessions" | "demoSessions"> = {}
): Promise<ReferenceBackend> => {
  const scope = Effect.runSync(Scope.make())
  const served = await Effect.runPromise(
    serveReferencePlatform({
      userAccessTokens: [Redacted.make(secrets.userAccess)],
      refreshTokens: [Redacted.make(secrets.userRefresh)],
      ...options,
      demoSessions: false,
      sessions
    }).pipe(Scope.extend(scope))
  ).catch(async (error: unknown) => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  })
  const { platform } = served
  const requestLog = () => Effect.runPromise(platform.requestLog)
  return {
    url: served.url,
    platform,
    counters: () => Effect.runPromise(platform.counters),
    requestLog,
    resolves: async (sessionUid) => (await Effect.runPromise(platform.counters)).resolveCalls[sessionUid] ?? 0,
    firstRequestAt: async () => {
      const first = (await requestLog())[0]
      // the node face runs on the real clock (epoch ms)
      return first === undefined ? undefined : first.atMs - performance.timeOrigin
    },
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** {@link startReferenceBackend}, closed when the scenario ends. */
export const referenceBackend = async (
  ctx: ScenarioContext,
  sessions: ReadonlyArray<SessionScenario.SessionScenarioInput>,
  options?: Omit<ServeOptions, "sessions" | "demoSessions">
): Promise<ReferenceBackend> => {
  const backend = await startReferenceBackend(sessions, options)
  ctx.defer(() => backend.close())
  return backend
}
