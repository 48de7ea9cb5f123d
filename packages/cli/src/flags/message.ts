/**
 * `--message TEXT` / `--message-file PATH`: exactly one of them gives the message text. The file is read
 * whole, as UTF-8, unchanged; the SDK then refuses a blank message.
 *
 * @since 0.1.0
 */
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { A2AError } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * @since 0.1.0
 * @category models
 */
export interface MessageFlags {
  readonly message: Option.Option<string>
  readonly messageFile: Option.Option<string>
}

const readableReasons: Partial<Record<PlatformError.SystemErrorReason, string>> = {
  NotFound: "no such file",
  PermissionDenied: "permission denied",
  BadResource: "not a readable file"
}

/**
 * The message text, from `--message` or the contents of `--message-file`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const readMessage = (
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
        onSome: (path) =>
          Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path, "utf-8")).pipe(
            Effect.mapError((error) =>
              new A2AError.A2AInputError({
                field: "message-file",
                reason: `cannot read ${JSON.stringify(path)} (${
                  error._tag === "SystemError" ? (readableReasons[error.reason] ?? error.reason) : error.message
                })`
              })
            )
          )
      })
  })
