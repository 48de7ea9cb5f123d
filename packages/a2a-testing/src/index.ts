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
 * The in-memory `HttpClient` face of the simulated platform.
 *
 * @since 0.1.0
 * @category modules
 */
export * as SimulatedHttpClient from "./SimulatedHttpClient.js"

/**
 * A simulated platform and an `HttpClient` that talks to it, for `it.effect`
 * tests. The platform stays reachable as `SimulatedPlatform.SimulatedPlatform`.
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
