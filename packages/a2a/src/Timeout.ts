/**
 * A call's time budget (SPEC §5): a number of seconds is one total budget; a `[connect, read]` pair keeps
 * those phase limits and has a total equal to their sum.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { A2AInputError } from "./A2AError.js"

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
export const toBudget = (timeout: Timeout | undefined): Effect.Effect<Budget, A2AInputError> => {
  const value = timeout ?? defaultTimeout
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
        JSON.stringify(value)
      })`
    })
  )
}
