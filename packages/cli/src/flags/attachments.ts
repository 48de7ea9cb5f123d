/**
 * `--file PATH`… and `--media-type TYPE`…: the n-th media type belongs to the n-th file. Each `--file` must
 * name an existing regular file (checked while the command line is parsed). Without any `--media-type`, each
 * file gets the SDK's default (only `.pdf` has one); with some, the counts must match. Reading, the 15 MiB
 * limit and the media-type rule are the SDK's (`Attachment.fromPath`).
 *
 * @since 0.1.0
 */
import * as Options from "@effect/cli/Options"
import type * as FileSystem from "@effect/platform/FileSystem"
import { A2AError, Attachment } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import { regularFile } from "./files.js"
import { validatedBy } from "./validated.js"

/**
 * `--file PATH`…: the paths of existing regular files.
 *
 * @since 0.1.0
 * @category options
 */
export const files = Options.text("file").pipe(
  Options.withPseudoName("PATH"),
  Options.withDescription("Attach a file (at most 15 MiB); repeat for more files"),
  Options.repeated,
  validatedBy((paths: ReadonlyArray<string>) => Effect.forEach(paths, (path) => regularFile("file", path)))
)

/**
 * `--media-type TYPE`….
 *
 * @since 0.1.0
 * @category options
 */
export const mediaTypes = Options.text("media-type").pipe(
  Options.withPseudoName("TYPE"),
  Options.withDescription("The media type of the n-th --file (.pdf files default to application/pdf)"),
  Options.repeated
)

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
