/**
 * Reads a number written on the command line. Only the spelling is checked here; what values are allowed is
 * the SDK's rule (it sees `Infinity`, `0` or `1.5` as given). @effect/cli's own integer flags answer
 * "'1.5' is not a integer"; these answer like every other flag (`Invalid port: expected an integer …`).
 *
 * @since 0.1.0
 */
import { A2AError } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"

const numberSyntax = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?Infinity$/

/**
 * @since 0.1.0
 * @category parsing
 */
export const parseNumber = (field: string, text: string): Effect.Effect<number, A2AError.A2AInputError> =>
  numberSyntax.test(text.trim())
    ? Effect.succeed(Number(text.trim()))
    : Effect.fail(new A2AError.A2AInputError({ field, reason: `expected a number (got ${JSON.stringify(text)})` }))

const integerSyntax = /^[+-]?\d+$/

/**
 * @since 0.2.0
 * @category parsing
 */
export const parseInteger = (field: string, text: string): Effect.Effect<number, A2AError.A2AInputError> =>
  integerSyntax.test(text.trim())
    ? Effect.succeed(Number(text.trim()))
    : Effect.fail(new A2AError.A2AInputError({ field, reason: `expected an integer (got ${JSON.stringify(text)})` }))
