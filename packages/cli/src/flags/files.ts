/**
 * Flags that name files. Not `Options.file`: in @effect/cli 0.77.2 it turns a path it cannot check (a
 * permission denied on a parent directory, a path through a regular file: `EACCES`, `ENOTDIR`) into a defect
 * (`Effect.orDie` around `FileSystem.exists`), which would exit 1 instead of 2, and it refuses anything but a
 * regular file, also for `--message-file /dev/stdin` or `<(…)`. Here every failure is a clear usage error.
 *
 * @since 0.1.0
 */
import * as NodeStream from "@effect/platform-node/NodeStream"
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { A2AError, Attachment } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Net from "node:net"

// `named`: the path as JSON, or "standard input".
const cannotRead = (field: string, named: string, why: string) =>
  new A2AError.A2AInputError({ field, reason: `cannot read ${named} (${why})` })

const reasonOf = (error: PlatformError.PlatformError): string =>
  error._tag === "SystemError" ? errnoReason(error.cause) : error.message

const isADirectory = "a directory"

const errnoReasons: Record<string, string> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: isADirectory,
  ENOTDIR: "a part of the path is not a directory",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "the path is too long"
}

const errnoReason = (error: unknown): string => {
  const code = Predicate.hasProperty(error, "code") ? error.code : undefined
  return (typeof code === "string" && Object.hasOwn(errnoReasons, code) ? errnoReasons[code] : undefined) ??
    "not a readable file"
}

/**
 * The path that names standard input.
 *
 * @since 0.2.0
 * @category files
 */
export const standardInput = "-"

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * The whole file at `path` (`-`: standard input), as UTF-8, at most `Attachment.maxBytes` (15 MiB): a larger
 * regular file is refused from its size, and a pipe (standard input, `/dev/stdin`, `<(…)`) as soon as it has
 * given more, with the same kind of error as any other unreadable file. Bytes that are not UTF-8 are refused.
 *
 * @since 0.2.0
 * @category files
 */
export const readMessageFile = (
  field: string,
  path: string
): Effect.Effect<string, A2AError.A2AInputError, FileSystem.FileSystem> => {
  const named = path === standardInput ? "standard input" : JSON.stringify(path)
  const tooLarge = new A2AError.A2AInputError({
    field,
    reason: `${named} is more than the limit of ${Attachment.maxBytes} bytes (15 MiB)`
  })
  const unreadable = (error: unknown) => cannotRead(field, named, errnoReason(error))
  const fromStream = (readable: () => NodeJS.ReadableStream) =>
    boundedBytes(NodeStream.fromReadable(readable, unreadable), tooLarge)
  const bytes = path === standardInput
    // Node reads a directory on standard input as empty: it is refused as a named directory is.
    ? Effect.flatMap(
      Effect.try({ try: () => Fs.fstatSync(0).isDirectory(), catch: unreadable }),
      (directory) => directory ? Effect.fail(cannotRead(field, named, isADirectory)) : fromStream(() => process.stdin)
    )
    : Effect.flatMap(FileSystem.FileSystem, (fs) => {
      const platform = (error: PlatformError.PlatformError) => cannotRead(field, named, reasonOf(error))
      return Effect.flatMap(Effect.mapError(fs.stat(path), platform), (info) =>
        info.type === "File"
          ? info.size > Attachment.maxBytes
            ? Effect.fail(tooLarge)
            : Effect.mapError(fs.readFile(path), platform)
          : info.type === "Directory"
          ? Effect.fail(cannotRead(field, named, isADirectory))
          : info.type === "FIFO"
          ? Effect.flatMap(openFifo(path, unreadable), (fd) =>
            fromStream(() => new Net.Socket({ fd, readable: true, writable: false })))
          // A device: its size is unknown until it has been read.
          : fromStream(() =>
            Fs.createReadStream(path)
          ))
    })
  return Effect.flatMap(bytes, (all) =>
    Effect.try({
      try: () => utf8.decode(all),
      catch: () =>
        new A2AError.A2AInputError({
          field,
          reason: `${named} is not UTF-8 text (send other files as attachments, with --file)`
        })
    }))
}

// Opened without blocking and read through the event loop: a blocking open of a FIFO with no writer holds a
// thread of Node's pool, and Node does not exit (after Ctrl-C either) until that thread returns.
const openFifo = (path: string, onError: (error: unknown) => A2AError.A2AInputError) =>
  Effect.try({ try: () => Fs.openSync(path, Fs.constants.O_RDONLY | Fs.constants.O_NONBLOCK), catch: onError })

const boundedBytes = (
  stream: Stream.Stream<Uint8Array, A2AError.A2AInputError>,
  tooLarge: A2AError.A2AInputError
): Effect.Effect<Uint8Array, A2AError.A2AInputError> =>
  Stream.runFoldEffect(stream, { chunks: new Array<Uint8Array>(), size: 0 }, (read, chunk) => {
    const size = read.size + chunk.byteLength
    if (size > Attachment.maxBytes) return Effect.fail(tooLarge)
    read.chunks.push(chunk)
    return Effect.succeed({ chunks: read.chunks, size })
  }).pipe(Effect.map(({ chunks, size }) => {
    const all = new Uint8Array(size)
    chunks.reduce((offset, chunk) => (all.set(chunk, offset), offset + chunk.byteLength), 0)
    return all
  }))

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
    Effect.mapError((error) => cannotRead(field, JSON.stringify(path), reasonOf(error))),
    Effect.filterOrFail(
      (info) => info.type === "File",
      (info) => cannotRead(field, JSON.stringify(path), info.type === "Directory" ? isADirectory : "not a regular file")
    ),
    Effect.as(path)
  )
