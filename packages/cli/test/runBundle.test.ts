/**
 * The bundle runner's V8 code cache (`src/runBundle.ts`): each run is its own Node process running the BUILT
 * `dist/runBundle.js` on a small CommonJS bundle, as `bin/mainsequence.js` runs `dist/mainsequence.cjs`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Url from "node:url"
import { cacheDirectory, cacheFileName } from "../src/runBundle.js"

const runner = Path.resolve(Path.dirname(Url.fileURLToPath(import.meta.url)), "../dist/runBundle.js")

const roots: Array<string> = []
afterAll(() => roots.forEach((root) => Fs.rmSync(root, { recursive: true, force: true })))
const tempRoot = () => {
  const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ms-cli-code-cache-"))
  roots.push(root)
  return root
}

// What the bundle reports: its CommonJS scope, strict mode, and its import() (`__mainsequence_import`, see
// scripts/bundle.mjs) of a Node module and of a module next to the bundle; `functions` more functions it runs
// (their compiled code is in the cache).
const bundleText = (marker: string, exitCode = 0, functions = 0) =>
  [
    ...Array.from({ length: functions }, (_, i) => `function f${i}(x) { return x.map((y) => y * ${i} + "${i}") }`),
    `${Array.from({ length: functions }, (_, i) => `f${i}([${i}])`).join("; ")}`,
    `const path = require("node:path")`,
    `module.exports.marker = ${JSON.stringify(marker)}`,
    `const strict = (function() { return this === undefined })()`,
    `Promise.all([__mainsequence_import("node:os"), __mainsequence_import("./side.mjs")]).then(([os, side]) => {`,
    `  console.log(JSON.stringify({ marker: module.exports.marker, strict, file: path.basename(__filename),`,
    `    dir: __dirname, exportsIsModuleExports: exports === module.exports, eol: os.EOL.length, side: side.side }))`,
    `  process.exit(${exitCode})`,
    `})`
  ].join("\n")

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly cache: string
  readonly report: unknown
}

const run = (bundle: string, directory: string | undefined, nodeOptions: ReadonlyArray<string> = []): Run => {
  const script = `import { runBundle } from ${JSON.stringify(Url.pathToFileURL(runner).href)}\n` +
    `const use = runBundle(process.argv[1], process.argv[2] === "" ? undefined : process.argv[2])\n` +
    `process.stderr.write("cache:" + use)`
  const result = ChildProcess.spawnSync(
    process.execPath,
    [...nodeOptions, "--input-type=module", "-e", script, bundle, directory ?? ""],
    // A run that hangs (a FIFO at the cache's path once did) fails its test instead of blocking the suite.
    { encoding: "utf8", env: { PATH: process.env["PATH"] ?? "" }, timeout: 30_000, killSignal: "SIGKILL" }
  )
  const stdout = result.stdout
  return {
    code: result.status,
    stdout,
    stderr: result.stderr.replace(/cache:\w+$/, ""),
    cache: /cache:(\w+)$/.exec(result.stderr)?.[1] ?? "",
    report: stdout.trim() === "" ? undefined : JSON.parse(stdout)
  }
}

const setup = (marker = "one", exitCode = 0, functions = 0) => {
  const root = tempRoot()
  const bundle = Path.join(root, "dist", "bundle.cjs")
  Fs.mkdirSync(Path.dirname(bundle))
  Fs.writeFileSync(bundle, bundleText(marker, exitCode, functions))
  Fs.writeFileSync(Path.join(root, "dist", "side.mjs"), `export const side = "next to the bundle"`)
  const directory = Path.join(root, "cache", "mainsequence", "code-cache")
  // The child's cache file: named by the bundle's text (and the child's Node options, the same for each run).
  const cacheFile = () => {
    const prefix = cacheFileName(Fs.readFileSync(bundle, "utf8")).split("-")[0] ?? ""
    const files = Fs.readdirSync(directory).filter((name) => name.startsWith(prefix))
    expect(files).toHaveLength(1)
    return Path.join(directory, files[0] ?? "")
  }
  return { root, bundle, directory, cacheFile }
}

const mode = (path: string) => Fs.statSync(path).mode & 0o777

describe("runBundle", () => {
  it("runs the bundle as CommonJS in strict mode, with its import() through the runner", () => {
    const { bundle, directory, root } = setup()
    const first = run(bundle, directory)
    expect(first.code).toBe(0)
    expect(first.stderr).toBe("")
    expect(first.report).toEqual({
      marker: "one",
      strict: true,
      file: "bundle.cjs",
      dir: Path.join(root, "dist"),
      exportsIsModuleExports: true,
      eol: Os.EOL.length,
      side: "next to the bundle"
    })
    // A cache hit runs the same, import() included (Node 20's own import() in a vm.Script would fail here).
    const second = run(bundle, directory)
    expect(second.cache).toBe("used")
    expect(second.stderr).toBe("")
    expect(second.report).toEqual(first.report)
  })

  it("writes the cache at exit (0600 in a 0700 directory), then uses it without rewriting it", () => {
    const { bundle, cacheFile, directory } = setup()
    const first = run(bundle, directory)
    expect(first.cache).toBe("written")
    expect(Fs.readdirSync(directory)).toEqual([Path.basename(cacheFile())])
    expect(mode(cacheFile())).toBe(0o600)
    expect(mode(directory)).toBe(0o700)
    const written = Fs.statSync(cacheFile()).mtimeMs
    const second = run(bundle, directory)
    expect(second.cache).toBe("used")
    expect(second.report).toEqual(first.report)
    expect(Fs.statSync(cacheFile()).mtimeMs).toBe(written)
  })

  it("keeps the bundle's exit code when it writes the cache", () => {
    const { bundle, cacheFile, directory } = setup("exits", 3)
    const first = run(bundle, directory)
    expect(first.code).toBe(3)
    expect(first.cache).toBe("written")
    expect(Fs.existsSync(cacheFile())).toBe(true)
  })

  it("a changed bundle gets its own cache file, and the old bundle's file is removed", () => {
    const { bundle, cacheFile, directory } = setup("old")
    run(bundle, directory)
    const old = cacheFile()
    Fs.writeFileSync(bundle, bundleText("new"))
    const next = run(bundle, directory)
    expect(next.cache).toBe("written")
    expect(next.report).toMatchObject({ marker: "new" })
    const fresh = cacheFile()
    expect(fresh).not.toBe(old)
    expect(Fs.readdirSync(directory)).toEqual([Path.basename(fresh)])
  })

  it("other Node options get their own file (V8 would reject the other's), for the same bundle", () => {
    const { bundle, directory } = setup()
    run(bundle, directory)
    const other = run(bundle, directory, ["--stack-size=2000"])
    expect(other.cache).toBe("written")
    expect(Fs.readdirSync(directory)).toHaveLength(2)
    expect(run(bundle, directory).cache).toBe("used")
    expect(run(bundle, directory, ["--stack-size=2000"]).cache).toBe("used")
  })

  it("a corrupt cache is rejected by V8: the bundle runs from its text and the cache is rewritten", () => {
    const { bundle, cacheFile, directory } = setup()
    run(bundle, directory)
    Fs.writeFileSync(cacheFile(), Buffer.alloc(4096, 7))
    const corrupt = run(bundle, directory)
    expect(corrupt.code).toBe(0)
    expect(corrupt.report).toMatchObject({ marker: "one" })
    expect(corrupt.cache).toBe("rejected")
    expect(run(bundle, directory).cache).toBe("used")
  })

  it("a cache with damaged bytes (same size) is rejected: the bundle runs from its text and the cache is rewritten", () => {
    const { bundle, cacheFile, directory } = setup("damaged", 0, 400)
    run(bundle, directory)
    const file = cacheFile()
    const bytes = Fs.readFileSync(file)
    bytes.fill(0xde, bytes.length >> 1, (bytes.length >> 1) + 8)
    Fs.writeFileSync(file, bytes)
    const damaged = run(bundle, directory)
    expect([damaged.code, damaged.stderr, damaged.cache]).toEqual([0, "", "rejected"])
    expect(damaged.report).toMatchObject({ marker: "damaged" })
    expect(run(bundle, directory).cache).toBe("used")
  })

  it.skipIf(process.platform === "win32")("ignores a cache file that others may write, and replaces it", () => {
    const { bundle, cacheFile, directory } = setup()
    run(bundle, directory)
    Fs.chmodSync(cacheFile(), 0o666)
    expect(run(bundle, directory).cache).toBe("written")
    expect(mode(cacheFile())).toBe(0o600)
    expect(run(bundle, directory).cache).toBe("used")
  })

  it.skipIf(process.platform === "win32")(
    "a FIFO at the cache's path never blocks the start: it is not used as a cache, and is replaced",
    () => {
      const { bundle, cacheFile, directory } = setup()
      run(bundle, directory)
      const file = cacheFile()
      Fs.rmSync(file)
      ChildProcess.execFileSync("mkfifo", [file])
      const fifo = run(bundle, directory)
      expect(fifo.code).toBe(0)
      expect(fifo.stderr).toBe("")
      expect(fifo.report).toMatchObject({ marker: "one" })
      expect(fifo.cache).toBe("written")
      expect(Fs.lstatSync(cacheFile()).isFile()).toBe(true)
      expect(run(bundle, directory).cache).toBe("used")
    },
    60_000
  )

  it("an unusable cache directory never fails the run, nor prints anything", () => {
    const { bundle, root } = setup()
    const blocker = Path.join(root, "not-a-directory")
    Fs.writeFileSync(blocker, "")
    const blocked = run(bundle, Path.join(blocker, "code-cache"))
    expect(blocked.code).toBe(0)
    expect(blocked.stderr).toBe("")
    expect(blocked.report).toMatchObject({ marker: "one" })
    expect(Fs.readdirSync(root).sort()).toEqual(["dist", "not-a-directory"])
    expect(run(bundle, undefined).cache).toBe("none")
    // Where the kernel refuses new entries (Node's recursive mkdir retried that forever): the run ends.
    const refused = run(bundle, "/proc/self/mainsequence/code-cache")
    expect([refused.code, refused.stderr]).toEqual([0, ""])
    expect(refused.report).toMatchObject({ marker: "one" })
  })
})

describe("cacheDirectory", () => {
  it("is $XDG_CACHE_HOME/mainsequence/code-cache, else ~/.cache/mainsequence/code-cache", () => {
    expect(cacheDirectory({ XDG_CACHE_HOME: "/x/cache", HOME: "/home/u" })).toBe(
      Path.join("/x/cache", "mainsequence", "code-cache")
    )
    expect(cacheDirectory({ HOME: "/home/u" })).toBe(Path.join("/home/u", ".cache", "mainsequence", "code-cache"))
    // Relative or blank XDG_CACHE_HOME is ignored (XDG Base Directory spec).
    expect(cacheDirectory({ XDG_CACHE_HOME: "rel/cache", HOME: "/home/u" })).toBe(
      Path.join("/home/u", ".cache", "mainsequence", "code-cache")
    )
    expect(cacheDirectory({ XDG_CACHE_HOME: "  ", HOME: "/home/u" })).toBe(
      Path.join("/home/u", ".cache", "mainsequence", "code-cache")
    )
    expect(cacheDirectory({ HOME: "relative" })).toBeUndefined()
  })
})
