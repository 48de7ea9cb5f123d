/**
 * Running the built CLI (`packages/cli/bin/mainsequence.js`) as a child process with a private config dir,
 * capturing stdout, stderr and every file it wrote (all of it into a {@link Captured}, except the 0600 cache
 * file's contents, which may hold runtime tokens by design).
 *
 * Every A2A command runs with `--debug`, so the secrecy suite also scans the wire log of every exchange of every
 * CLI scenario. The log's lines (`debug #N …`) are kept apart (`debugLog`): `stderr` is what the run printed
 * without them, as the scenarios check it.
 */
import { Failure } from "@mainsequence/cli"
import * as Schema from "effect/Schema"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Url from "node:url"
import { expect } from "vitest"
import { type Captured, secrets } from "./secrets.js"

/** `packages/cli/bin/mainsequence.js`, found from this file whether it runs from `test/` or `.tsbuild/test/`. */
export const cliBin = ((): string => {
  const here = Path.dirname(Url.fileURLToPath(import.meta.url))
  const candidates = [
    Path.resolve(here, "../../../cli/bin/mainsequence.js"),
    Path.resolve(here, "../../../../cli/bin/mainsequence.js")
  ]
  return candidates.find((p) => Fs.existsSync(p)) ?? Path.resolve(here, "../../../cli/bin/mainsequence.js")
})()

export const cacheFileName = "runtime_access_cache.json"

export interface CliResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  /** the `--debug` lines of stderr */
  readonly debugLog: string
  readonly ms: number
  /** `performance.now()` when the child exited (compare with servers' `RecordedRequest.at`). */
  readonly endedAt: number
  readonly configDir: string
}

export interface CliOptions {
  readonly backendUrl: string
  readonly accessToken?: string | undefined
  readonly refreshToken?: string | undefined
  readonly username?: string | undefined
  /** `MAINSEQUENCE_MAX_RESPONSE_BYTES` */
  readonly maxResponseBytes?: number | undefined
  /** Reuse a config dir (to share the cache between runs); a fresh one otherwise. */
  readonly configDir?: string | undefined
  /** Called once the child runs (e.g. to send it SIGINT later). */
  readonly onSpawn?: ((child: ChildProcess.ChildProcess) => void) | undefined
  /** Kill the child after this long (a test safety net, not a scenario budget). */
  readonly killAfterMs?: number | undefined
  /** More environment variables (proxies, `NODE_EXTRA_CA_CERTS`). */
  readonly env?: Readonly<Record<string, string>> | undefined
}

export const makeConfigDir = (): string => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ms-interop-cli-"))

export const runCli = (args: ReadonlyArray<string>, options: CliOptions): Promise<CliResult> => {
  const configDir = options.configDir ?? makeConfigDir()
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    HOME: configDir,
    XDG_CONFIG_HOME: configDir,
    NO_COLOR: "1",
    MAINSEQUENCE_ENDPOINT: options.backendUrl,
    MAINSEQUENCE_ACCESS_TOKEN: options.accessToken ?? secrets.userAccess,
    MAINSEQUENCE_CONFIG_DIR: configDir
  }
  if (options.refreshToken !== undefined) env["MAINSEQUENCE_REFRESH_TOKEN"] = options.refreshToken
  if (options.username !== undefined) env["MAINSEQUENCE_USERNAME"] = options.username
  if (options.maxResponseBytes !== undefined) env["MAINSEQUENCE_MAX_RESPONSE_BYTES"] = String(options.maxResponseBytes)
  Object.assign(env, options.env)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const debug = args[0] === "agent" ? ["--debug"] : []
    const child = ChildProcess.spawn(process.execPath, [cliBin, ...args, ...debug], {
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s))
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s))
    const killer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 30_000)
    child.on("error", (error) => {
      clearTimeout(killer)
      reject(error)
    })
    child.on("close", (code, signal) => {
      clearTimeout(killer)
      const endedAt = performance.now()
      const lines = stderr.split(/(?<=\n)/)
      const isDebug = (line: string) => line.startsWith("debug #")
      resolve({
        code,
        signal,
        stdout,
        stderr: lines.filter((line) => !isDebug(line)).join(""),
        debugLog: lines.filter(isDebug).join(""),
        ms: endedAt - started,
        endedAt,
        configDir
      })
    })
    options.onSpawn?.(child)
  })
}

/** Every file under `dir` (relative path → bytes). */
export const filesIn = (
  dir: string
): ReadonlyArray<{ readonly path: string; readonly bytes: Buffer; readonly mode: number }> => {
  const out: Array<{ path: string; bytes: Buffer; mode: number }> = []
  const walk = (d: string) => {
    for (const entry of Fs.readdirSync(d, { withFileTypes: true })) {
      const full = Path.join(d, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile()) {
        out.push({ path: Path.relative(dir, full), bytes: Fs.readFileSync(full), mode: Fs.statSync(full).mode & 0o777 })
      }
    }
  }
  if (Fs.existsSync(dir)) walk(dir)
  return out
}

/** Records stdout, stderr and every config-dir file except the cache file into `captured`. */
export const captureCli = (captured: Captured, label: string, result: CliResult): void => {
  captured.add(`stdout ${label}`, result.stdout)
  captured.add(`stderr ${label}`, result.stderr)
  captured.add(`stderr ${label} --debug`, result.debugLog)
  for (const file of filesIn(result.configDir)) {
    if (Path.basename(file.path) === cacheFileName) continue
    captured.add(`file ${label} ${file.path}`, file.bytes.toString("utf8"))
  }
}

/** The message id the CLI printed for a retry, if any. */
export const retryMessageId = (stderr: string): string | undefined =>
  /A2A message id for request retry: (\S+)/.exec(stderr)?.[1]

/** The CLI's exit code for an SDK error tag (SPEC §8); any tag not listed exits 1. */
const specExitCode: Readonly<Record<string, number>> = {
  AgentRuntimeNotReadyError: 3,
  AgentRuntimeUnavailableError: 3,
  NotLoggedInError: 4,
  PermissionDeniedError: 4,
  RuntimeAuthError: 4,
  A2ATimeoutError: 5,
  A2AMessageLimitExceededError: 5,
  A2ATransportError: 6
}
export const exitCodeFor = (tag: string): number => specExitCode[tag] ?? 1

/**
 * A failed run's stdout (`--output json`, the default): exactly one JSON document, the error object, with the
 * run's exit code, the message id of its retry line (`null` without one) and the `expected` fields.
 */
export const expectErrorDocument = (
  result: CliResult,
  expected: { readonly type: string } & Record<string, unknown>
): Failure.ErrorDocument["error"] => {
  const { error } = Schema.decodeUnknownSync(Failure.ErrorDocument, { onExcessProperty: "error" })(
    JSON.parse(result.stdout)
  )
  expect(error).toMatchObject({ exitCode: result.code, messageId: retryMessageId(result.stderr) ?? null, ...expected })
  return error
}
