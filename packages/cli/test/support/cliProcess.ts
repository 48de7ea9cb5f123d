/**
 * Runs the BUILT CLI (`bin/mainsequence.js` → the bundle `dist/mainsequence.cjs`; `pnpm build` runs before the
 * tests) as a child process with a private environment, and serves the reference platform in this process.
 */
import type * as HttpServerError from "@effect/platform/HttpServerError"
import type { SessionScenario } from "@mainsequence/a2a-testing"
import {
  demoUserAccessToken,
  type ReferencePlatform,
  type ServeOptions,
  serveReferencePlatform
} from "@mainsequence/a2a-testing/node"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Url from "node:url"
import { watch } from "./schemaConformance.js"

export const cliBin = Path.resolve(Path.dirname(Url.fileURLToPath(import.meta.url)), "../../bin/mainsequence.js")

export const userAccessToken = Redacted.value(demoUserAccessToken)

export interface CliRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  /** from spawn to exit */
  readonly ms: number
  /** wall-clock epoch millis when the process ended (the reference platform logs the same clock) */
  readonly endedAtMs: number
  /** wall-clock epoch millis of the first stdout output: when the answer or the error document was printed */
  readonly printedAtMs: number | undefined
}

export interface CliProcessOptions {
  readonly configDir: string
  /** environment on top of PATH/HOME (e.g. MAINSEQUENCE_ENDPOINT); `undefined` removes a variable */
  readonly env: Readonly<Record<string, string | undefined>>
  readonly onSpawn?: (child: ChildProcess.ChildProcess) => void
  /** written to the child's standard input through a pipe, which is then closed (default: no stdin) */
  readonly stdin?: string | Uint8Array
  /** standard input is a pipe kept open, never written to, until the child exits */
  readonly holdStdin?: boolean
  /** a file (or directory) the child's standard input is opened from, instead of `stdin` */
  readonly stdinFile?: string
  /** a file the child's standard output is opened to, such as `/dev/full` (default: a pipe read here) */
  readonly stdoutFile?: string
  /** safety net only */
  readonly killAfterMs?: number
}

/** Every output any CLI run of this test file produced, to check no secret leaked. */
export const allOutput: Array<string> = []

/**
 * `XDG_CACHE_HOME` of every run: the CLI's V8 code cache (src/runBundle.ts) lives there, one for this test
 * process, outside the config directories the tests inspect (`HOME` is the config directory).
 */
export const codeCacheHome = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ms-cli-code-cache-"))
process.once("exit", () => Fs.rmSync(codeCacheHome, { recursive: true, force: true }))

export const runCliProcess = (args: ReadonlyArray<string>, options: CliProcessOptions): Effect.Effect<CliRun> =>
  Effect.async<CliRun>((resume) => {
    const merged: Record<string, string | undefined> = {
      PATH: process.env["PATH"] ?? "",
      HOME: options.configDir,
      XDG_CACHE_HOME: codeCacheHome,
      MAINSEQUENCE_CONFIG_DIR: options.configDir,
      ...options.env
    }
    const env = Object.fromEntries(
      Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined)
    )
    const started = performance.now()
    const stdinFd = options.stdinFile === undefined ? undefined : Fs.openSync(options.stdinFile, "r")
    const stdoutFd = options.stdoutFile === undefined ? undefined : Fs.openSync(options.stdoutFile, "w")
    const stdin = options.stdin === undefined && options.holdStdin !== true ? "ignore" : "pipe"
    const child = ChildProcess.spawn(process.execPath, [cliBin, ...args], {
      env,
      stdio: [stdinFd ?? stdin, stdoutFd ?? "pipe", "pipe"]
    })
    for (const fd of [stdinFd, stdoutFd]) if (fd !== undefined) Fs.closeSync(fd)
    // The CLI may stop reading early (a message over the limit): the rest of the input has nowhere to go.
    child.stdin?.on("error", () => undefined)
    if (options.holdStdin !== true) child.stdin?.end(options.stdin)
    let stdout = ""
    let stderr = ""
    let printedAtMs: number | undefined
    child.stdout?.setEncoding("utf8").on("data", (text: string) => {
      printedAtMs ??= Date.now()
      stdout += text
    })
    child.stderr?.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    const killer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 30_000)
    child.on("close", (code, signal) => {
      clearTimeout(killer)
      child.stdin?.destroy()
      allOutput.push(stdout, stderr)
      resume(Effect.succeed({
        code,
        signal,
        stdout,
        stderr,
        ms: performance.now() - started,
        endedAtMs: Date.now(),
        printedAtMs
      }))
    })
    options.onSpawn?.(child)
    return Effect.sync(() => child.kill("SIGKILL"))
  })

export const makeConfigDir = (): string => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ms-cli-e2e-"))

/** The non-empty lines of a text. */
export const linesOf = (text: string): ReadonlyArray<string> => text.split("\n").filter((line) => line.trim() !== "")

export const retryLine = /^A2A message id for request retry: (\S+)$/m

/**
 * Serves the reference platform (real HTTP, real clock) for the scope, plus the env that points the CLI at it.
 * The platform is watched for A2A v1 schema violations of `message:send` bodies (`expectConformantSends`).
 */
export const servePlatform = (
  options: ServeOptions = {}
): Effect.Effect<
  ReferencePlatform & { readonly env: Readonly<Record<string, string>> },
  HttpServerError.ServeError | SessionScenario.InvalidScenarioError,
  Scope.Scope
> =>
  Effect.map(serveReferencePlatform(options), (reference) => ({
    url: reference.url,
    // watched: after the test, no message:send body it received may break A2A v1 (see schemaConformance.ts)
    platform: watch(reference.platform),
    env: { MAINSEQUENCE_ENDPOINT: reference.url, MAINSEQUENCE_ACCESS_TOKEN: userAccessToken }
  }))

/** The `message.messageId` of the bodies the runtime received on `message:send`. */
export const sentMessageIds = (
  log: ReadonlyArray<{ readonly route: string; readonly bodyText: string }>
): ReadonlyArray<string | undefined> =>
  log.filter((entry) => entry.route === "message-send").map((entry) =>
    (JSON.parse(entry.bodyText) as { message?: { messageId?: string } }).message?.messageId
  )
