/**
 * `--timeout SECONDS` or `--timeout CONNECT,READ`: the command-line spelling of the SDK's `Timeout`.
 * Only the spelling is read here; the SDK validates the values (positive, finite) before anything is sent.
 *
 * @since 0.1.0
 */
import { A2AError, Timeout } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import { parseNumber } from "./number.js"

/**
 * Parses the flag's text and validates it with the SDK's rule, so an invalid value is refused before the
 * call starts (and before any other step of the command).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseTimeout = (text: string): Effect.Effect<Timeout.Timeout, A2AError.A2AInputError> => {
  const spelling = new A2AError.A2AInputError({
    field: "timeout",
    reason: `expected SECONDS or CONNECT,READ in seconds (got ${JSON.stringify(text)})`
  })
  const parts = text.split(",")
  const timeout: Effect.Effect<Timeout.Timeout, A2AError.A2AInputError> = parts.length === 1
    ? parseNumber("timeout", text)
    : parts.length === 2
    ? Effect.all([parseNumber("timeout", parts[0] ?? ""), parseNumber("timeout", parts[1] ?? "")])
    : Effect.fail(spelling)
  return timeout.pipe(
    Effect.mapError(() => spelling),
    Effect.tap(Timeout.toBudget)
  )
}
