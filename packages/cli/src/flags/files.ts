/**
 * Flags that name files. Not `Options.file`: in @effect/cli 0.77.2 it turns a path it cannot check (a
 * permission denied on a parent directory, a path through a regular file: `EACCES`, `ENOTDIR`) into a defect
 * (`Effect.orDie` around `FileSystem.exists`), which would exit 1 instead of 2, and it refuses anything but a
 * regular file, also for `--message-file /dev/stdin` or `<(…)`. Here every failure is a clear usage error.
 *
 * @since 0.1.0
 */
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { A2AError } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"

const reasons: Partial<Record<PlatformError.SystemErrorReason, string>> = {
  NotFound: "no such file",
  PermissionDenied: "permission denied",
  BadResource: "not a readable file"
}

const cannotRead = (field: string, path: string, why: string) =>
  new A2AError.A2AInputError({ field, reason: `cannot read ${JSON.stringify(path)} (${why})` })

const reasonOf = (error: PlatformError.PlatformError): string =>
  error._tag === "SystemError" ? (reasons[error.reason] ?? error.reason) : error.message

/**
 * The whole file at `path`, as UTF-8, unchanged (any readable file: also a pipe such as `/dev/stdin`).
 *
 * @since 0.1.0
 * @category files
 */
export const readTextFile = (
  field: string,
  path: string
): Effect.Effect<string, A2AError.A2AInputError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path, "utf-8")).pipe(
    Effect.mapError((error) => cannotRead(field, path, reasonOf(error)))
  )

/**
 * `path`, once it names an existing regular file (what an attachment must be).
 *
 * @since 0.1.0
 * @category files
 */
export const regularFile = (
  field: string,
  path: string
): Effect.Effect<string, A2AError.A2AInputError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(path)).pipe(
    Effect.mapError((error) => cannotRead(field, path, reasonOf(error))),
    Effect.filterOrFail((info) => info.type === "File", () => cannotRead(field, path, "not a regular file")),
    Effect.as(path)
  )
