/**
 * End to end: the BUILT `mainsequence` executable as a child process against the reference platform served
 * over real HTTP on 127.0.0.1 (real clock). Every run has its own MAINSEQUENCE_CONFIG_DIR.
 */
import { afterAll, afterEach, describe, expect, it } from "@effect/vitest"
import { demoInputRequiredQuestion, demoRefreshToken, demoSessionUids } from "@mainsequence/a2a-testing/node"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { stripVTControlCharacters } from "node:util"
import {
  allOutput,
  cliBin,
  type CliProcessOptions,
  linesOf,
  makeConfigDir,
  retryLine,
  runCliProcess,
  sentMessageIds,
  servePlatform,
  userAccessToken
} from "./support/cliProcess.js"
import { errorDocumentOf, taskDocumentOf } from "./support/jsonOutput.js"
import {
  expectConformantSends,
  printedMessage,
  printedTask,
  taskIdOf,
  watchRemote
} from "./support/schemaConformance.js"

const cacheFile = (configDir: string) => Path.join(configDir, "runtime_access_cache.json")
const modeOf = (path: string) => Fs.statSync(path).mode & 0o777
const send = (uid: string, ...rest: ReadonlyArray<string>) => ["agent", "session", "a2a", "send", uid, ...rest]
const task = (verb: string, uid: string, id: string, ...rest: ReadonlyArray<string>) => [
  "agent",
  "session",
  "a2a",
  "task",
  verb,
  uid,
  id,
  ...rest
]

/** `send … --response-kind task`: exits 0 and prints a Task of the session, which it returns. */
const startTask = (uid: string, message: string, options: CliProcessOptions) =>
  Effect.map(runCliProcess(send(uid, "--message", message, "--response-kind", "task"), options), (run) => {
    expect(run.code, run.stderr).toBe(0)
    const started = printedTask(run.stdout)
    expect(started.contextId).toBe(uid)
    return started
  })

const taskSession = {
  sessionUid: "7a5c0000-0000-4000-8000-000000000001",
  agentUid: "7a5c0000-0000-4000-8000-000000000002",
  serviceUid: "7a5c0000-0000-4000-8000-000000000003",
  name: "Quick task Agent",
  agent: { taskSupport: true, workMs: 600, task: { queuedMs: 200 } }
}

/** An answer in 5 pieces, 2 s apart: whatever the machine's load, a cut within 4 s of the send is a real cut. */
const slowTrickleSession = {
  sessionUid: "7a5c0000-0000-4000-8000-000000000021",
  agentUid: "7a5c0000-0000-4000-8000-000000000022",
  serviceUid: "7a5c0000-0000-4000-8000-000000000023",
  name: "Slow trickling Agent",
  agent: { behaviour: { _tag: "Answer" as const, trickle: { chunks: 5, gapMs: 2000 } } }
}

const longTaskSession = {
  sessionUid: "7a5c0000-0000-4000-8000-000000000011",
  agentUid: "7a5c0000-0000-4000-8000-000000000012",
  serviceUid: "7a5c0000-0000-4000-8000-000000000013",
  name: "Long task Agent",
  agent: { taskSupport: true, workMs: 60_000 }
}

/** Runtime tokens ever cached by any run (read from cache files), to check none leaked elsewhere. */
const runtimeTokens = new Set<string>()
const collectTokens = (configDir: string) => {
  const path = cacheFile(configDir)
  if (!Fs.existsSync(path)) return
  try {
    const file = JSON.parse(Fs.readFileSync(path, "utf8")) as { entries?: Record<string, { token?: string }> }
    for (const entry of Object.values(file.entries ?? {})) if (entry.token !== undefined) runtimeTokens.add(entry.token)
  } catch {
    // a corrupt file is a test of its own
  }
}
/** The password of a proxy URL given to the CLI (a secret like the tokens). */
const proxyPassword = "proxy-secret-pw-1"
const configDirs: Array<string> = []
const configDir = () => {
  const dir = makeConfigDir()
  configDirs.push(dir)
  return dir
}

describe("mainsequence (built) against the reference platform over HTTP", () => {
  // Every message:send body a test's CLI runs caused must conform to A2A v1 (the platforms are watched).
  afterEach(expectConformantSends)

  it("runs the bundle: dist/mainsequence.cjs exists and is not older than the last tsc -b", () => {
    // `bin/mainsequence.js` falls back to the unbundled modules otherwise; every root script rebundles after tsc.
    const cliDir = Path.resolve(Path.dirname(cliBin), "..")
    const bundled = Fs.statSync(Path.join(cliDir, "dist/mainsequence.cjs"), { throwIfNoEntry: false })?.mtimeMs
    const compiled = Fs.statSync(Path.join(cliDir, ".tsbuild/src.tsbuildinfo")).mtimeMs
    expect(bundled ?? 0, "stale or missing bundle: run `pnpm build`").toBeGreaterThanOrEqual(compiled)
  })

  it.scopedLive("keeps its V8 code cache in XDG_CACHE_HOME (0600 in 0700), and runs the same with it", () =>
    Effect.gen(function*() {
      const dir = configDir()
      const xdg = Path.join(configDir(), "xdg-cache")
      const env = { XDG_CACHE_HOME: xdg }
      const first = yield* runCliProcess(["agent", "session", "a2a", "send", "--help"], { configDir: dir, env })
      const codeCache = Path.join(xdg, "mainsequence", "code-cache")
      const files = Fs.readdirSync(codeCache)
      expect(files).toHaveLength(1)
      expect(files[0]).toMatch(/^[0-9a-f]{32}-[0-9a-f]{8}\.v8cache$/)
      expect(modeOf(Path.join(codeCache, files[0] ?? ""))).toBe(0o600)
      expect(modeOf(codeCache)).toBe(0o700)
      const written = Fs.statSync(Path.join(codeCache, files[0] ?? "")).mtimeMs
      const second = yield* runCliProcess(["agent", "session", "a2a", "send", "--help"], { configDir: dir, env })
      expect({ code: second.code, stdout: second.stdout, stderr: second.stderr }).toEqual({
        code: first.code,
        stdout: first.stdout,
        stderr: first.stderr
      })
      expect(first.code).toBe(0)
      expect(Fs.readdirSync(codeCache)).toEqual(files)
      expect(Fs.statSync(Path.join(codeCache, files[0] ?? "")).mtimeMs).toBe(written)
      expect(Fs.readdirSync(dir)).toEqual([])
    }))

  it.scopedLive(
    "send: the answer as JSON on stdout, exit 0; --output text; the cache file is 0600 in a 0700 dir",
    () =>
      Effect.gen(function*() {
        const { env } = yield* servePlatform()
        const dir = Path.join(configDir(), "nested", "mainsequence")
        const run = yield* runCliProcess(send(demoSessionUids.ready, "--message", "What can you do?"), {
          configDir: dir,
          env
        })
        expect(run.stderr).toBe("")
        expect(run.code).toBe(0)
        expect(run.stdout.endsWith("}\n")).toBe(true)
        const message = printedMessage(run.stdout)
        expect(message).toMatchObject({
          role: "ROLE_AGENT",
          contextId: demoSessionUids.ready,
          parts: [{ text: "You said: What can you do?" }]
        })
        expect(run.stdout).toBe(JSON.stringify({ message }, null, 2) + "\n")
        expect(modeOf(dir)).toBe(0o700)
        expect(modeOf(cacheFile(dir))).toBe(0o600)
        collectTokens(dir)

        const text = yield* runCliProcess(send(demoSessionUids.ready, "--message", "plain", "--output", "text"), {
          configDir: dir,
          env
        })
        expect([text.code, text.stdout, text.stderr]).toEqual([0, "You said: plain\n", ""])
      }),
    60_000
  )

  it.scopedLive("bad input (SPEC §9): one line on stderr, exit 2, nothing sent", () =>
    Effect.gen(function*() {
      const { env, platform } = yield* servePlatform()
      const dir = configDir()
      const big = Path.join(dir, "big.pdf")
      Fs.writeFileSync(big, new Uint8Array(15 * 1024 * 1024 + 1))
      const note = Path.join(dir, "note.txt")
      Fs.writeFileSync(note, "hello")
      const uid = demoSessionUids.ready
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp, Record<string, string | undefined>?]> = [
        [send(uid, "--message", "   "), /message/i],
        [send(uid), /--message TEXT or --message-file PATH/],
        [send(uid, "--message", "a", "--message-file", note), /not both/],
        [send(uid, "--message-file", Path.join(dir, "missing.txt")), /message-file.*missing\.txt/],
        [send(uid, "--message-file", dir), /^Invalid message-file: cannot read ".*" \(a directory\)$/],
        [
          send(uid, "--message-file", Path.join(note, "m.txt")),
          /^Invalid message-file: cannot read ".*note\.txt\/m\.txt" \(a part of the path is not a directory\)$/
        ],
        [send("not-a-uuid", "--message", "a"), /UUID/],
        [send(uid, "--message", "a", "--message-id", "bad id!"), /message ?id/i],
        [send(uid, "--message", "a", "--message-id", "x".repeat(129)), /message ?id/i],
        [
          send(uid, "--message", "a", "--strict-dictionary", "--json-repair-attempts", "0"),
          /jsonRepairAttempts|repair/i
        ],
        [
          send(uid, "--message", "a", "--strict-dictionary", "--json-repair-attempts", "1.5"),
          /^Invalid json-repair-attempts: expected an integer \(got "1\.5"\)$/
        ],
        [
          send(uid, "--message", "a", "--strict-dictionary", "--json-repair-attempts", "abc"),
          /^Invalid json-repair-attempts: expected an integer \(got "abc"\)$/
        ],
        [send(uid, "--message", "a", "--file", Path.join(dir, "missing.pdf")), /missing\.pdf/],
        [
          send(uid, "--message", "a", "--file", Path.join(dir, "missing.pdf")),
          /^Invalid file: cannot read ".*missing\.pdf" \(no such file\)$/
        ],
        [send(uid, "--message", "a", "--file", dir), /^Invalid file: cannot read ".*" \(a directory\)$/],
        [
          send(uid, "--message", "a", "--file", Path.join(note, "a.pdf")),
          /^Invalid file: cannot read ".*note\.txt\/a\.pdf" \(a part of the path is not a directory\)$/
        ],
        [send(uid, "--message", "a", "--file", big), /big\.pdf.*15728641/],
        [send(uid, "--message", "a", "--file", note), /note\.txt.*media type/],
        [
          send(uid, "--message", "a", "--file", note, "--media-type", "text/plain", "--media-type", "x/y"),
          /media-type/
        ],
        [send(uid, "--message", "a", "--timeout", "0"), /timeout/],
        [send(uid, "--message", "a", "--timeout", "-5"), /timeout/],
        [send(uid, "--message", "a", "--timeout", "abc"), /timeout/],
        [send(uid, "--message", "a", "--timeout", "Infinity"), /timeout/],
        [send(uid, "--message", "a", "--timeout", "5,0"), /timeout/],
        [
          send(uid, "--message", "a", "--timeout", "1,2,3"),
          /^Invalid timeout: expected SECONDS or CONNECT,READ in seconds \(got "1,2,3"\)$/
        ],
        [
          send(uid, "--message", "a", "--timeout", "-5"),
          /^Invalid timeout: must be a positive, finite number of seconds \(got -5\)$/
        ],
        [
          send(uid, "--message", "a", "--response-kind", "stream"),
          /^Invalid response-kind: expected one of message, task \(got "stream"\)$/
        ],
        [
          send(uid, "--message", "a", "--task-id", "task-1"),
          /^Invalid task-id: a follow-up turn for a Task is a Task-mode send: give --response-kind task with it$/
        ],
        [
          send(uid, "--message", "a", "--task-id", "task-1", "--response-kind", "message"),
          /give --response-kind task with it$/
        ],
        [send(uid, "--message", "a", "--task-id", "  ", "--response-kind", "task"), /taskId: must not be blank/],
        [send(uid, "--message", "a"), /MAINSEQUENCE_ACCESS_TOKEN/, { MAINSEQUENCE_ACCESS_TOKEN: undefined }],
        [send(uid, "--message", "a"), /MAINSEQUENCE_ENDPOINT/, { MAINSEQUENCE_ENDPOINT: undefined }],
        [
          send(uid, "--message", "a"),
          /^Missing configuration: MAINSEQUENCE_ENDPOINT is not set in the environment; MAINSEQUENCE_ENDPIONT is set but not read \(did you mean MAINSEQUENCE_ENDPOINT\?\)$/,
          { MAINSEQUENCE_ENDPOINT: undefined, MAINSEQUENCE_ENDPIONT: env["MAINSEQUENCE_ENDPOINT"] }
        ],
        [task("get", uid, "   "), /task ?id/i],
        [task("wait", uid, "t-1", "--timeout", "0"), /timeout/]
      ]
      const runs = yield* Effect.forEach(
        cases,
        ([args, pattern, extra]) =>
          Effect.map(runCliProcess(args, { configDir: dir, env: { ...env, ...extra } }), (run) => ({
            run,
            args,
            pattern
          })),
        { concurrency: 6 }
      )
      runs.forEach(({ args, pattern, run }) => {
        const what = args.join(" ").slice(0, 140)
        expect(run.code, what).toBe(2)
        const lines = linesOf(run.stderr)
        expect(lines, what).toHaveLength(1)
        expect(lines[0], what).toMatch(pattern)
        expect(run.stderr, what).not.toMatch(/^\s+at /m)
        // --output json (the default): stdout is exactly one document, the same failure.
        expect(errorDocumentOf(run.stdout), what).toMatchObject({ message: lines[0], exitCode: 2, retrySafe: false })
      })
      // A directory on standard input is as unreadable as a directory named.
      const stdinDirectory = yield* runCliProcess(send(uid, "--message-file", "-"), {
        configDir: dir,
        env,
        stdinFile: dir
      })
      expect([stdinDirectory.code, linesOf(stdinDirectory.stderr)]).toEqual([
        2,
        ["Invalid message-file: cannot read standard input (a directory)"]
      ])
      expect(yield* platform.requestLog).toEqual([])
    }), 120_000)

  it.scopedLive("usage errors exit 2 with one line; --help prints usage and exits 0", () =>
    Effect.gen(function*() {
      const { env, platform } = yield* servePlatform()
      const dir = configDir()
      const usage = [
        send(demoSessionUids.ready, "--message", "a", "--bogus"),
        ["agent", "session", "a2a", "send", "--message", "a"],
        send(demoSessionUids.ready, "--message", "a", "--output", "yaml"),
        ["agent", "session", "a2a", "task", "get", demoSessionUids.ready],
        ["agent", "session", "a2a", "resolve", demoSessionUids.ready],
        []
      ]
      const runs = yield* Effect.forEach(
        usage,
        (args) => Effect.map(runCliProcess(args, { configDir: dir, env }), (run) => ({ run, args })),
        { concurrency: 6 }
      )
      runs.forEach(({ args, run }) => {
        const what = args.join(" ")
        expect(run.code, what).toBe(2)
        const lines = linesOf(run.stderr)
        expect(lines, what).toHaveLength(1)
        // The A2A commands answer in json by default, also when their command line does not parse.
        if (args[0] === "agent") {
          expect(errorDocumentOf(run.stdout), what).toMatchObject({ message: lines[0], exitCode: 2 })
        } else {
          expect(run.stdout, what).toBe("")
        }
      })
      const help = yield* runCliProcess(["agent", "session", "a2a", "send", "--help"], { configDir: dir, env })
      expect(help.code).toBe(0)
      // Not a terminal: no escape codes; the command's own path in USAGE.
      expect(help.stdout).toBe(stripVTControlCharacters(help.stdout))
      expect(help.stdout).toContain("\n$ mainsequence agent session a2a send [--message TEXT]")
      expect(help.stdout).toContain("\nEXIT CODES\n")
      const noColor = yield* runCliProcess(["agent", "session", "a2a", "task", "get", "--help"], {
        configDir: dir,
        env: { ...env, NO_COLOR: "1" }
      })
      expect(noColor.stdout).toBe(stripVTControlCharacters(noColor.stdout))
      expect(noColor.stdout).toContain("\n$ mainsequence agent session a2a task get [--timeout SECONDS]")
      expect(help.stdout).toContain("--message-file")
      expect(help.stdout).toContain("--response-kind")
      // The flags for scripts and agents, in the built executable's help.
      const helpText = help.stdout.replace(/\s+/g, " ")
      expect(helpText).toContain("[--debug]")
      expect(helpText).toContain("or from standard input with -")
      expect(helpText).toContain("stdout carries exactly one JSON document whatever the outcome")
      expect(helpText).toContain(
        "{\"error\": {type, message, exitCode, agentSessionUid, messageId, retrySafe, hint, details}}"
      )
      expect(helpText).toContain("with \"resume\" when the Task waits for input")
      expect(helpText).toContain("every credential redacted")
      expect(noColor.stdout.replace(/\s+/g, " ")).toContain("[--debug]")
      expect(help.stderr).toBe("")
      const rootHelp = yield* runCliProcess(["--help"], { configDir: dir, env })
      expect(rootHelp.code).toBe(0)
      const rootText = stripVTControlCharacters(rootHelp.stdout)
      for (const path of ["agent session a2a send", "agent session a2a task get", "dev platform"]) {
        expect(rootText.split(`\nmainsequence ${path} `)).toHaveLength(2)
      }
      expect(rootText).not.toMatch(/\b(agent|session|a2a) \1\b/)
      expect(yield* platform.requestLog).toEqual([])
    }), 60_000)

  it.scopedLive(
    "once a send began, a failure prints the message id line (generated or given)",
    () =>
      Effect.gen(function*() {
        const { env, platform } = yield* servePlatform()
        const dir = configDir()
        const generated = yield* runCliProcess(send(demoSessionUids.updateRequired, "--message", "hi"), {
          configDir: dir,
          env
        })
        expect(generated.code).toBe(3)
        const lines = linesOf(generated.stderr)
        expect(lines).toHaveLength(2)
        expect(lines[0]).toMatch(/update_required.*Nothing was sent/)
        expect(lines[1]).toMatch(
          /^A2A message id for request retry: msg-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
        )
        expect(errorDocumentOf(generated.stdout)).toMatchObject({
          type: "AgentRuntimeUnavailableError",
          message: lines[0],
          exitCode: 3,
          agentSessionUid: demoSessionUids.updateRequired,
          messageId: retryLine.exec(generated.stderr)?.[1],
          retrySafe: true
        })

        const given = yield* runCliProcess(
          send(demoSessionUids.updateRequired, "--message", "hi", "--message-id", "msg-client-uuid-1"),
          { configDir: dir, env }
        )
        expect(given.code).toBe(3)
        expect(linesOf(given.stderr)[1]).toBe("A2A message id for request retry: msg-client-uuid-1")
        // Nothing reached the runtime.
        expect(sentMessageIds(yield* platform.requestLog)).toEqual([])
      }),
    60_000
  )

  it.scopedLive("a second run reuses the cached access: no resolve call", () =>
    Effect.gen(function*() {
      const { env, platform } = yield* servePlatform()
      const dir = configDir()
      const first = yield* runCliProcess(send(demoSessionUids.ready, "--message", "one"), { configDir: dir, env })
      const second = yield* runCliProcess(send(demoSessionUids.ready, "--message", "two"), { configDir: dir, env })
      expect([first.code, second.code]).toEqual([0, 0])
      for (const run of [first, second]) printedMessage(run.stdout)
      const counters = yield* platform.counters
      expect(counters.resolveCalls[demoSessionUids.ready]).toBe(1)
      expect(counters.sends[demoSessionUids.ready]).toBe(2)
      const log = yield* platform.requestLog
      expect(log.map((entry) => entry.route)).toEqual(["resolve-runtime-access", "message-send", "message-send"])
      collectTokens(dir)
    }), 60_000)

  it.scopedLive(
    "a MAINSEQUENCE_* variable 2 edits from one it reads is named on stderr; the send goes on",
    () =>
      Effect.gen(function*() {
        const { env } = yield* servePlatform()
        const run = yield* runCliProcess(send(demoSessionUids.ready, "--message", "one"), {
          configDir: configDir(),
          env: { ...env, MAINSEQUENCE_REFRESH_TOEKN: "r", MAINSEQUENCE_PROJECT: "p" }
        })
        expect(run.code).toBe(0)
        printedMessage(run.stdout)
        expect(linesOf(run.stderr)).toEqual([
          "MAINSEQUENCE_REFRESH_TOEKN is set but not read (did you mean MAINSEQUENCE_REFRESH_TOKEN?)"
        ])
      }),
    60_000
  )

  it.scopedLive(
    "a runtime 401 after a token rotation drops the cached access; the resend keeps the message id",
    () =>
      Effect.gen(function*() {
        const { env, platform } = yield* servePlatform()
        const dir = configDir()
        const first = yield* runCliProcess(send(demoSessionUids.ready, "--message", "one"), { configDir: dir, env })
        expect(first.code).toBe(0)
        printedMessage(first.stdout)
        const before = Fs.readFileSync(cacheFile(dir), "utf8")
        collectTokens(dir)
        yield* platform.rotateRuntimeToken(demoSessionUids.ready)
        yield* platform.clearRequestLog
        const second = yield* runCliProcess(send(demoSessionUids.ready, "--message", "two"), { configDir: dir, env })
        expect(second.stderr).toBe("")
        expect(second.code).toBe(0)
        printedMessage(second.stdout)
        const log = yield* platform.requestLog
        expect(log.map((entry) => [entry.route, entry.status])).toEqual([
          ["message-send", 401],
          ["resolve-runtime-access", 200],
          ["message-send", 200]
        ])
        const ids = sentMessageIds(log)
        expect(ids[0]).toBe(ids[1])
        const after = Fs.readFileSync(cacheFile(dir), "utf8")
        expect(after).not.toBe(before)
        expect(modeOf(cacheFile(dir))).toBe(0o600)
        collectTokens(dir)
      }),
    60_000
  )

  it.scopedLive(
    "a runtime that moved: the run that finds its old address refused drops the cached access, the next reaches it",
    () =>
      Effect.gen(function*() {
        const { env, platform } = yield* servePlatform()
        const dir = configDir()
        yield* platform.updateSession(demoSessionUids.ready, (s) => ({ ...s, rpcUrl: "http://127.0.0.1:9/runtime/" }))
        const refused = yield* runCliProcess(send(demoSessionUids.ready, "--message", "one"), { configDir: dir, env })
        expect(refused.code, refused.stderr).toBe(6)
        expect(refused.stderr).toContain("ECONNREFUSED")
        yield* platform.updateSession(demoSessionUids.ready, ({ rpcUrl: _moved, ...rest }) => rest)
        const moved = yield* runCliProcess(send(demoSessionUids.ready, "--message", "two"), { configDir: dir, env })
        expect(moved.code, moved.stderr).toBe(0)
        printedMessage(moved.stdout)
        const counters = yield* platform.counters
        expect(counters.resolveCalls[demoSessionUids.ready]).toBe(2)
        expect(counters.sends[demoSessionUids.ready]).toBe(1)
        collectTokens(dir)
      }),
    60_000
  )

  it.scopedLive("a corrupt or foreign cache file is replaced, never a crash", () =>
    Effect.gen(function*() {
      const { env, platform } = yield* servePlatform()
      for (const content of ["{ corrupt", JSON.stringify({ version: 99, entries: {} }), ""]) {
        const dir = configDir()
        Fs.writeFileSync(cacheFile(dir), content, { mode: 0o644 })
        const run = yield* runCliProcess(send(demoSessionUids.ready, "--message", "hi"), { configDir: dir, env })
        expect(run.stderr).toBe("")
        expect(run.code).toBe(0)
        printedMessage(run.stdout)
        const file = JSON.parse(Fs.readFileSync(cacheFile(dir), "utf8")) as { version: number; entries: object }
        expect(file.version).toBe(1)
        expect(Object.keys(file.entries)).toHaveLength(1)
        expect(modeOf(cacheFile(dir))).toBe(0o600)
        collectTokens(dir)
      }
      expect((yield* platform.counters).resolveCalls[demoSessionUids.ready]).toBe(3)
    }), 60_000)

  it.scopedLive(
    "a 20 MB corrupt cache file does not stall a send, and is replaced by a valid one",
    () =>
      Effect.gen(function*() {
        const { env } = yield* servePlatform()
        const fresh = configDir()
        const hostile = configDir()
        // a valid start, then 10 M levels of nesting: 20 MB
        const levels = 10 * 1024 * 1024
        Fs.writeFileSync(
          cacheFile(hostile),
          `{"version":1,"entries":{"k":{"rpcUrl":"http://127.0.0.1:1/","token":"t","validUntilMillis":9e15,"x":${
            "[".repeat(levels)
          }${"]".repeat(levels)}}}}`,
          { mode: 0o600 }
        )
        // a first run warms the CLI's code cache, so the two measured runs start alike
        yield* runCliProcess(send(demoSessionUids.ready, "--message", "hi"), { configDir: configDir(), env })
        const withoutFile = yield* runCliProcess(send(demoSessionUids.ready, "--message", "hi"), {
          configDir: fresh,
          env
        })
        const withFile = yield* runCliProcess(send(demoSessionUids.ready, "--message", "hi"), {
          configDir: hostile,
          env
        })
        expect([withoutFile.code, withFile.code], withFile.stderr).toEqual([0, 0])
        printedMessage(withFile.stdout)
        // Reading and parsing the 20 MB would cost many seconds; the margin is for a loaded 2-core machine.
        expect(withFile.ms).toBeLessThan(withoutFile.ms + 3000)
        const file = JSON.parse(Fs.readFileSync(cacheFile(hostile), "utf8")) as { version: number; entries: object }
        expect(file.version).toBe(1)
        expect(Object.keys(file.entries)).toHaveLength(1)
        expect(Fs.statSync(cacheFile(hostile)).size).toBeLessThan(4096)
        collectTokens(fresh)
        collectTokens(hostile)
      }),
    60_000
  )

  it.scopedLive(
    "concurrent CLI processes sharing a config dir all succeed and leave a valid cache file",
    () =>
      Effect.gen(function*() {
        const { env } = yield* servePlatform()
        const dir = configDir()
        const uids = [demoSessionUids.ready, demoSessionUids.coldStart, demoSessionUids.ready, demoSessionUids.trickle]
        const runs = yield* Effect.forEach(
          [...uids, ...uids],
          (uid, i) => runCliProcess(send(uid, "--message", `concurrent ${i}`), { configDir: dir, env }),
          { concurrency: "unbounded" }
        )
        for (const run of runs) {
          expect(run.code, run.stderr).toBe(0)
          printedMessage(run.stdout)
        }
        const file = JSON.parse(Fs.readFileSync(cacheFile(dir), "utf8")) as { version: number; entries: object }
        expect(file.version).toBe(1)
        expect(Object.keys(file.entries).length).toBeGreaterThanOrEqual(1)
        expect(modeOf(cacheFile(dir))).toBe(0o600)
        expect(Fs.readdirSync(dir)).toEqual(["runtime_access_cache.json"])
        collectTokens(dir)
      }),
    90_000
  )

  it.scopedLive("--timeout cuts a trickled answer over real sockets", () =>
    Effect.gen(function*() {
      const { env, platform } = yield* servePlatform({ sessions: [slowTrickleSession] })
      const dir = configDir()
      // The trickling Agent sends its answer in 5 pieces, 400 ms apart: the body takes 1.6 s after the head.
      // The cuts are made on the slow one, whose body takes 8 s.
      const lastSendAt = Effect.map(platform.requestLog, (log) =>
        log.filter((entry) => entry.route === "message-send").at(-1)?.atMs ?? Number.NaN)
      const full = yield* runCliProcess(send(demoSessionUids.trickle, "--message", "all of it"), {
        configDir: dir,
        env
      })
      expect(full.code).toBe(0)
      printedMessage(full.stdout)
      expect(full.endedAtMs - (yield* lastSendAt)).toBeGreaterThanOrEqual(1500)

      const slow = slowTrickleSession.sessionUid
      const cut = yield* runCliProcess(send(slow, "--message", "cut", "--timeout", "0.7"), {
        configDir: dir,
        env
      })
      expect(cut.code).toBe(5)
      const lines = linesOf(cut.stderr)
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/0\.7 s budget ran out during read-response; the message may already have reached/)
      expect(lines[1]).toMatch(retryLine)
      // The error was printed long before the rest of the answer could have arrived.
      expect((cut.printedAtMs ?? Number.NaN) - (yield* lastSendAt)).toBeLessThan(4000)
      expect(errorDocumentOf(cut.stdout)).toMatchObject({
        type: "A2ATimeoutError",
        exitCode: 5,
        messageId: retryLine.exec(cut.stderr)?.[1],
        retrySafe: false,
        details: { step: "read-response", limit: "total", seconds: 0.7, messageMayHaveBeenSent: true }
      })

      // --debug reads the body as it passes: the answer is still whole, and the budget still cuts it.
      const debugFull = yield* runCliProcess(send(demoSessionUids.trickle, "--message", "all again", "--debug"), {
        configDir: dir,
        env
      })
      expect(debugFull.code).toBe(0)
      expect(printedMessage(debugFull.stdout)).toMatchObject({ parts: [{ text: "You said: all again" }] })
      const debugCut = yield* runCliProcess(
        send(slow, "--message", "cut again", "--timeout", "0.7", "--debug"),
        { configDir: dir, env }
      )
      expect(debugCut.code).toBe(5)
      expect((debugCut.printedAtMs ?? Number.NaN) - (yield* lastSendAt)).toBeLessThan(4000)
      // The head came; the budget ended the body while it trickled.
      expect(debugCut.stderr).toMatch(/^debug #\d+ < 200 POST http\S+message:send \(head after [\d.]+ ms\)$/m)
      expect(debugCut.stderr).toMatch(/^debug #\d+ < body stopped after \d+ bytes and [\d.]+ ms/m)
      expect(errorDocumentOf(debugCut.stdout)).toMatchObject({ type: "A2ATimeoutError", exitCode: 5 })

      const pair = yield* runCliProcess(send(slow, "--message", "pair", "--timeout", "0.3,2.5"), {
        configDir: dir,
        env
      })
      expect(pair.code).toBe(5)
      expect(linesOf(pair.stderr)[0]).toMatch(/2\.8 s budget ran out during read-response/)
      expect((pair.printedAtMs ?? Number.NaN) - (yield* lastSendAt)).toBeLessThan(6000)
    }), 60_000)

  it.scopedLive(
    "exit codes (SPEC §8): 3 not ready, 4 auth, 5 Message limit, 6 connection, 1 otherwise",
    () =>
      Effect.gen(function*() {
        const faulty = (n: number, rest: Record<string, unknown>) => ({
          sessionUid: `e1170000-0000-4000-8000-00000000000${n}`,
          agentUid: `e1170000-0000-4000-8000-00000000010${n}`,
          serviceUid: `e1170000-0000-4000-8000-00000000020${n}`,
          ...rest
        })
        const forbidden = faulty(1, { backend: { resolveFault: { status: 403, detail: "Not yours" } } })
        const runtimeRefuses = faulty(2, { token: { rejectAll: 401 } })
        const limited = faulty(3, { backend: { resolveFault: { status: 429, retryAfter: "30" } } })
        // Waking, and the platform asks to be asked again in a minute: that never fits a 10 s budget.
        const stuck = faulty(4, { access: { _tag: "StuckTransient", state: "waking", retryAfterMs: 60_000 } })
        const { env, platform } = yield* servePlatform({
          messageLimitSeconds: 1,
          sessions: [forbidden, runtimeRefuses, limited, stuck]
        })
        const dir = configDir()
        const cases: ReadonlyArray<
          readonly [string, ReadonlyArray<string>, number, RegExp, Record<string, string>?]
        > = [
          ["not ready", send(stuck.sessionUid, "--message", "a", "--timeout", "10"), 3, /still waking/],
          ["unavailable", send(demoSessionUids.updateRequired, "--message", "a"), 3, /cannot take messages/],
          ["not logged in", send(demoSessionUids.ready, "--message", "a"), 4, /Not logged in/, {
            MAINSEQUENCE_ACCESS_TOKEN: "not-a-valid-token"
          }],
          ["permission denied", send(forbidden.sessionUid, "--message", "a"), 4, /Permission denied/],
          ["runtime auth", send(runtimeRefuses.sessionUid, "--message", "a"), 4, /rejected its credentials/],
          ["Message limit", send(demoSessionUids.messageLimit, "--message", "a"), 5, /within the platform's limit/],
          ["connection", send(demoSessionUids.ready, "--message", "a", "--timeout", "2,2"), 6, /connection failed/, {
            MAINSEQUENCE_ENDPOINT: "http://127.0.0.1:9"
          }],
          ["rate limited", send(limited.sessionUid, "--message", "a"), 1, /Rate limited/]
        ]
        const runs = yield* Effect.forEach(
          cases,
          ([what, args, code, pattern, extra]) =>
            Effect.map(
              runCliProcess(args, { configDir: dir, env: { ...env, ...extra } }),
              (run) => ({ what, args, run, code, pattern })
            ),
          { concurrency: 4 }
        )
        for (const { args, code, pattern, run, what } of runs) {
          expect([what, run.code], run.stderr).toEqual([what, code])
          const lines = linesOf(run.stderr).filter((line) => !line.startsWith("Agent runtime "))
          expect(lines, what).toHaveLength(2)
          expect(lines[0], what).toMatch(pattern)
          expect(lines[1], what).toMatch(retryLine)
          // One document on stdout: the same failure, its exit code, the message id to retry with.
          const document = errorDocumentOf(run.stdout)
          expect(document, what).toMatchObject({ message: lines[0], exitCode: code })
          expect(document.messageId, what).toBe(retryLine.exec(run.stderr)?.[1])
          expect(document.agentSessionUid, what).toBe(args[4])
          expect(document.hint, what).not.toBe("")
          expect(run.stderr, what).not.toContain("not-a-valid-token")
          expect(run.stderr, what).toBe(stripVTControlCharacters(run.stderr))
        }
        // Only the runtime-auth and Message-limit sends reached a runtime.
        const reached = (yield* platform.requestLog).filter((entry) => entry.route === "message-send")
        expect([...new Set(reached.map((entry) => entry.sessionUid))].sort()).toEqual(
          [demoSessionUids.messageLimit, runtimeRefuses.sessionUid].sort()
        )
      }),
    90_000
  )

  it.scopedLive("a cold runtime: plain progress lines on stderr, the answer on stdout", () =>
    Effect.gen(function*() {
      const { env, platform } = yield* servePlatform()
      const dir = configDir()
      const run = yield* runCliProcess(send(demoSessionUids.coldStart, "--message", "wake up"), { configDir: dir, env })
      expect(run.code).toBe(0)
      expect(printedMessage(run.stdout)).toMatchObject({ parts: [{ text: "You said: wake up" }] })
      const lines = linesOf(run.stderr)
      expect(lines.length).toBeGreaterThanOrEqual(2)
      for (const line of lines) {
        expect(line).toMatch(/^Agent runtime (checking|starting|waking) — [^;]*[^.;]\. Next check in [\d.]+ s$/)
      }
      expect(new Set(lines.map((line) => line.split(" ")[2])).size).toBe(lines.length)
      expect((yield* platform.counters).resolveCalls[demoSessionUids.coldStart]).toBeGreaterThan(lines.length)
    }), 60_000)

  for (
    const [signal, code, twice] of [["SIGINT", 130, false], ["SIGTERM", 143, false], ["SIGINT", 130, true]] as const
  ) {
    it.scopedLive(
      `${signal}${twice ? " twice at once (npx forwards the terminal's)" : ""} during a send: exit ${code} with the ` +
        "interruption line and the message id line",
      () =>
        Effect.gen(function*() {
          const { env, platform } = yield* servePlatform()
          const dir = configDir()
          const run = yield* runCliProcess(send(demoSessionUids.slow, "--message", "take your time"), {
            configDir: dir,
            env,
            onSpawn: (child) => {
              const poll = setInterval(() => {
                Effect.runPromise(platform.requestLog).then((log) => {
                  if (log.some((entry) => entry.route === "message-send")) {
                    clearInterval(poll)
                    child.kill(signal)
                    if (twice) setTimeout(() => child.kill(signal), 2)
                  }
                })
              }, 20)
            }
          })
          expect(run.code).toBe(code)
          expect(run.stderr).toMatch(
            /Interrupted: the send was stopped; the message may already have reached the runtime/
          )
          const id = retryLine.exec(run.stderr)?.[1]
          expect(id).toBeDefined()
          expect(sentMessageIds(yield* platform.requestLog)).toEqual([id])
          expect(run.stderr).not.toMatch(/^\s+at /m)
          expect(errorDocumentOf(run.stdout)).toMatchObject({
            type: "Interrupted",
            exitCode: code,
            agentSessionUid: demoSessionUids.slow,
            messageId: id,
            retrySafe: false
          })
        }),
      60_000
    )
  }

  it.scopedLive(
    "a --message-file FIFO nobody writes to stops on one SIGINT: exit 130, nothing sent",
    () =>
      Effect.gen(function*() {
        const { env, platform } = yield* servePlatform()
        const dir = configDir()
        const fifo = Path.join(dir, "message.fifo")
        ChildProcess.execFileSync("mkfifo", [fifo])
        const run = yield* runCliProcess(send(demoSessionUids.ready, "--message-file", fifo), {
          configDir: dir,
          env,
          killAfterMs: 10_000,
          onSpawn: (child) => {
            // Once the CLI holds the FIFO open (or after 3 s, when it never does), one Ctrl-C.
            const spawned = Date.now()
            const poll = setInterval(() => {
              const open = Fs.readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
                try {
                  return Fs.readlinkSync(`/proc/${child.pid}/fd/${fd}`) === fifo
                } catch {
                  return false
                }
              })
              if (open || Date.now() - spawned > 3_000) {
                clearInterval(poll)
                child.kill("SIGINT")
              }
            }, 20)
          }
        })
        Fs.rmSync(fifo)
        expect([run.code, run.signal]).toEqual([130, null])
        expect(errorDocumentOf(run.stdout)).toMatchObject({ type: "Interrupted", exitCode: 130 })
        expect((yield* platform.requestLog).filter((entry) => entry.route === "message-send")).toEqual([])
      }),
    60_000
  )

  it.scopedLive("--message with --message-file - is refused at once, standard input left unread", () =>
    Effect.gen(function*() {
      const { env, platform } = yield* servePlatform()
      const run = yield* runCliProcess(
        send(demoSessionUids.ready, "--message", "hi", "--message-file", "-", "--output", "text"),
        { configDir: configDir(), env, holdStdin: true, killAfterMs: 10_000 }
      )
      expect([run.code, linesOf(run.stderr)]).toEqual([2, [
        "Invalid message: give --message or --message-file, not both"
      ]])
      expect(yield* platform.requestLog).toEqual([])
    }))

  it.scopedLive.skipIf(process.platform !== "linux")(
    "SIGINT or SIGTERM while --message-file - waits for standard input: the interruption with the ids, exit 130 / 143",
    () =>
      Effect.gen(function*() {
        const { env, platform } = yield* servePlatform()
        for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
          for (const format of ["json", "text"]) {
            const run = yield* runCliProcess(
              send(demoSessionUids.ready, "--message-file", "-", "--output", format, "--message-id", "msg-stdin-1"),
              {
                configDir: configDir(),
                env,
                holdStdin: true,
                killAfterMs: 10_000,
                onSpawn: (child) => {
                  // Node makes standard input non-blocking (O_NONBLOCK) once the CLI starts reading it.
                  const poll = setInterval(() => {
                    const flags = /^flags:\s+(\d+)$/m.exec(Fs.readFileSync(`/proc/${child.pid}/fdinfo/0`, "utf8"))?.[1]
                    if ((Number.parseInt(flags ?? "0", 8) & Fs.constants.O_NONBLOCK) !== 0) {
                      clearInterval(poll)
                      child.kill(signal)
                    }
                  }, 20)
                  child.once("exit", () => clearInterval(poll))
                }
              }
            )
            const what = `${signal} ${format}`
            expect([what, run.code, linesOf(run.stderr)]).toEqual([what, code, [
              "Interrupted: the call was stopped",
              "A2A message id for request retry: msg-stdin-1"
            ]])
            if (format === "json") {
              expect(errorDocumentOf(run.stdout)).toMatchObject({
                type: "Interrupted",
                exitCode: code,
                agentSessionUid: demoSessionUids.ready,
                messageId: "msg-stdin-1",
                retrySafe: true
              })
            } else {
              expect(run.stdout).toBe("")
            }
          }
        }
        expect((yield* platform.requestLog).filter((entry) => entry.route === "message-send")).toEqual([])
      }),
    60_000
  )

  it.scopedLive(
    "SIGINT or SIGTERM while the CLI loads: the interruption document, exit 130 / 143, nothing sent",
    () =>
      Effect.gen(function*() {
        const { env, platform } = yield* servePlatform()
        const fixture = new URL("support/signalWhileLoading.mjs", import.meta.url).href
        for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
          // At the bundle's stat, the CLI's own handlers are not there yet; at its read, the start waits no more.
          for (const at of ["stat", "read"]) {
            const dir = configDir()
            const mark = Path.join(dir, "signalled")
            const run = yield* runCliProcess(send(demoSessionUids.ready, "--message", "hi", "--output", "json"), {
              configDir: dir,
              env: {
                ...env,
                NODE_OPTIONS: `--import=${fixture}`,
                SIGNAL_WHILE_LOADING: signal,
                SIGNAL_WHILE_LOADING_AT: at,
                SIGNAL_WHILE_LOADING_MARK: mark
              },
              killAfterMs: 10_000
            })
            const what = `${signal} at ${at}`
            expect(Fs.readFileSync(mark, "utf8")).toBe(`${what}\n`)
            const [first, ...rest] = linesOf(run.stderr)
            expect([what, run.code, run.signal, first]).toEqual([what, code, null, "Interrupted: the call was stopped"])
            const document = errorDocumentOf(run.stdout)
            expect(document, what).toMatchObject({ type: "Interrupted", exitCode: code, retrySafe: true })
            // The signal may be handled once the send has prepared its message: its id is then named.
            expect(rest, what).toEqual(
              document.messageId === null ? [] : [`A2A message id for request retry: ${document.messageId}`]
            )
          }
        }
        expect((yield* platform.requestLog).filter((entry) => entry.route === "message-send")).toEqual([])
      }),
    60_000
  )

  it.scopedLive("a reader that closes stdout early (… | head) gets no stack trace", () =>
    Effect.gen(function*() {
      const { env } = yield* servePlatform()
      const dir = configDir()
      const messageFile = Path.join(dir, "long.txt")
      Fs.writeFileSync(messageFile, "a".repeat(2_000_000))
      const run = yield* runCliProcess(send(demoSessionUids.ready, "--message-file", messageFile), {
        configDir: dir,
        env,
        onSpawn: (child) => child.stdout?.once("data", () => child.stdout?.destroy())
      })
      Fs.rmSync(messageFile)
      expect(run.code).toBe(0)
      expect(run.stderr).toBe("")
    }), 60_000)

  it.scopedLive.skipIf(!Fs.existsSync("/dev/full"))(
    "a stdout that cannot be written (a full disk) exits 1 with one line on stderr, in json and text, and for --help, --version and --completions",
    () =>
      Effect.gen(function*() {
        const { env } = yield* servePlatform()
        for (const format of ["json", "text"]) {
          const run = yield* runCliProcess(send(demoSessionUids.ready, "--message", "hi", "--output", format), {
            configDir: configDir(),
            env,
            stdoutFile: "/dev/full"
          })
          expect([run.code, linesOf(run.stderr)]).toEqual([
            1,
            ["Cannot write to standard output: ENOSPC: no space left on device, write"]
          ])
        }
        for (
          const args of [
            ["--help"],
            ["agent", "--help"],
            [...send(demoSessionUids.ready), "--help"],
            ["--version"],
            ["--completions", "bash"]
          ]
        ) {
          const run = yield* runCliProcess(args, { configDir: configDir(), env, stdoutFile: "/dev/full" })
          expect([args, run.code, linesOf(run.stderr)]).toEqual([
            args,
            1,
            ["Cannot write to standard output: ENOSPC: no space left on device, write"]
          ])
        }
      }),
    60_000
  )

  it.scopedLive(
    "Task mode: send --response-kind task, then task get, wait and cancel",
    () =>
      Effect.gen(function*() {
        const { env } = yield* servePlatform({ sessions: [taskSession, longTaskSession] })
        const dir = configDir()
        const uid = taskSession.sessionUid
        const createdId = taskIdOf(yield* startTask(uid, "a job", { configDir: dir, env }))

        const got = yield* runCliProcess(task("get", uid, createdId), { configDir: dir, env })
        expect(got.code, got.stderr).toBe(0)
        expect(printedTask(got.stdout)).toMatchObject({ id: createdId })

        const waited = yield* runCliProcess(task("wait", uid, createdId, "--timeout", "20"), { configDir: dir, env })
        expect(waited.code, waited.stderr).toBe(0)
        expect(printedTask(waited.stdout)).toMatchObject({ id: createdId, status: { state: "TASK_STATE_COMPLETED" } })

        const long = longTaskSession.sessionUid
        const secondId = taskIdOf(yield* startTask(long, "a long job", { configDir: dir, env }))
        const canceled = yield* runCliProcess(task("cancel", long, secondId), { configDir: dir, env })
        expect(canceled.code, canceled.stderr).toBe(0)
        expect(printedTask(canceled.stdout)).toMatchObject({ id: secondId, status: { state: "TASK_STATE_CANCELED" } })

        const missing = yield* runCliProcess(task("get", uid, "no-such-task"), { configDir: dir, env })
        expect(missing.code).toBe(1)
        expect(linesOf(missing.stderr)).toHaveLength(1)
        expect(missing.stderr).toMatch(/no-such-task was not found/)
        expect(errorDocumentOf(missing.stdout)).toMatchObject({
          type: "TaskNotFoundError",
          exitCode: 1,
          agentSessionUid: uid,
          messageId: null,
          details: { taskId: "no-such-task" }
        })

        const notSupported = yield* runCliProcess(
          send(demoSessionUids.ready, "--message", "x", "--response-kind", "task"),
          {
            configDir: dir,
            env
          }
        )
        expect(notSupported.code).toBe(1)
        expect(notSupported.stderr).toMatch(/does not support Task mode/)

        collectTokens(dir)
      }),
    90_000
  )

  /** The lines of a `task wait`'s stderr after its progress lines, which depend on timing (one per state). */
  const afterWaitProgress = (stderr: string, taskId: string): ReadonlyArray<string> => {
    const progress = new RegExp(
      `^The Task ${taskId} is under way \\(TASK_STATE_(SUBMITTED|WORKING)\\)\\. Next check in [0-9.]+ s$`
    )
    const lines = linesOf(stderr)
    const shown = lines.filter((line) => progress.test(line))
    expect(lines.slice(0, shown.length)).toEqual(shown)
    expect(new Set(shown).size).toBe(shown.length)
    return lines.slice(shown.length)
  }

  it.scopedLive(
    "a follow-up turn (SPEC §7): wait stops at INPUT_REQUIRED with the question, send --task-id answers the same " +
      "Task, wait → COMPLETED; an unknown Task id → exit 1, TASK_NOT_FOUND",
    () =>
      Effect.gen(function*() {
        const { env, platform } = yield* servePlatform({ sessions: [taskSession] })
        const dir = configDir()
        const uid = demoSessionUids.inputRequired
        const taskId = taskIdOf(yield* startTask(uid, "Write the report", { configDir: dir, env }))

        const asked = yield* runCliProcess(task("wait", uid, taskId, "--timeout", "20"), { configDir: dir, env })
        expect(asked.code).toBe(0)
        // stderr names the command that answers the Task; the document has it as "resume".
        const { resume } = taskDocumentOf(asked.stdout)
        const resumeArgs = ["agent", "session", "a2a", "send", uid, "--task-id", taskId, "--response-kind", "task"]
        expect(resume).toEqual({
          state: "TASK_STATE_INPUT_REQUIRED",
          command: `mainsequence ${resumeArgs.join(" ")} --message TEXT`,
          args: resumeArgs
        })
        expect(afterWaitProgress(asked.stderr, taskId)).toEqual([
          `The Task waits for you (TASK_STATE_INPUT_REQUIRED); answer it with: ${resume?.command} ` +
          "(or --message-file - to read the answer from standard input)"
        ])
        expect(printedTask(asked.stdout)).toMatchObject({
          id: taskId,
          contextId: uid,
          status: {
            state: "TASK_STATE_INPUT_REQUIRED",
            message: { role: "ROLE_AGENT", parts: [{ text: demoInputRequiredQuestion }] }
          }
        })
        const askedText = yield* runCliProcess(task("get", uid, taskId, "--output", "text"), { configDir: dir, env })
        expect([askedText.code, askedText.stdout]).toEqual([0, `${demoInputRequiredQuestion}\n`])
        expect(askedText.stderr).toContain(resume?.command)

        // An earlier Task of another session, to reference: message.referenceTaskIds is copied as given.
        const earlierId = taskIdOf(yield* startTask(taskSession.sessionUid, "earlier", { configDir: dir, env }))
        // The follow-up turn is the resume command, its answer read from a pipe (--message-file -).
        const answered = yield* runCliProcess(
          [
            ...(resume?.args ?? []),
            "--message-file",
            "-",
            "--reference-task-id",
            earlierId,
            "--message-id",
            "msg-follow-up-1"
          ],
          { configDir: dir, env, stdin: "Europe" }
        )
        expect([answered.code, answered.stderr]).toEqual([
          0,
          `The Task ${taskId} is under way (TASK_STATE_WORKING); follow it with: ` +
          `mainsequence agent session a2a task wait ${uid} ${taskId}\n`
        ])
        expect(printedTask(answered.stdout)).toMatchObject({ id: taskId, status: { state: "TASK_STATE_WORKING" } })
        const followUpSend = (yield* platform.requestLog).filter((entry) => entry.messageId === "msg-follow-up-1")
        expect(followUpSend.map((entry) => [entry.route, entry.status])).toEqual([["message-send", 200]])
        expect(JSON.parse(followUpSend[0]?.bodyText ?? "{}")).toMatchObject({
          message: { taskId, referenceTaskIds: [earlierId], parts: [{ text: "Europe" }] },
          configuration: { responseKind: "task" }
        })

        const done = yield* runCliProcess(task("wait", uid, taskId, "--timeout", "20"), { configDir: dir, env })
        expect([done.code, afterWaitProgress(done.stderr, taskId)]).toEqual([0, []])
        expect(printedTask(done.stdout)).toMatchObject({
          id: taskId,
          status: { state: "TASK_STATE_COMPLETED" },
          artifacts: [{ parts: [{ text: "Report ready for: Europe" }] }]
        })

        const unknown = yield* runCliProcess(
          send(
            uid,
            "--message",
            "Europe",
            "--response-kind",
            "task",
            "--task-id",
            "task-unknown",
            "--message-id",
            "msg-follow-up-2"
          ),
          { configDir: dir, env }
        )
        expect(unknown.code).toBe(1)
        expect(errorDocumentOf(unknown.stdout)).toMatchObject({
          type: "A2ARequestError",
          exitCode: 1,
          agentSessionUid: uid,
          messageId: "msg-follow-up-2",
          retrySafe: false,
          details: { reason: "TASK_NOT_FOUND" }
        })
        // On message:send the SDK reports the runtime's refusal as A2ARequestError, with its reason and detail.
        expect(linesOf(unknown.stderr)).toEqual([
          `The Agent runtime refused the request (404 TASK_NOT_FOUND): Task task-unknown was not found. (session ${uid})`,
          "A2A message id for request retry: msg-follow-up-2"
        ])
        const unknownSend = (yield* platform.requestLog).filter((entry) => entry.messageId === "msg-follow-up-2")
        expect(unknownSend.map((entry) => [entry.route, entry.status])).toEqual([["message-send", 404]])
        expect(JSON.parse(unknownSend[0]?.bodyText ?? "{}")).toMatchObject({ message: { taskId: "task-unknown" } })
        collectTokens(dir)
      }),
    90_000
  )

  it.scopedLive(
    "dev platform: prints the endpoint, the token export and the demo sessions; the CLI works against it",
    () =>
      Effect.gen(function*() {
        const dir = configDir()
        let printed = ""
        let sendRun: Promise<unknown> | undefined
        const run = yield* runCliProcess(["dev", "platform"], {
          configDir: dir,
          env: {},
          onSpawn: (child) => {
            child.stdout?.on("data", (chunk: Buffer) => {
              printed += chunk.toString("utf8")
              const endpoint = /^export MAINSEQUENCE_ENDPOINT=(\S+)$/m.exec(printed)?.[1]
              const token = /^export MAINSEQUENCE_ACCESS_TOKEN=(\S+)$/m.exec(printed)?.[1]
              if (sendRun === undefined && endpoint !== undefined && token !== undefined && printed.includes("Try:")) {
                sendRun = Effect.runPromise(
                  runCliProcess(send(demoSessionUids.ready, "--message", "via dev platform"), {
                    configDir: dir,
                    env: { MAINSEQUENCE_ENDPOINT: endpoint, MAINSEQUENCE_ACCESS_TOKEN: token }
                  })
                ).then((result) =>
                  // the platform runs in the child: read its request log over HTTP before stopping it
                  watchRemote(endpoint).then(() => result, () => result).finally(() => child.kill("SIGINT"))
                )
              }
            })
          }
        })
        expect(run.code).toBe(130)
        expect(run.stdout).toMatch(/^export MAINSEQUENCE_ENDPOINT=http:\/\/127\.0\.0\.1:\d+$/m)
        expect(run.stdout).toContain(`export MAINSEQUENCE_ACCESS_TOKEN=${userAccessToken}`)
        for (const uid of Object.values(demoSessionUids)) expect(run.stdout).toContain(uid)
        const sent = (yield* Effect.promise(() => sendRun ?? Promise.resolve(undefined))) as
          | { code: number; stdout: string }
          | undefined
        expect(sent?.code).toBe(0)
        expect(printedMessage(sent?.stdout ?? "")).toMatchObject({ parts: [{ text: "You said: via dev platform" }] })
        // This run printed the demo token on purpose: keep it out of the leak check below.
        allOutput.splice(allOutput.indexOf(run.stdout), 1)
      }),
    60_000
  )

  it.scopedLive(
    "--message-file - reads the message from a pipe: UTF-8, whole; over 15 MiB, blank or not UTF-8: exit 2",
    () =>
      Effect.gen(function*() {
        const { env, platform } = yield* servePlatform()
        const dir = configDir()
        const text = "Grüße aus Zürich ✓\n  second line, with a trailing newline\n"
        const piped = yield* runCliProcess(send(demoSessionUids.ready, "--message-file", "-"), {
          configDir: dir,
          env,
          stdin: Buffer.from(text, "utf8")
        })
        expect([piped.code, piped.stderr]).toEqual([0, ""])
        expect(printedMessage(piped.stdout)).toMatchObject({ parts: [{ text: `You said: ${text}` }] })
        const sent = (yield* platform.requestLog).filter((entry) => entry.route === "message-send")
        expect(JSON.parse(sent[0]?.bodyText ?? "{}")).toMatchObject({ message: { parts: [{ text }] } })
        yield* platform.clearRequestLog

        const tooLarge = yield* runCliProcess(send(demoSessionUids.ready, "--message-file", "-"), {
          configDir: dir,
          env,
          stdin: new Uint8Array(15 * 1024 * 1024 + 1).fill(97)
        })
        const limitLine = "Invalid message-file: standard input is more than the limit of 15728640 bytes (15 MiB)"
        expect([tooLarge.code, linesOf(tooLarge.stderr)]).toEqual([2, [limitLine]])
        expect(errorDocumentOf(tooLarge.stdout)).toMatchObject({ message: limitLine, exitCode: 2 })
        const blank = yield* runCliProcess(send(demoSessionUids.ready, "--message-file", "-"), {
          configDir: dir,
          env,
          stdin: "  \n"
        })
        expect(blank.code).toBe(2)
        expect(linesOf(blank.stderr)).toEqual([expect.stringMatching(/message/i)])
        const latin1 = yield* runCliProcess(send(demoSessionUids.ready, "--message-file", "-"), {
          configDir: dir,
          env,
          stdin: Buffer.from("Grüße", "latin1")
        })
        expect([latin1.code, linesOf(latin1.stderr)]).toEqual([2, [
          "Invalid message-file: standard input is not UTF-8 text (send other files as attachments, with --file)"
        ]])
        expect(yield* platform.requestLog).toEqual([])
      }),
    60_000
  )

  it.scopedLive(
    "--debug: every exchange on stderr, no secret (refresh, cold start, rotated runtime token, Tasks, a proxy)",
    () =>
      Effect.gen(function*() {
        // The user's token has expired: each run refreshes it (the refresh token stays valid).
        const { env, platform } = yield* servePlatform({
          userTokensExpired: true,
          rotateRefreshTokens: false,
          sessions: [taskSession, longTaskSession]
        })
        const refreshEnv = { ...env, MAINSEQUENCE_REFRESH_TOKEN: Redacted.value(demoRefreshToken) }
        const dir = configDir()
        const run = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) =>
          runCliProcess([...args, "--debug"], { configDir: dir, env: { ...refreshEnv, ...extra } })
        const warm = yield* run(send(demoSessionUids.ready, "--message", "one"))
        const cold = yield* run(send(demoSessionUids.coldStart, "--message", "wake up"))
        collectTokens(dir)
        yield* platform.rotateRuntimeToken(demoSessionUids.ready)
        const rotated = yield* run(send(demoSessionUids.ready, "--message", "two"))
        collectTokens(dir)
        const started = yield* run(send(taskSession.sessionUid, "--message", "a job", "--response-kind", "task"))
        const taskId = taskIdOf(printedTask(started.stdout))
        const got = yield* run(task("get", taskSession.sessionUid, taskId))
        const waited = yield* run(task("wait", taskSession.sessionUid, taskId, "--timeout", "20"))
        const long = yield* run(send(longTaskSession.sessionUid, "--message", "long", "--response-kind", "task"))
        const canceled = yield* run(task("cancel", longTaskSession.sessionUid, taskIdOf(printedTask(long.stdout))))
        const proxied = yield* run(send(demoSessionUids.ready, "--message", "via proxy", "--timeout", "2,2"), {
          HTTP_PROXY: `http://proxy-user:${proxyPassword}@127.0.0.1:9`
        })
        collectTokens(dir)
        const ok = [warm, cold, rotated, started, got, waited, long, canceled]
        for (const each of ok) expect(each.code, each.stderr).toBe(0)
        expect(proxied.code).toBe(6)
        expect(errorDocumentOf(proxied.stdout)).toMatchObject({ type: "A2ATransportError", exitCode: 6 })
        expect(proxied.stderr).toMatch(/^debug #1 ! POST http:\/\/127\.0\.0\.1:\d+\S+ failed after [\d.]+ ms: /m)
        expect(proxied.stderr).not.toContain(proxyPassword)
        expect(proxied.stderr).not.toContain("proxy-user")
        expect((yield* platform.counters).refreshes).toBeGreaterThan(0)
        const secrets = [userAccessToken, Redacted.value(demoRefreshToken), proxyPassword, ...runtimeTokens]
        for (const each of [...ok, proxied]) {
          // Every token of the reference platform starts with msim- (user, refreshed, runtime).
          expect(each.stdout + each.stderr).not.toMatch(/msim-/)
          for (const secret of secrets) expect(each.stdout + each.stderr).not.toContain(secret)
          const debug = linesOf(each.stderr).filter((line) => line.startsWith("debug #"))
          const requests = debug.filter((line) => /^debug #\d+ > (GET|POST) http:\/\/127\.0\.0\.1:\d+\//.test(line))
          expect(requests.length).toBeGreaterThan(0)
          if (each === proxied) continue
          const heads = debug.filter((line) =>
            /^debug #\d+ < \d{3} (GET|POST) \S+ \(head after [\d.]+ ms\)$/.test(line)
          )
          const bodies = debug.filter((line) => /^debug #\d+ < body \(\d+ bytes, ended after [\d.]+ ms\): /.test(line))
          expect([heads.length, bodies.length]).toEqual([requests.length, requests.length])
          expect(debug).toContain(debug.find((line) => /^debug #1 {3}authorization: <redacted>$/.test(line)))
        }
        expect(warm.stderr).toMatch(/> POST \S+\/auth\/jwt-token\/token\/refresh\/\n/)
        expect(warm.stderr).toMatch(/body \(\d+ bytes\): \{"refresh":"<redacted>"\}/)
        expect(warm.stderr).toMatch(/"token": ?"<redacted>"/)
        expect(rotated.stderr).toMatch(/ < 401 POST \S+message:send/)
      }),
    120_000
  )

  it("no token in any output of this file, nor in any file but the cache", () => {
    for (const dir of configDirs) collectTokens(dir)
    const secrets = [userAccessToken, Redacted.value(demoRefreshToken), proxyPassword, ...runtimeTokens]
    if (configDirs.some((dir) => Fs.existsSync(cacheFile(dir)))) expect(runtimeTokens.size).toBeGreaterThan(0)
    for (const output of allOutput) {
      for (const secret of secrets) expect(output.includes(secret), "a token was printed").toBe(false)
    }
    const walk = (path: string): ReadonlyArray<string> =>
      Fs.statSync(path).isDirectory() ? Fs.readdirSync(path).flatMap((name) => walk(Path.join(path, name))) : [path]
    for (const dir of configDirs) {
      for (const file of walk(dir)) {
        if (Path.basename(file) === "runtime_access_cache.json") continue
        const content = Fs.readFileSync(file, "utf8")
        for (const secret of secrets) expect(content.includes(secret), `a token is in ${file}`).toBe(false)
      }
    }
  })
})

afterAll(() => {
  for (const dir of configDirs) Fs.rmSync(dir, { recursive: true, force: true })
})
