import { NodeContext } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { execFileSync } from "node:child_process"
import * as FileAccessStore from "../src/FileAccessStore.js"

const access = (n: number, validUntilMillis = 10_000_000) => ({
  rpcUrl: `http://127.0.0.1:1/runtimes/svc-${n}/`,
  token: Redacted.make(`runtime-token-${n}`),
  validUntilMillis,
  serviceUid: `svc-${n}`
})

const setup = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "ms-cli-store-" })
  const directory = path.join(root, "nested", "mainsequence")
  const file = path.join(directory, FileAccessStore.fileName)
  const store = yield* FileAccessStore.make({ directory })
  const readJson = Effect.map(fs.readFileString(file), (text): unknown => JSON.parse(text))
  // The store reads only a file no one else may read or write.
  const writePrivate = (content: string) => fs.writeFileString(file, content, { mode: 0o600 })
  return { fs, path, directory, file, store, readJson, writePrivate }
})

describe("FileAccessStore", () => {
  it.scoped("creates the directory 0700 and the file 0600, in the versioned format", () =>
    Effect.gen(function*() {
      const { directory, file, fs, readJson, store } = yield* setup
      yield* store.set("key-1", access(1))
      expect((yield* fs.stat(directory)).mode & 0o777).toBe(0o700)
      expect((yield* fs.stat(file)).mode & 0o777).toBe(0o600)
      expect(yield* readJson).toEqual({
        version: 1,
        entries: {
          "key-1": {
            rpcUrl: "http://127.0.0.1:1/runtimes/svc-1/",
            token: "runtime-token-1",
            validUntilMillis: 10_000_000,
            serviceUid: "svc-1"
          }
        }
      })
      const got = yield* store.get("key-1")
      expect(Option.map(got, (entry) => Redacted.value(entry.token))).toEqual(Option.some("runtime-token-1"))
      expect(Option.map(got, (entry) => entry.rpcUrl)).toEqual(Option.some("http://127.0.0.1:1/runtimes/svc-1/"))
      expect(yield* store.get("other")).toEqual(Option.none())
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("keeps 0600 when the file is replaced, leaves no temp file, and removes entries", () =>
    Effect.gen(function*() {
      const { directory, file, fs, readJson, store } = yield* setup
      yield* store.set("key-1", access(1))
      yield* fs.chmod(file, 0o644)
      yield* store.set("key-2", access(2))
      expect((yield* fs.stat(file)).mode & 0o777).toBe(0o600)
      yield* store.remove("key-1")
      expect(yield* store.get("key-1")).toEqual(Option.none())
      expect(Option.isSome(yield* store.get("key-2"))).toBe(true)
      expect(Object.keys(((yield* readJson) as { entries: Record<string, unknown> }).entries)).toEqual(["key-2"])
      expect(yield* fs.readDirectory(directory)).toEqual([FileAccessStore.fileName])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("reads a missing, corrupt or foreign-version file as empty and replaces it", () =>
    Effect.gen(function*() {
      const { directory, file, fs, readJson, store, writePrivate } = yield* setup
      expect(yield* store.get("key-1")).toEqual(Option.none())
      yield* fs.makeDirectory(directory, { recursive: true })
      for (
        const content of [
          "{ not json",
          "",
          JSON.stringify({ version: 2, entries: { "key-1": { rpcUrl: "x", token: "t", validUntilMillis: 9e15 } } }),
          JSON.stringify({ version: 1, entries: { "key-1": { rpcUrl: 1 } } }),
          JSON.stringify([1, 2, 3])
        ]
      ) {
        yield* writePrivate(content)
        expect(yield* store.get("key-1")).toEqual(Option.none())
        yield* store.set("key-3", access(3))
        const json = (yield* readJson) as { version: number; entries: Record<string, unknown> }
        expect(json.version).toBe(1)
        expect(Object.keys(json.entries)).toEqual(["key-3"])
        expect((yield* fs.stat(file)).mode & 0o777).toBe(0o600)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a file over 1 MiB, nested deeper than 8 levels or with a non-http(s) rpcUrl is corrupt, and replaced", () =>
    Effect.gen(function*() {
      const { directory, fs, readJson, store, writePrivate } = yield* setup
      yield* fs.makeDirectory(directory, { recursive: true })
      const entry = (rpcUrl: string, extra = "") =>
        `{"version":1,"entries":{"key-1":{"rpcUrl":"${rpcUrl}","token":"t","validUntilMillis":9e15${extra}}}}`
      const valid = entry("https://rt.example/")
      // padded with spaces to exactly the limit: read; one byte more: corrupt
      const padded = (bytes: number) => valid + " ".repeat(bytes - valid.length)
      // the entry is level 3: an extra field of n arrays makes the file 3 + n deep
      const nested = (n: number) => entry("https://rt.example/", `,"x":${"[".repeat(n)}${"]".repeat(n)}`)
      const cases: ReadonlyArray<readonly [string, boolean]> = [
        [padded(FileAccessStore.maxFileBytes), true],
        [padded(FileAccessStore.maxFileBytes + 1), false],
        [nested(5), true],
        [nested(6), false],
        [entry("http://127.0.0.1:1/rt/"), true],
        ...["file:///etc/passwd", "data:text/plain,x", "ftp://rt.example/", "javascript:x", "blob:https://rt/", "/rt/"]
          .map((rpcUrl) => [entry(rpcUrl), false] as const)
      ]
      expect([FileAccessStore.maxFileBytes, FileAccessStore.maxFileDepth]).toEqual([1024 * 1024, 8])
      for (const [content, read] of cases) {
        yield* writePrivate(content)
        expect(Option.isSome(yield* store.get("key-1")), content.slice(0, 120)).toBe(read)
      }
      yield* writePrivate(nested(6))
      yield* store.set("key-2", access(2))
      const json = (yield* readJson) as { version: number; entries: Record<string, unknown> }
      expect([json.version, Object.keys(json.entries)]).toEqual([1, ["key-2"]])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a 20 MB corrupt file (a valid start, then deep nesting) reads as empty at once, and is replaced", () =>
    Effect.gen(function*() {
      const { directory, fs, readJson, store, writePrivate } = yield* setup
      yield* fs.makeDirectory(directory, { recursive: true })
      const levels = 10 * 1024 * 1024
      yield* writePrivate(
        `{"version":1,"entries":{"key-1":{"rpcUrl":"https://rt.example/","token":"t","validUntilMillis":9e15,"x":${
          "[".repeat(levels)
        }${"]".repeat(levels)}}}}`
      )
      expect(yield* store.get("key-1")).toEqual(Option.none())
      yield* store.set("key-2", access(2))
      expect(Object.keys(((yield* readJson) as { entries: Record<string, unknown> }).entries)).toEqual(["key-2"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("an entry whose token an HTTP header cannot carry is corrupt, never sent", () =>
    Effect.gen(function*() {
      const { directory, fs, store, writePrivate } = yield* setup
      yield* fs.makeDirectory(directory, { recursive: true })
      const entry = (token: string) =>
        JSON.stringify({
          version: 1,
          entries: { "key-1": { rpcUrl: "https://rt.example/", token, validUntilMillis: 9e15 } }
        })
      const read: Array<boolean> = []
      for (const token of ["tok-1.A_b~c+/=", "tok\nen", "tok en", "tok\r\nX-Evil: 1", "tök€n", ""]) {
        yield* writePrivate(entry(token))
        read.push(Option.isSome(yield* store.get("key-1")))
      }
      expect(read).toEqual([true, false, false, false, false, false])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("reads only a regular file of the user's own, mode 0600: anything else at the path reads as empty at once", () =>
    Effect.gen(function*() {
      const { directory, file, fs, path, readJson, store } = yield* setup
      yield* fs.makeDirectory(directory, { recursive: true })
      yield* store.set("key-1", access(1))
      expect(Option.isSome(yield* store.get("key-1"))).toBe(true)
      // readable by others: not trusted (a write makes it 0600 again)
      yield* fs.chmod(file, 0o644)
      expect(yield* store.get("key-1")).toEqual(Option.none())
      yield* fs.chmod(file, 0o620)
      expect(yield* store.get("key-1")).toEqual(Option.none())
      yield* fs.chmod(file, 0o600)
      expect(Option.isSome(yield* store.get("key-1"))).toBe(true)
      // a link, even to a valid private file, to an endless device, and a FIFO without a writer
      const valid = path.join(directory, "valid.json")
      yield* fs.rename(file, valid)
      yield* fs.symlink(valid, file)
      expect(yield* store.get("key-1")).toEqual(Option.none())
      yield* fs.remove(file)
      yield* fs.symlink("/dev/zero", file)
      expect(yield* store.get("key-1")).toEqual(Option.none())
      yield* fs.remove(file)
      execFileSync("mkfifo", ["-m", "600", file])
      expect(yield* store.get("key-1")).toEqual(Option.none())
      // and each is replaced by the next write
      yield* store.set("key-2", access(2))
      expect(Object.keys(((yield* readJson) as { entries: Record<string, unknown> }).entries)).toEqual(["key-2"])
      expect((yield* fs.stat(file)).type).toBe("File")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("never fails when the file cannot be read or written", () =>
    Effect.gen(function*() {
      const { file, fs, store } = yield* setup
      // A directory where the file should be: unreadable as a file, and the rename over it fails.
      yield* fs.makeDirectory(file, { recursive: true })
      yield* fs.writeFileString(`${file}/keep`, "x")
      expect(yield* store.get("key-1")).toEqual(Option.none())
      yield* store.set("key-1", access(1))
      yield* store.remove("key-1")
      expect(yield* store.get("key-1")).toEqual(Option.none())
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a directory where the kernel refuses new entries (/proc) is no cache, and never hangs a write", () =>
    Effect.gen(function*() {
      const store = yield* FileAccessStore.make({ directory: "/proc/self/mainsequence" })
      yield* store.set("key-1", access(1))
      expect(yield* store.get("key-1")).toEqual(Option.none())
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("drops expired entries when it writes", () =>
    Effect.gen(function*() {
      const { readJson, store } = yield* setup
      // The test clock reads 0: an entry valid until 0 has expired.
      yield* store.set("old", access(1, 0))
      yield* store.set("new", access(2))
      const json = (yield* readJson) as { entries: Record<string, unknown> }
      expect(Object.keys(json.entries)).toEqual(["new"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a write keeps the entries another process wrote before it", () =>
    Effect.gen(function*() {
      const { directory, readJson } = yield* setup
      const first = yield* FileAccessStore.make({ directory })
      const second = yield* FileAccessStore.make({ directory })
      yield* first.set("first", access(1))
      yield* second.set("second", access(2))
      yield* first.set("third", access(3))
      const json = (yield* readJson) as { entries: Record<string, unknown> }
      expect(Object.keys(json.entries).sort()).toEqual(["first", "second", "third"])
      expect(Option.map(yield* second.get("third"), (found) => found.rpcUrl)).toEqual(
        Option.some(access(3).rpcUrl)
      )
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("every write is atomic: a 0600 temp file in the same directory, renamed over the cache file", () => {
    // The file system as the store sees it, with each write and rename it asks for recorded.
    const operations: Array<string> = []
    const recording = Layer.effect(
      FileSystem.FileSystem,
      Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => ({
        ...fs,
        writeFile: (path, data, options) => {
          operations.push(`writeFile ${path}`)
          return fs.writeFile(path, data, options)
        },
        writeFileString: (path, data, options) => {
          operations.push(`writeFileString ${path} mode ${options?.mode?.toString(8)}`)
          return fs.writeFileString(path, data, options)
        },
        rename: (from, to) => {
          operations.push(`rename ${from} -> ${to}`)
          return fs.rename(from, to)
        }
      }))
    ).pipe(Layer.provideMerge(NodeContext.layer))
    return Effect.gen(function*() {
      const { directory, file, path, store } = yield* setup
      yield* store.set("k", access(1))
      yield* store.remove("k")
      const temp = /^(.+) -> (.+)$/
      const renames = operations.filter((op) => op.startsWith("rename ")).map((op) => temp.exec(op.slice(7)))
      expect(renames).toHaveLength(2)
      for (const rename of renames) {
        const [, from = "", to = ""] = rename ?? []
        expect([to, path.dirname(from), from.endsWith(".tmp")]).toEqual([file, directory, true])
        expect(operations).toContain(`writeFileString ${from} mode 600`)
      }
      expect(operations.filter((op) => op.includes(`${file} mode`) || op === `writeFile ${file}`)).toEqual([])
    }).pipe(Effect.provide(recording))
  })

  it.scoped("concurrent writers (two stores, as two processes) never leave a torn file", () =>
    Effect.gen(function*() {
      const { directory, file, fs } = yield* setup
      const first = yield* FileAccessStore.make({ directory })
      const second = yield* FileAccessStore.make({ directory })
      let parsedReads = 0
      const reader = Effect.gen(function*() {
        for (let i = 0; i < 50; i++) {
          const text = yield* fs.readFileString(file).pipe(Effect.option)
          if (Option.isSome(text)) {
            expect(() => JSON.parse(text.value)).not.toThrow()
            parsedReads++
          }
          yield* Effect.yieldNow()
        }
      })
      yield* Effect.all([
        Effect.forEach(Array.from({ length: 25 }, (_, i) => i), (i) => first.set(`a-${i}`, access(i)), {
          concurrency: "unbounded"
        }),
        Effect.forEach(Array.from({ length: 25 }, (_, i) => i), (i) => second.set(`b-${i}`, access(i)), {
          concurrency: "unbounded"
        }),
        reader
      ], { concurrency: "unbounded" })
      const json = JSON.parse(yield* fs.readFileString(file)) as { version: number; entries: Record<string, unknown> }
      expect(json.version).toBe(1)
      // Racing writers may drop each other's entries (each merges what it read): only written keys, at least one.
      const written = new Set(Array.from({ length: 25 }, (_, i) => [`a-${i}`, `b-${i}`]).flat())
      const keys = Object.keys(json.entries)
      expect(keys.length).toBeGreaterThan(0)
      expect(keys.filter((key) => !written.has(key))).toEqual([])
      expect(parsedReads).toBeGreaterThan(0)
      expect((yield* fs.readDirectory(directory)).filter((name) => name.endsWith(".tmp"))).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer)))
})
