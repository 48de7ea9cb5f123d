/**
 * `--file PATH`… and `--media-type TYPE`…: the n-th media type belongs to the n-th file. Without any
 * `--media-type`, each file gets the SDK's default (only `.pdf` has one); with some, the counts must match.
 * Reading, the 15 MiB limit and the media-type rule are the SDK's (`Attachment.fromPath`).
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import { A2AError, Attachment } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"

/**
 * @since 0.1.0
 * @category models
 */
export interface AttachmentFlags {
  readonly files: ReadonlyArray<string>
  readonly mediaTypes: ReadonlyArray<string>
}

/**
 * Reads the attachments named on the command line.
 *
 * @since 0.1.0
 * @category parsing
 */
export const readAttachments = (
  flags: AttachmentFlags
): Effect.Effect<ReadonlyArray<Attachment.Attachment>, A2AError.A2AInputError, FileSystem.FileSystem> =>
  flags.mediaTypes.length > 0 && flags.mediaTypes.length !== flags.files.length
    ? Effect.fail(
      new A2AError.A2AInputError({
        field: "media-type",
        reason: `give one --media-type per --file (got ${flags.mediaTypes.length} for ${flags.files.length} ${
          flags.files.length === 1 ? "file" : "files"
        })`
      })
    )
    : Effect.forEach(flags.files, (path, index) => Attachment.fromPath(path, flags.mediaTypes[index]))
