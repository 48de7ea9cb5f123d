/**
 * Smoke test of the published packages, as a user gets them.
 *
 * 1. `pnpm pack` each public package (the workspace must be built: `pnpm build`) and check the tarballs:
 *    no tests, no `.tsbuild`, no `workspace:` ranges, every `exports`/`bin` target present, every source map
 *    pointing at sources that ship or embedding them (the CLI's bundle embeds its dependencies' sources).
 * 2. Create a project outside the workspace (under the OS temp dir) and `npm install` the tarballs with the
 *    peers from the registry.
 * 3. Type-check and compile the project's user code (`project/*.ts`) against the installed declarations,
 *    then run: an Effect program against the reference platform, a user `@effect/vitest` test on the
 *    simulated clock, the installed `mainsequence` CLI, the Promise entry point, and the Redis store (loaded and
 *    run with no Redis: it needs none to load).
 *
 * `node scripts/dist/smoke/main.js [--keep]` (`--keep` leaves the temp dir for inspection).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const fixtures = path.join(root, "scripts", "smoke", "project")
const packages = ["a2a", "a2a-testing", "a2a-redis", "cli"] as const
const peers = [
  "effect@3.22.4",
  "@effect/platform@0.97.2",
  "@effect/platform-node@0.108.2",
  "vitest@3.2.4",
  "@effect/vitest@0.30.0",
  "typescript@5.9.3",
  "@types/node@20.19.25"
]
const readySession = "5e55a0e1-0000-4000-8000-000000000001"
const outdatedSession = "5e55a0e1-0000-4000-8000-000000000003"

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv }
): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const check = async (
  label: string,
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv }
): Promise<Run> => {
  const started = performance.now()
  const result = await run(command, args, options)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  if (result.code !== 0) {
    process.stderr.write(`${result.stdout}\n${result.stderr}\n`)
    throw new Error(`${label}: \`${command} ${args.join(" ")}\` exited with ${result.code}`)
  }
  console.log(`✓ ${label} (${seconds} s)`)
  return result
}

/** pnpm as it runs this script (`npx -y pnpm@… smoke` sets npm_execpath), else from PATH. */
const pnpm = (): { readonly command: string; readonly prefix: ReadonlyArray<string> } => {
  const execPath = process.env["npm_execpath"]
  return execPath !== undefined && /pnpm/.test(path.basename(execPath)) && /\.[cm]?js$/.test(execPath)
    ? { command: process.execPath, prefix: [execPath] }
    : { command: "pnpm", prefix: [] }
}

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? filesUnder(full) : [full]
  })

/** A source map's sources that it does not embed (`sourcesContent`): they must ship. */
const SourceMap = (u: unknown): { readonly sources: ReadonlyArray<string>; readonly sourceRoot: string } => {
  if (typeof u !== "object" || u === null || !("sources" in u) || !Array.isArray(u.sources)) {
    throw new Error("not a source map")
  }
  const contents: ReadonlyArray<unknown> = "sourcesContent" in u && Array.isArray(u.sourcesContent)
    ? u.sourcesContent
    : []
  const sources = u.sources.filter((s, i): s is string => typeof s === "string" && typeof contents[i] !== "string")
  const sourceRoot = "sourceRoot" in u && typeof u.sourceRoot === "string" ? u.sourceRoot : ""
  return { sources, sourceRoot }
}

const exportTargets = (value: unknown): Array<string> =>
  typeof value === "string"
    ? [value]
    : typeof value === "object" && value !== null
    ? Object.values(value).flatMap(exportTargets)
    : []

/** The problems of one unpacked tarball (`dir` is its `package/`). */
const inspectTarball = (dir: string): Array<string> => {
  const problems: Array<string> = []
  const files = filesUnder(dir).map((file) => path.relative(dir, file).split(path.sep).join("/"))
  for (const file of files) {
    if (
      /(^|\/)(test|tests|__tests__|scratch|\.tsbuild)\//.test(file) || /\.test\.[cm]?[jt]s$|\.tsbuildinfo$/.test(file)
    ) {
      problems.push(`ships ${file}`)
    }
    if (file.endsWith(".map")) {
      const map = SourceMap(JSON.parse(readFileSync(path.join(dir, file), "utf8")))
      for (const source of map.sources) {
        const target = path.resolve(path.dirname(path.join(dir, file)), map.sourceRoot, source)
        if (!existsSync(target)) problems.push(`${file} points to missing ${path.relative(dir, target)}`)
      }
    }
  }
  const manifestText = readFileSync(path.join(dir, "package.json"), "utf8")
  if (manifestText.includes("workspace:")) problems.push("package.json keeps a workspace: range")
  const manifest: unknown = JSON.parse(manifestText)
  if (typeof manifest === "object" && manifest !== null) {
    const targets = [
      ...("exports" in manifest ? exportTargets(manifest.exports) : []),
      ...("bin" in manifest ? exportTargets(manifest.bin) : [])
    ]
    for (const target of targets) {
      if (!existsSync(path.join(dir, target))) problems.push(`exports/bin target ${target} is missing`)
    }
    // `bin/mainsequence.js` would fall back to the slow unbundled modules without it.
    if ("name" in manifest && manifest.name === "@mainsequence/cli" && !files.includes("dist/mainsequence.cjs")) {
      problems.push("the CLI's bundle dist/mainsequence.cjs is missing")
    }
  }
  return problems
}

/** Starts the reference platform of the installed a2a-testing; resolves with its URL and token. */
const startPlatform = (cwd: string): Promise<{ child: ChildProcess; url: string; token: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["out/platform.js"], { cwd, stdio: ["ignore", "pipe", "inherit"] })
    child.on("error", reject)
    child.on("exit", (code) => reject(new Error(`the reference platform exited with ${code}`)))
    createInterface({ input: child.stdout }).once("line", (line) => {
      const parsed: unknown = JSON.parse(line)
      if (
        typeof parsed === "object" && parsed !== null && "url" in parsed && typeof parsed.url === "string" &&
        "token" in parsed && typeof parsed.token === "string"
      ) {
        resolve({ child, url: parsed.url, token: parsed.token })
      } else {
        reject(new Error(`unexpected first line from the platform: ${line}`))
      }
    })
  })

const main = async () => {
  const started = performance.now()
  const keep = process.argv.includes("--keep")
  const temp = mkdtempSync(path.join(os.tmpdir(), "mainsequence-smoke-"))
  const packs = path.join(temp, "packs")
  const project = path.join(temp, "project")
  mkdirSync(packs)
  console.log(`smoke: ${temp}`)
  let platform: ChildProcess | undefined
  try {
    // 1. pack and inspect
    const { command, prefix } = pnpm()
    for (const name of packages) {
      await check(`pack @mainsequence/${name}`, command, [...prefix, "pack", "--pack-destination", packs], {
        cwd: path.join(root, "packages", name)
      })
    }
    const tarballs = readdirSync(packs).filter((file) => file.endsWith(".tgz")).map((file) => path.join(packs, file))
    const problems: Array<string> = []
    for (const tarball of tarballs) {
      const unpacked = path.join(temp, "unpacked", path.basename(tarball, ".tgz"))
      mkdirSync(unpacked, { recursive: true })
      await check(`unpack ${path.basename(tarball)}`, "tar", ["xzf", tarball, "-C", unpacked], { cwd: temp })
      problems.push(...inspectTarball(path.join(unpacked, "package")).map((p) => `${path.basename(tarball)}: ${p}`))
    }
    if (problems.length > 0) {
      throw new Error(
        `tarball problems (stale build output? \`pnpm clean && pnpm build\`):\n  ${problems.join("\n  ")}`
      )
    }
    console.log(`✓ tarballs: no tests, no .tsbuild, no workspace: ranges, exports/bin present, source maps complete`)

    // 2. a user project outside the workspace
    cpSync(fixtures, project, { recursive: true })
    await check("npm install (tarballs + peers)", "npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-package-lock",
      ...tarballs,
      ...peers
    ], { cwd: project, env: { ...process.env, npm_config_loglevel: "error" } })

    // 3. type-check and compile against the installed declarations, then run
    await check("tsc against the installed declarations", process.execPath, [
      "node_modules/typescript/bin/tsc",
      "-p",
      "."
    ], {
      cwd: project
    })
    console.log((await check("(1) Effect program → reference platform", process.execPath, ["out/send.js"], {
      cwd: project
    })).stdout.trim())
    await check("(2) user @effect/vitest test on the simulated clock", process.execPath, [
      "node_modules/vitest/vitest.mjs",
      "run",
      "agent.test.ts"
    ], { cwd: project })

    const reference = await startPlatform(project)
    platform = reference.child
    const env = {
      ...process.env,
      MAINSEQUENCE_ENDPOINT: reference.url,
      MAINSEQUENCE_ACCESS_TOKEN: reference.token,
      MAINSEQUENCE_CONFIG_DIR: path.join(temp, "config"),
      XDG_CACHE_HOME: path.join(temp, "cache")
    }
    const cli = await check("(3) npx mainsequence agent session a2a send", "npx", [
      "--no-install",
      "mainsequence",
      "agent",
      "session",
      "a2a",
      "send",
      readySession,
      "--message",
      "from the CLI"
    ], { cwd: project, env })
    if (!cli.stdout.includes("You said: from the CLI")) throw new Error(`unexpected CLI output: ${cli.stdout}`)
    // The installed bin ran the bundle through runBundle, which left its V8 code cache at exit.
    const codeCache = path.join(temp, "cache", "mainsequence", "code-cache")
    if (!existsSync(codeCache) || !readdirSync(codeCache).some((f) => f.endsWith(".v8cache"))) {
      throw new Error(`the installed CLI left no code cache in ${codeCache}`)
    }
    console.log(`  ${cli.stdout.trim().split("\n").join("\n  ")}`)
    console.log((await check("(4) Promise entry point", process.execPath, [
      "out/promise.js",
      readySession,
      outdatedSession
    ], { cwd: project, env })).stdout.trim())

    console.log((await check("(5) @mainsequence/a2a-redis loads and runs with no Redis", process.execPath, [
      "out/redis.js"
    ], { cwd: project })).stdout.trim())

    console.log(`smoke: ok in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  } finally {
    platform?.removeAllListeners("exit")
    platform?.kill()
    if (!keep) rmSync(temp, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
})
