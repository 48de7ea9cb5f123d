/**
 * The SDK's `A2AClient` on a simulated platform, in one call: the testing kit
 * for code that uses `@mainsequence/a2a`. A scenario test is the scenario and
 * its assertions:
 *
 * ```ts
 * it.effect("answers after a cold start", () =>
 *   Effect.gen(function*() {
 *     const client = yield* A2AClient.A2AClient
 *     const fiber = yield* Effect.fork(client.sendA2AMessage(SimulatedA2AClient.sessionUid, { message: "hi" }))
 *     yield* TestClock.adjust("4 seconds")
 *     expect(A2AProtocol.textOf(yield* Fiber.join(fiber))).toEqual(["You said: hi"])
 *   }).pipe(Effect.provide(SimulatedA2AClient.layer({ access: coldStart }))))
 * ```
 *
 * Import it from `@mainsequence/a2a-testing/client`: the core of
 * `@mainsequence/a2a-testing` never imports the SDK; this module does
 * (`@mainsequence/a2a` is a peer dependency it needs).
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import { A2AClient, RuntimeAccessCache } from "@mainsequence/a2a"
import * as Layer from "effect/Layer"
import { layerTest } from "./index.js"
import type * as SessionScenario from "./SessionScenario.js"
import * as SimulatedPlatform from "./SimulatedPlatform.js"

/**
 * The uid of the session {@link layer} simulates (unless the scenario names another).
 *
 * @since 0.1.0
 * @category constants
 */
export const sessionUid = "0b2701a1-e777-4cfe-8437-b94025f00069"

/**
 * The uid of the session's Agent.
 *
 * @since 0.1.0
 * @category constants
 */
export const agentUid = "5c1d7e2a-3b4f-4a6c-9d8e-1f2a3b4c5d6e"

/**
 * The uid of the coding-agent service whose runtime answers the session.
 *
 * @since 0.1.0
 * @category constants
 */
export const serviceUid = "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"

/**
 * A session scenario where the uids are optional (the defaults above fill them in).
 *
 * @since 0.1.0
 * @category models
 */
export type Scenario =
  & Omit<SessionScenario.SessionScenarioInput, "sessionUid" | "agentUid" | "serviceUid">
  & Partial<Pick<SessionScenario.SessionScenarioInput, "sessionUid" | "agentUid" | "serviceUid">>

/**
 * A full scenario from a partial one: the default uids, then the given fields.
 *
 * @since 0.1.0
 * @category constructors
 */
export const session = (scenario: Scenario = {}): SessionScenario.SessionScenarioInput => ({
  sessionUid,
  agentUid,
  serviceUid,
  ...scenario
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** platform options (base URL, tokens, Message limit, more sessions) */
  readonly platform?: SimulatedPlatform.Options | undefined
  /** client options besides `backendUrl` and `accessToken` */
  readonly client?: Partial<Omit<A2AClient.A2AClientOptions, "backendUrl" | "accessToken">> | undefined
}

/**
 * The SDK client on a simulated platform that serves one session (the
 * scenario, with the default uids unless it names its own) plus any
 * `options.platform.sessions`, with an in-memory access cache. The platform
 * stays in context as `SimulatedPlatform.SimulatedPlatform` (request log,
 * counters, Tasks), and every delay runs on the `TestClock` in `it.effect`.
 *
 * An invalid scenario is a defect: the test fails with the decoding issue.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  scenario: Scenario = {},
  options: Options = {}
): Layer.Layer<
  | A2AClient.A2AClient
  | SimulatedPlatform.SimulatedPlatform
  | HttpClient.HttpClient
  | RuntimeAccessCache.RuntimeAccessCache
> => {
  const platformOptions = options.platform ?? {}
  const simulation = Layer.merge(
    layerTest({ ...platformOptions, sessions: [session(scenario), ...(platformOptions.sessions ?? [])] }),
    RuntimeAccessCache.layerMemory
  )
  return A2AClient.layer({
    backendUrl: (platformOptions.baseUrl ?? SimulatedPlatform.defaultBaseUrl).replace(/\/+$/, ""),
    accessToken: platformOptions.userAccessTokens?.[0] ?? SimulatedPlatform.defaultUserAccessToken,
    ...options.client
  }).pipe(Layer.provideMerge(simulation), Layer.orDie)
}
