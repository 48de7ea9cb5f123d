/**
 * `--timeout SECONDS` or `--timeout CONNECT,READ`: the command-line spelling of the SDK's `Timeout`.
 * Only the spelling is read here; the SDK validates the values (positive, finite) before anything is sent.
 *
 * @since 0.1.0
 */
import { A2AError, Timeout } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"

const toNumber = (text: string): number => (text.trim() === "" ? Number.NaN : Number(text.trim()))

/**
 * Parses the flag's text and validates it with the SDK's rule, so an invalid value is refused before the
 * call starts (and before any other step of the command).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseTimeout = (text: string): Effect.Effect<Timeout.Timeout, A2AError.A2AInputError> => {
  const parts = text.split(",")
  const timeout: Timeout.Timeout | undefined = parts.length === 1
    ? toNumber(text)
    : parts.length === 2
    ? [toNumber(parts[0] ?? ""), toNumber(parts[1] ?? "")]
    : undefined
  return timeout === undefined
    ? Effect.fail(
      new A2AError.A2AInputError({
        field: "timeout",
        reason: `expected SECONDS or CONNECT,READ in seconds (got ${JSON.stringify(text)})`
      })
    )
    : Effect.as(Timeout.toBudget(timeout), timeout)
}
