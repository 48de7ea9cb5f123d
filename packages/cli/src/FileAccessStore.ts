/**
 * The CLI's persistent runtime-access store (SPEC §6): `runtime_access_cache.json` in the config directory.
 *
 * - the directory is created with mode 0700 when missing, the file always has mode 0600;
 * - every write replaces the file atomically: a temp file (mode 0600) in the same directory, then a rename;
 * - the format is versioned (`{"version": 1, "entries": {…}}`); a missing, unreadable, corrupt or
 *   foreign-version file reads as empty and is replaced by the next write — never a crash;
 * - a file over {@link maxFileBytes} or nested deeper than {@link maxFileDepth} is corrupt too: its size is
 *   checked before it is read, its nesting before it is parsed, so a hostile file costs a send milliseconds;
 * - only a regular file of the user's own that no one else may read or write is read (opened without
 *   following a link or waiting on a FIFO); anything else at that path reads as empty;
 * - an entry whose `rpcUrl` is not an absolute `http:` / `https:` URL, or whose token an HTTP header cannot
 *   carry, makes the file corrupt (never sent to);
 * - a write merges with the file's content read right before it, so concurrent CLI processes keep each
 *   other's entries as far as possible and never leave a torn file (the rename is atomic).
 *
 * The store never fails: a cache that cannot be read or written only costs a resolve call.
 *
 * @since 0.1.0
 */
import * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { RuntimeAccessCache } from "@mainsequence/a2a"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Record from "effect/Record"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import { makePrivateDirectory } from "./internal/privateDirectory.js"

/**
 * The file name of the cache inside the config directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const fileName = "runtime_access_cache.json"

/**
 * The current version of the file format.
 *
 * @since 0.1.0
 * @category constants
 */
export const formatVersion = 1

/**
 * The largest cache file read, in bytes. An entry is about 1.5 KB (a JWT and a URL, pretty-printed), and
 * the file keeps only live entries: 1 MiB holds some 700 sessions in use at once, far more than anyone has.
 *
 * @since 0.2.0
 * @category constants
 */
export const maxFileBytes = 1024 * 1024

/**
 * The deepest nesting read: the format is 3 levels deep (file, entries, entry); the rest is room to grow.
 *
 * @since 0.2.0
 * @category constants
 */
export const maxFileDepth = 8

const Entry = Schema.Struct({
  rpcUrl: RuntimeAccessCache.StoredRpcUrl,
  token: RuntimeAccessCache.StoredToken,
  validUntilMillis: Schema.Finite,
  serviceUid: Schema.optional(Schema.String)
})

type Entry = typeof Entry.Type

/**
 * The on-disk format, version 1.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CacheFile = Schema.Struct({
  version: Schema.Literal(formatVersion),
  entries: Schema.Record({ key: Schema.String, value: Entry })
})

/**
 * @since 0.1.0
 * @category models
 */
export type CacheFile = typeof CacheFile.Type

const decodeCacheFile = RuntimeAccessCache.decodeStoredJson(CacheFile, maxFileDepth)

const toEntry = (access: RuntimeAccessCache.CachedRuntimeAccess): Entry => ({
  rpcUrl: access.rpcUrl,
  token: Redacted.value(access.token),
  validUntilMillis: access.validUntilMillis,
  ...(access.serviceUid === undefined ? {} : { serviceUid: access.serviceUid })
})

const fromEntry = (entry: Entry): RuntimeAccessCache.CachedRuntimeAccess => ({
  rpcUrl: entry.rpcUrl,
  token: Redacted.make(entry.token),
  validUntilMillis: entry.validUntilMillis,
  ...(entry.serviceUid === undefined ? {} : { serviceUid: entry.serviceUid })
})

/**
 * The text of `filePath` if it is a regular file of this user's, of mode 0600 or stricter, of at most
 * {@link maxFileBytes}. The checks run on the open file, so nothing can be swapped in between.
 */
const readPrivateFile = (filePath: string): Effect.Effect<Option.Option<string>> =>
  Effect.tryPromise(async () => {
    const { O_NOFOLLOW = 0, O_NONBLOCK = 0, O_RDONLY } = NodeFs.constants
    const handle = await NodeFs.promises.open(filePath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    try {
      const info = await handle.stat()
      const uid = process.getuid?.()
      const ownAndPrivate = uid === undefined || (info.uid === uid && (info.mode & 0o077) === 0)
      if (!info.isFile() || !ownAndPrivate || info.size > maxFileBytes) return Option.none<string>()
      const bytes = Buffer.alloc(info.size)
      const { bytesRead } = await handle.read(bytes, 0, info.size, 0)
      return Option.some(bytes.toString("utf8", 0, bytesRead))
    } finally {
      await handle.close()
    }
  }).pipe(Effect.orElseSucceed(() => Option.none<string>()))

/**
 * @since 0.1.0
 * @category models
 */
export interface FileAccessStoreOptions {
  /** The config directory (`MAINSEQUENCE_CONFIG_DIR`). */
  readonly directory: string
}

/**
 * A `RuntimeAccessStore` backed by `runtime_access_cache.json` in `options.directory`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: FileAccessStoreOptions
): Effect.Effect<RuntimeAccessCache.RuntimeAccessStore, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const filePath = path.join(options.directory, fileName)
    // One read-modify-write at a time inside this process; across processes the rename keeps the file whole.
    const writeLock = yield* Effect.makeSemaphore(1)

    const readEntries: Effect.Effect<Record.ReadonlyRecord<string, Entry>> = readPrivateFile(filePath).pipe(
      Effect.map((text) => Option.flatMap(text, decodeCacheFile)),
      Effect.map(Option.match({ onNone: () => ({}), onSome: (file) => file.entries }))
    )

    const writeEntries = (entries: Record.ReadonlyRecord<string, Entry>) =>
      Effect.gen(function*() {
        yield* Effect.try({
          try: () => makePrivateDirectory(options.directory),
          catch: (cause) =>
            new PlatformError.SystemError({
              reason: "Unknown",
              module: "FileSystem",
              method: "makeDirectory",
              pathOrDescriptor: options.directory,
              description: cause instanceof Error ? cause.message : String(cause)
            })
        })
        const suffix = (yield* Random.nextInt).toString(36)
        const tempPath = path.join(options.directory, `.${fileName}.${process.pid}.${suffix}.tmp`)
        const file: CacheFile = { version: formatVersion, entries }
        yield* fs.writeFileString(tempPath, JSON.stringify(file, null, 2) + "\n", { flag: "wx", mode: 0o600 }).pipe(
          // `mode` only applies on creation and is subject to the umask: make 0600 explicit.
          Effect.zipRight(fs.chmod(tempPath, 0o600)),
          Effect.zipRight(fs.rename(tempPath, filePath)),
          Effect.tapError(() => fs.remove(tempPath).pipe(Effect.ignore))
        )
      })

    const update = (
      f: (entries: Record.ReadonlyRecord<string, Entry>, now: number) => Record.ReadonlyRecord<string, Entry>
    ) =>
      writeLock.withPermits(1)(
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const latest = yield* readEntries
          const live = Record.filter(latest, (entry) => entry.validUntilMillis > now)
          yield* writeEntries(f(live, now))
        })
      ).pipe(
        Effect.catchAll((error) => Effect.logDebug("runtime access cache not written", error.message))
      )

    return {
      get: (key) => readEntries.pipe(Effect.map((entries) => Option.map(Record.get(entries, key), fromEntry))),
      set: (key, access) => update((entries) => ({ ...entries, [key]: toEntry(access) })),
      remove: (key) => update((entries) => Record.remove(entries, key))
    }
  })
