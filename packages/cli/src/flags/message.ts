/**
 * `--message TEXT` / `--message-file PATH`: exactly one of them gives the message text. The file (`-`:
 * standard input) is read whole when the command runs, as UTF-8 (else refused), at most 15 MiB (the
 * attachments' limit); the SDK then refuses a blank message.
 *
 * @since 0.1.0
 */
import * as Options from "@effect/cli/Options"
import type * as FileSystem from "@effect/platform/FileSystem"
import { A2AError } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { readMessageFile } from "./files.js"

/**
 * `--message TEXT`.
 *
 * @since 0.1.0
 * @category options
 */
export const message = Options.text("message").pipe(
  Options.withPseudoName("TEXT"),
  Options.withDescription("The message text (this or --message-file is required)"),
  Options.optional
)

/**
 * `--message-file PATH`.
 *
 * @since 0.1.0
 * @category options
 */
export const messageFile = Options.text("message-file").pipe(
  Options.withPseudoName("PATH"),
  Options.withDescription(
    "Read the message text from this file, or from standard input with - (UTF-8, at most 15 MiB; this or --message " +
      "is required)"
  ),
  Options.optional
)

/**
 * @since 0.1.0
 * @category models
 */
export interface MessageFlags {
  readonly message: Option.Option<string>
  /** the path of the `--message-file` */
  readonly messageFile: Option.Option<string>
}

/**
 * The message text, from `--message` or the file `--message-file` names.
 *
 * @since 0.1.0
 * @category parsing
 */
export const messageText = (
  flags: MessageFlags
): Effect.Effect<string, A2AError.A2AInputError, FileSystem.FileSystem> =>
  Option.match(flags.message, {
    onSome: (text) =>
      Option.isSome(flags.messageFile)
        ? Effect.fail(
          new A2AError.A2AInputError({ field: "message", reason: "give --message or --message-file, not both" })
        )
        : Effect.succeed(text),
    onNone: () =>
      Option.match(flags.messageFile, {
        onNone: () =>
          Effect.fail(
            new A2AError.A2AInputError({ field: "message", reason: "give --message TEXT or --message-file PATH" })
          ),
        onSome: (path) => readMessageFile("message-file", path)
      })
  })
