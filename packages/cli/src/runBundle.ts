/**
 * Runs the bundled CLI (`dist/mainsequence.cjs`, see `scripts/bundle.mjs`) with a V8 code cache: the bundle is
 * compiled as a `vm.Script` with the bytecode that an earlier run left in the cache directory, so a run skips
 * parsing and compiling most of its ~1 MiB of JavaScript (Node 20 has no `module.enableCompileCache`, which
 * would do this for ES modules). `bin/mainsequence.js` calls it before anything of the CLI is loaded, hence
 * plain Node here and no Effect.
 *
 * The cache never changes what runs and never fails a command:
 * - one file per bundle text, Node version and architecture (a SHA-256 of them names it) and Node options,
 *   written once, when absent or when V8 rejected it; caches of other bundles or Node versions are removed then;
 * - written at exit (so it holds the functions the run compiled), to a temporary file renamed into place, mode
 *   0600 in a 0700 directory: `$XDG_CACHE_HOME/mainsequence/code-cache`, else `~/.cache/mainsequence/code-cache`;
 * - read only when it is a regular file (opened without waiting, so a FIFO there never blocks the start), belongs
 *   to this user and nobody else may write it (V8 trusts a cache's bytecode);
 * - checked against its checksum (`--verify-snapshot-checksum`), so a cache with damaged bytes is rejected and
 *   rewritten instead of crashing V8;
 * - any error reading or writing it (unwritable directory, full disk) is ignored: the bundle then compiles from
 *   its text, as without a cache.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import * as V8 from "node:v8"
import * as Vm from "node:vm"
import { makePrivateDirectory } from "./internal/privateDirectory.js"

/**
 * Where the code cache lives: `$XDG_CACHE_HOME/mainsequence/code-cache` (when absolute), else
 * `~/.cache/mainsequence/code-cache` (`HOME`, else the OS's home directory); `undefined` (no cache) when there is
 * no absolute home either.
 *
 * @since 0.1.0
 * @category code cache
 */
export const cacheDirectory = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const nonBlank = (value: string | undefined) => value !== undefined && value.trim() !== "" ? value : undefined
  const absolute = (path: string | undefined) => path !== undefined && Path.isAbsolute(path) ? path : undefined
  // A relative XDG_CACHE_HOME is invalid (XDG Base Directory spec): ignored.
  const xdg = absolute(nonBlank(env["XDG_CACHE_HOME"]))
  const home = absolute(nonBlank(env["HOME"]) ?? homedir())
  const base = xdg ?? (home === undefined ? undefined : Path.join(home, ".cache"))
  return base === undefined ? undefined : Path.join(base, "mainsequence", "code-cache")
}

const homedir = (): string | undefined => {
  try {
    return Os.homedir()
  } catch {
    return undefined
  }
}

const sha256 = (...parts: ReadonlyArray<string>): string => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(part).update("\0")
  return hash.digest("hex")
}

/**
 * The cache file's name for a bundle's text on this Node: a SHA-256 of the text, Node's version and the
 * architecture, then a hash of Node's options (V8 rejects a cache made under other flags, so runs with other
 * options keep their own file instead of replacing each other's).
 *
 * @since 0.1.0
 * @category code cache
 */
export const cacheFileName = (source: string): string =>
  `${sha256(process.version, process.arch, source).slice(0, 32)}-${
    sha256(...process.execArgv, process.env["NODE_OPTIONS"] ?? "").slice(0, 8)
  }.v8cache`

// The file must be this user's and writable by nobody else: V8 runs the bytecode a cache holds.
const ownedByUser = (stats: Fs.Stats): boolean =>
  (process.getuid === undefined || stats.uid === process.getuid()) && (stats.mode & 0o022) === 0

const readCache = (file: string): Buffer | undefined => {
  let fd: number | undefined
  try {
    // O_NONBLOCK: opening a FIFO (or a device) would otherwise wait for a writer, and the CLI hang at start.
    const flags = Fs.constants.O_RDONLY | (Fs.constants.O_NOFOLLOW ?? 0) | (Fs.constants.O_NONBLOCK ?? 0)
    fd = Fs.openSync(file, flags)
    const stats = Fs.fstatSync(fd)
    return stats.isFile() && ownedByUser(stats) ? Fs.readFileSync(fd) : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) Fs.closeSync(fd)
  }
}

const writeCache = (directory: string, fileName: string, data: () => Buffer): void => {
  const temporary = Path.join(directory, `${fileName}.${process.pid}.tmp`)
  try {
    makePrivateDirectory(directory)
    if (!Fs.lstatSync(directory).isDirectory()) return
    Fs.writeFileSync(temporary, data(), { mode: 0o600, flag: "wx" })
    Fs.renameSync(temporary, Path.join(directory, fileName))
    // Caches of other bundles (older versions of the CLI, other Node versions) are of no more use, nor are
    // their temporary files left by a killed run.
    const bundle = fileName.slice(0, fileName.indexOf("-") + 1)
    for (const other of Fs.readdirSync(directory)) {
      if (!other.startsWith(bundle) && (other.endsWith(".v8cache") || other.endsWith(".tmp"))) {
        Fs.rmSync(Path.join(directory, other), { force: true })
      }
    }
  } catch {
    try {
      Fs.rmSync(temporary, { force: true })
    } catch {
      // nothing was written
    }
  }
}

// The bundle's `import()` (see scripts/bundle.mjs): Node 20 runs no `import()` of a `vm.Script` compiled from a
// code cache. Package names resolve from here, inside the same package as the bundle; relative paths from the bundle.
const importFrom = (file: string) => (specifier: string): Promise<unknown> =>
  specifier.startsWith(".") ? import(new URL(specifier, pathToFileURL(file)).href) : import(specifier)

/**
 * What a run did with the code cache (for the tests and the benchmark).
 *
 * @since 0.1.0
 * @category code cache
 */
export type CacheUse = "none" | "used" | "written" | "rejected"

/**
 * Runs a CommonJS bundle the way Node's own loader would (`exports`, `require`, `module`, `__filename`,
 * `__dirname`, strict mode as in the ES modules it was bundled from, plus `__mainsequence_import` for its
 * `import()`), compiled with the code cache of `directory` (see {@link cacheDirectory}; no cache when
 * `undefined`) when one is there, and leaves a cache for the next run when none was usable. Returns what it did
 * with the cache (a write happens at exit).
 *
 * @since 0.1.0
 * @category running
 */
export const runBundle = (file: string, directory: string | undefined): CacheUse => {
  const source = Fs.readFileSync(file, "utf8")
  const fileName = cacheFileName(source)
  const cachedData = directory === undefined ? undefined : readCache(Path.join(directory, fileName))
  // Release builds of V8 trust a code cache's bytes unless told to check its checksum: damaged bytes would crash
  // every run. Set before both the read and the write, as the flag is part of what a cache must match.
  V8.setFlagsFromString("--verify-snapshot-checksum")
  const script = new Vm.Script(
    "(function (exports, require, module, __filename, __dirname, __mainsequence_import) { \"use strict\";\n" +
      source + "\n})",
    { filename: file, lineOffset: -1, ...(cachedData === undefined ? {} : { cachedData }) }
  )
  const rejected = cachedData !== undefined && script.cachedDataRejected === true
  if (directory !== undefined && (cachedData === undefined || rejected)) {
    process.once("exit", () => writeCache(directory, fileName, () => script.createCachedData()))
  }
  const module = { exports: {} }
  const run: unknown = script.runInThisContext()
  if (typeof run === "function") {
    run(module.exports, createRequire(file), module, file, Path.dirname(file), importFrom(file))
  }
  return directory === undefined ? "none" : rejected ? "rejected" : cachedData === undefined ? "written" : "used"
}
