/**
 * Files sent with a message as inline parts (SPEC §2): at most 15 MiB each; without a media type only a
 * `.pdf` name is accepted (as `application/pdf`).
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import { A2AInputError } from "./A2AError.js"
import { notAStringReason } from "./internal/describeValue.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Attachment {
  readonly filename: string
  readonly mediaType: string
  readonly bytes: Uint8Array
}

/**
 * The largest file that may be sent: 15 MiB (15 × 1024 × 1024 bytes is still allowed).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxBytes: number = 15 * 1024 * 1024

/**
 * Fails unless a file of `size` bytes fits the 15 MiB limit; the error names the file and its size.
 *
 * @since 0.1.0
 * @category validation
 */
export const checkSize = (filename: string, size: number): Effect.Effect<void, A2AInputError> =>
  size <= maxBytes
    ? Effect.void
    : Effect.fail(
      new A2AInputError({
        field: "attachments",
        reason: `${filename} is ${size} bytes, more than the limit of ${maxBytes} bytes (15 MiB)`
      })
    )

/**
 * The media type of a file: the given one (trimmed), else `application/pdf` for a `.pdf` name, else an error.
 *
 * @since 0.1.0
 * @category validation
 */
export const resolveMediaType = (
  filename: string,
  mediaType?: string | undefined
): Effect.Effect<string, A2AInputError> => {
  if (mediaType !== undefined && typeof mediaType !== "string") {
    return Effect.fail(
      new A2AInputError({
        field: "attachments",
        reason: `${filename}: mediaType ${notAStringReason(mediaType)}`
      })
    )
  }
  const given = mediaType?.trim()
  if (given !== undefined && given !== "") return Effect.succeed(given)
  if (filename.toLowerCase().endsWith(".pdf")) return Effect.succeed("application/pdf")
  return Effect.fail(
    new A2AInputError({
      field: "attachments",
      reason: `${filename} needs a media type (only .pdf files get one by default)`
    })
  )
}

/**
 * An attachment from bytes in memory; its file name must not be blank.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromBytes = (
  filename: string,
  bytes: Uint8Array,
  mediaType?: string | undefined
): Effect.Effect<Attachment, A2AInputError> =>
  Effect.gen(function*() {
    // What an untyped caller may pass: the checks below need a name and bytes.
    if (typeof filename !== "string") {
      return yield* notAString("a file name", filename)
    }
    if (filename.trim() === "") {
      return yield* new A2AInputError({ field: "attachments", reason: "a file name must not be blank" })
    }
    if (!(bytes instanceof Uint8Array)) {
      return yield* new A2AInputError({ field: "attachments", reason: `${filename}: bytes must be a Uint8Array` })
    }
    yield* checkSize(filename, bytes.byteLength)
    const type = yield* resolveMediaType(filename, mediaType)
    return { filename, mediaType: type, bytes }
  })

const notAString = (what: string, value: unknown) =>
  new A2AInputError({ field: "attachments", reason: `${what} ${notAStringReason(value)}` })

const baseName = (path: string): string => path.split(/[\\/]/).filter((s) => s !== "").pop() ?? path

/**
 * An attachment read from a file. The size is checked before the file is read, so an oversized file is
 * refused without loading it; a missing or unreadable file is an `A2AInputError` naming it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromPath = (
  path: string,
  mediaType?: string | undefined
): Effect.Effect<Attachment, A2AInputError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    if (typeof path !== "string") return yield* notAString("a path", path)
    const fs = yield* FileSystem.FileSystem
    const filename = baseName(path)
    const type = yield* resolveMediaType(filename, mediaType)
    const unreadable = (why: string) =>
      new A2AInputError({ field: "attachments", reason: `cannot read ${path}: ${why}` })
    const info = yield* fs.stat(path).pipe(
      Effect.mapError((error) => unreadable(error._tag === "SystemError" ? error.reason : "bad argument"))
    )
    if (info.type !== "File") return yield* Effect.fail(unreadable("not a file"))
    yield* checkSize(filename, Number(info.size))
    const bytes = yield* fs.readFile(path).pipe(
      Effect.mapError((error) => unreadable(error._tag === "SystemError" ? error.reason : "bad argument"))
    )
    // The file may have grown between stat and read.
    yield* checkSize(filename, bytes.byteLength)
    return { filename, mediaType: type, bytes }
  })
