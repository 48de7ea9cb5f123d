/**
 * Typed flags: a flag's value is checked while the command line is parsed, by the same rule and with the same
 * one-line message as before (an `A2AInputError`'s). A refused value is a usage error (exit 2, SPEC §8) and
 * the command never starts, so nothing is sent.
 *
 * @since 0.1.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import type * as FileSystem from "@effect/platform/FileSystem"
import type { A2AError } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"

/**
 * The options whose values `check` turns into typed values; its `A2AInputError` becomes the parse error.
 *
 * @since 0.1.0
 * @category combinators
 */
export const validatedBy = <A, B>(
  check: (value: A) => Effect.Effect<B, A2AError.A2AInputError, FileSystem.FileSystem>
) =>
(self: Options.Options<A>): Options.Options<B> =>
  Options.mapEffect(
    self,
    (value) => Effect.mapError(check(value), (error) => ValidationError.invalidValue(HelpDoc.p(error.message)))
  )
