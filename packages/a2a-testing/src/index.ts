/**
 * A simulated Main Sequence platform (backend, Agent runtime, deterministic
 * Agent) for testing A2A code under `TestClock`.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Layer from "effect/Layer"
import type * as SessionScenario from "./SessionScenario.js"
import * as SimulatedHttpClient from "./SimulatedHttpClient.js"
import * as SimulatedPlatform from "./SimulatedPlatform.js"

/**
 * A2A v1 JSON Schema conformance checks (the vendored A2A v1 bundle), reusable
 * by other test suites.
 *
 * @since 0.1.0
 * @category modules
 */
export * as A2ASchema from "./A2ASchema.js"

/**
 * JSON-serialisable session scenarios.
 *
 * @since 0.1.0
 * @category modules
 */
export * as SessionScenario from "./SessionScenario.js"

/**
 * The simulated platform service (the state machine).
 *
 * @since 0.1.0
 * @category modules
 */
export * as SimulatedPlatform from "./SimulatedPlatform.js"

/**
 * The reference platform's demo sessions (plain scenarios).
 *
 * @since 0.1.0
 * @category modules
 */
export * as DemoSessions from "./DemoSessions.js"

/**
 * The in-memory `HttpClient` face of the simulated platform.
 *
 * @since 0.1.0
 * @category modules
 */
export * as SimulatedHttpClient from "./SimulatedHttpClient.js"

/**
 * Long waits played cheaply: an effect run to its end with simulated time, in `TestClock`'s order,
 * without `TestClock.adjust`'s real-time yields.
 *
 * @since 0.1.0
 * @category modules
 */
export * as SimulatedTime from "./SimulatedTime.js"

/**
 * A simulated platform and an `HttpClient` that talks to it, for `it.effect`
 * tests. The platform stays reachable as `SimulatedPlatform.SimulatedPlatform`.
 *
 * @example
 * import { HttpClient, HttpClientRequest } from "@effect/platform"
 * import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
 * import { Effect } from "effect"
 *
 * const session = {
 *   sessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
 *   agentUid: "5a1c7d0e-3b4f-4e2a-9c8d-7f6e5d4c3b2a",
 *   serviceUid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"
 * }
 *
 * // The code under test uses the HttpClient in context; its requests reach the simulation, in memory.
 * const resolve = (sessionUid: string) =>
 *   Effect.flatMap(HttpClient.HttpClient, (client) =>
 *     client.execute(
 *       HttpClientRequest.post(
 *         `${SimulatedPlatform.defaultBaseUrl}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`
 *       ).pipe(HttpClientRequest.bearerToken(SimulatedPlatform.defaultUserAccessToken))
 *     ))
 *
 * // The body of an `it.effect` test: status 200, one resolve call counted.
 * export const test = Effect.gen(function*() {
 *   const response = yield* resolve(session.sessionUid)
 *   const platform = yield* SimulatedPlatform.SimulatedPlatform
 *   const counters = yield* platform.counters
 *   return { status: response.status, resolveCalls: counters.resolveCalls[session.sessionUid] }
 * }).pipe(Effect.provide(layerTest({ sessions: [session] })))
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTest = (
  options: SimulatedPlatform.Options = {}
): Layer.Layer<
  SimulatedPlatform.SimulatedPlatform | HttpClient.HttpClient,
  SessionScenario.InvalidScenarioError
> => SimulatedHttpClient.layer.pipe(Layer.provideMerge(SimulatedPlatform.layer(options)))
