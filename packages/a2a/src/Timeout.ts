/**
 * A call's time budget (SPEC §5): a number of seconds is one total budget; a `[connect, read]` pair keeps
 * those phase limits and has a total equal to their sum.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import { A2AInputError } from "./A2AError.js"
import { currentConnectPhase } from "./internal/connectPhase.js"
import { describeValue } from "./internal/describeValue.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Timeout = number | readonly [connect: number, read: number]

/**
 * A validated budget.
 *
 * @since 0.1.0
 * @category models
 */
export interface Budget {
  readonly total: Duration.Duration
  readonly connect: Duration.Duration | undefined
  readonly read: Duration.Duration | undefined
  /** The total in seconds, for messages. */
  readonly totalSeconds: number
}

/**
 * The default budget: `[5, 900]`, a total of 905 seconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTimeout: Timeout = [5, 900]

const isPositiveFinite = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n > 0

/**
 * Validates a timeout (positive, finite) into a {@link Budget}; `undefined` means the default.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toBudget = (timeout: Timeout | undefined): Effect.Effect<Budget, A2AInputError> =>
  timeout === undefined ? defaultBudget : budgetOf(timeout)

const budgetOf = (value: Timeout): Effect.Effect<Budget, A2AInputError> => {
  if (typeof value === "number") {
    return isPositiveFinite(value)
      ? Effect.succeed({ total: Duration.seconds(value), connect: undefined, read: undefined, totalSeconds: value })
      : Effect.fail(
        new A2AInputError({
          field: "timeout",
          reason: `must be a positive, finite number of seconds (got ${String(value)})`
        })
      )
  }
  if (Array.isArray(value) && value.length === 2 && isPositiveFinite(value[0]) && isPositiveFinite(value[1])) {
    const [connect, read] = value
    return Effect.succeed({
      total: Duration.seconds(connect + read),
      connect: Duration.seconds(connect),
      read: Duration.seconds(read),
      totalSeconds: connect + read
    })
  }
  return Effect.fail(
    new A2AInputError({
      field: "timeout",
      reason: `must be a positive, finite number of seconds or a [connect, read] pair of them (got ${
        describeValue(value)
      })`
    })
  )
}

// Made once: most calls take the default, and a call in flight keeps its budget.
const defaultBudget = budgetOf(defaultTimeout)

/**
 * Tells the exchange under way that its connection is up and its request is on its way: from now on its
 * response head must arrive within the `read` limit of a `[connect, read]` budget. An `HttpClient` that can
 * see its connect phase runs this when it has connected (the Node layer does, from undici). With a generic
 * `HttpClient` that never runs it, the phases cannot be told apart and the head may take connect + read
 * from the moment the request is handed to the client (reported as the `response-head` limit).
 *
 * @since 0.1.0
 * @category http
 */
export const markConnected: Effect.Effect<void> = Effect.flatMap(
  FiberRef.get(currentConnectPhase),
  (phase) => Effect.sync(() => phase.onConnected())
)

/**
 * An `HttpClient` without a connect phase (in memory, such as a simulated platform): each request counts as
 * connected as soon as it is executed, so `read` bounds its response head exactly.
 *
 * @since 0.1.0
 * @category http
 */
export const withInstantConnect = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.tapRequest(client, () => markConnected)

/**
 * {@link withInstantConnect} for the `HttpClient` in context.
 *
 * @since 0.1.0
 * @category http
 */
export const layerInstantConnect: Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient> = Layer.effect(
  HttpClient.HttpClient,
  Effect.map(HttpClient.HttpClient, withInstantConnect)
)
