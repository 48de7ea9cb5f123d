import { NodeContext } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import { A2AError, type A2AProtocol } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { execFileSync } from "node:child_process"
import { writeFile } from "node:fs/promises"
import * as Net from "node:net"
import { stripVTControlCharacters } from "node:util"
import { CliConfigError } from "../src/CliConfig.js"
import { escapeCodesAllowed } from "../src/Output.js"
import { version } from "../src/version.js"
import { errorDocumentOf, taskDocumentOf } from "./support/jsonOutput.js"
import { agentMessage, runCli, sessionUid } from "./support/runCli.js"

const send = ["agent", "session", "a2a", "send", sessionUid]

const tempFile = (name: string, content: string | Uint8Array) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "ms-cli-args-" })
    const path = `${dir}/${name}`
    yield* typeof content === "string" ? fs.writeFileString(path, content) : fs.writeFile(path, content)
    return path
  })

const sentInput = (calls: ReadonlyArray<{ readonly args: ReadonlyArray<unknown> }>) => calls[0]?.args[0]

describe("send: command line", () => {
  it.scoped("prints the answer as JSON in its wire shape (2-space indent) and exits 0", () =>
    Effect.gen(function*() {
      const result = yield* runCli([...send, "--message", "What can you DO?"])
      expect(result.exitCode).toBe(0)
      expect(result.stderr).toBe("")
      expect(result.stdout).toBe(JSON.stringify({ message: agentMessage(sessionUid) }, null, 2) + "\n")
      expect(result.calls).toHaveLength(1)
      expect(result.calls[0]?.agentSessionUid).toBe(sessionUid)
      expect(sentInput(result.calls)).toEqual({
        message: "What can you DO?",
        messageId: undefined,
        strictDictionary: false,
        jsonRepairAttempts: undefined,
        attachments: [],
        responseKind: undefined,
        timeout: undefined
      })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("accepts the flags before the session uid too", () =>
    Effect.gen(function*() {
      const result = yield* runCli([
        "agent",
        "session",
        "a2a",
        "send",
        "--message",
        "hi",
        "--message-id",
        "msg-client-uuid-1",
        sessionUid
      ])
      expect(result.exitCode).toBe(0)
      expect(sentInput(result.calls)).toMatchObject({ message: "hi", messageId: "msg-client-uuid-1" })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("passes every option to the SDK", () =>
    Effect.gen(function*() {
      const pdf = yield* tempFile("report.pdf", new Uint8Array([1, 2, 3]))
      const csv = yield* tempFile("data.csv", "a,b\n")
      const result = yield* runCli([
        ...send,
        "--message",
        "Summarise",
        "--strict-dictionary",
        "--json-repair-attempts",
        "5",
        "--file",
        pdf,
        "--file",
        csv,
        "--media-type",
        "application/pdf",
        "--media-type",
        "text/csv",
        "--response-kind",
        "task",
        "--task-id",
        "task-42",
        "--reference-task-id",
        "task-7",
        "--reference-task-id",
        "task-8",
        "--timeout",
        "5,60"
      ])
      expect(result.stderr).toBe("")
      expect(result.exitCode).toBe(0)
      expect(sentInput(result.calls)).toMatchObject({
        message: "Summarise",
        strictDictionary: true,
        jsonRepairAttempts: 5,
        responseKind: "task",
        taskId: "task-42",
        referenceTaskIds: ["task-7", "task-8"],
        timeout: [5, 60],
        attachments: [
          { filename: "report.pdf", mediaType: "application/pdf" },
          { filename: "data.csv", mediaType: "text/csv" }
        ]
      })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("reads the attachment bytes", () =>
    Effect.gen(function*() {
      const pdf = yield* tempFile("report.pdf", new Uint8Array([1, 2, 3]))
      const result = yield* runCli([...send, "--message", "x", "--file", pdf])
      const input = sentInput(result.calls) as { attachments: ReadonlyArray<{ bytes: Uint8Array }> }
      expect(Array.from(input.attachments[0]?.bytes ?? [])).toEqual([1, 2, 3])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("reads the message from --message-file", () =>
    Effect.gen(function*() {
      const path = yield* tempFile("message.txt", "From a file\nwith two lines")
      const result = yield* runCli([...send, "--message-file", path, "--timeout", "12.5"])
      expect(result.exitCode).toBe(0)
      expect(sentInput(result.calls)).toMatchObject({ message: "From a file\nwith two lines", timeout: 12.5 })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("--output text (or -o text) prints the text parts", () =>
    Effect.gen(function*() {
      for (const flag of ["--output", "-o"]) {
        const result = yield* runCli([...send, "--message", "hi", flag, "text"])
        expect([flag, result.exitCode, result.stdout]).toEqual([flag, 0, "Hello\nWorld\n"])
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  // `expected`: the one stderr line, or a pattern it matches.
  const refused = (args: ReadonlyArray<string>, expected: RegExp | string) =>
    Effect.gen(function*() {
      const result = yield* runCli(args)
      expect(result.calls).toEqual([])
      expect(result.exitCode).toBe(2)
      const lines = result.stderr.split("\n").filter((line) => line !== "")
      expect(lines).toHaveLength(1)
      if (typeof expected === "string") expect(lines[0]).toBe(expected)
      else expect(lines[0]).toMatch(expected)
      // --output json (the default): the same failure as one document on stdout.
      expect(errorDocumentOf(result.stdout)).toMatchObject({ message: lines[0], exitCode: 2, retrySafe: false })
    })

  it.scoped("bad input is refused with one line, exit 2, and nothing is sent", () =>
    Effect.gen(function*() {
      yield* refused([...send], /--message TEXT or --message-file PATH/)
      yield* refused([...send, "--message", "a", "--message-file", "/etc/hostname"], /not both/)
      yield* refused(
        [...send, "--message-file", "/nonexistent/message.txt"],
        /message-file.*\/nonexistent\/message\.txt/
      )
      for (const bad of ["0", "-1", "abc", "", "1,2,3", "Infinity", "5,0", "5,x"]) {
        yield* refused([...send, "--message", "a", "--timeout", bad], /timeout/)
      }
      yield* refused(
        [...send, "--message", "a", "--response-kind", "stream"],
        `Invalid response-kind: expected one of message, task (got "stream")`
      )
      yield* refused([...send, "--message", "a", "--json-repair-attempts", "2"], /--strict-dictionary/)
      for (const kind of [[], ["--response-kind", "message"]]) {
        yield* refused(
          [...send, "--message", "a", "--task-id", "task-1", ...kind],
          "Invalid task-id: a follow-up turn for a Task is a Task-mode send: give --response-kind task with it"
        )
      }
      yield* refused([...send, "--message", "a", "--file", "/nonexistent/a.pdf"], /\/nonexistent\/a\.pdf/)
      yield* refused(
        [...send, "--message", "a", "--file", "/etc/hostname", "--media-type", "text/plain", "--media-type", "x/y"],
        /one --media-type per --file \(got 2 for 1 file\)/
      )
      yield* refused([...send, "--message", "a", "--file", "/etc/hostname"], /media type/)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("typed flags: a bad value is refused while the command line is parsed, with its own message", () =>
    Effect.gen(function*() {
      const note = yield* tempFile("note.txt", "hello")
      const latin1 = yield* tempFile("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9]))
      const dir = note.slice(0, note.lastIndexOf("/"))
      const loop = `${dir}/loop`
      yield* FileSystem.FileSystem.pipe(Effect.flatMap((fs) => fs.symlink(loop, loop)))
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["--timeout", "abc"], `Invalid timeout: expected SECONDS or CONNECT,READ in seconds (got "abc")`],
        [["--output", "yaml"], `Invalid output: expected one of json, text (got "yaml")`],
        [["-o", "JSON"], `Invalid output: expected one of json, text (got "JSON")`],
        [["--response-kind=Task"], `Invalid response-kind: expected one of message, task (got "Task")`],
        [["--timeout", "1,2,3"], `Invalid timeout: expected SECONDS or CONNECT,READ in seconds (got "1,2,3")`],
        [["--timeout", "0"], "Invalid timeout: must be a positive, finite number of seconds (got 0)"],
        [["--timeout", "Infinity"], "Invalid timeout: must be a positive, finite number of seconds (got Infinity)"],
        [
          ["--timeout", "5,0"],
          "Invalid timeout: must be a positive, finite number of seconds or a [connect, read] pair of them (got [5,0])"
        ],
        [
          ["--message-file", "/nonexistent/m.txt"],
          `Invalid message-file: cannot read "/nonexistent/m.txt" (no such file)`
        ],
        [["--message-file", dir], `Invalid message-file: cannot read ${JSON.stringify(dir)} (a directory)`],
        // A path through a regular file (ENOTDIR): @effect/cli's Options.file would die here (exit 1).
        [
          ["--message-file", `${note}/m.txt`],
          `Invalid message-file: cannot read ${JSON.stringify(`${note}/m.txt`)} (a part of the path is not a directory)`
        ],
        [
          ["--message-file", latin1],
          `Invalid message-file: ${
            JSON.stringify(latin1)
          } is not UTF-8 text (send other files as attachments, with --file)`
        ],
        [["--file", "/nonexistent/a.pdf"], `Invalid file: cannot read "/nonexistent/a.pdf" (no such file)`],
        [["--file", dir], `Invalid file: cannot read ${JSON.stringify(dir)} (a directory)`],
        [["--file", "/dev/null"], `Invalid file: cannot read "/dev/null" (not a regular file)`],
        [
          ["--file", `${note}/a.pdf`],
          `Invalid file: cannot read ${JSON.stringify(`${note}/a.pdf`)} (a part of the path is not a directory)`
        ],
        [
          ["--message-file", loop],
          `Invalid message-file: cannot read ${JSON.stringify(loop)} (too many levels of symbolic links)`
        ],
        [["--file", loop], `Invalid file: cannot read ${JSON.stringify(loop)} (too many levels of symbolic links)`],
        [
          ["--file", note, "--media-type", "text/plain", "--file", "/nonexistent/b.pdf", "--media-type", "x/y"],
          `Invalid file: cannot read "/nonexistent/b.pdf" (no such file)`
        ]
      ]
      for (const [flags, line] of cases) {
        const withMessage = flags.includes("--message-file") ? flags : ["--message", "a", ...flags]
        yield* refused([...send, ...withMessage], line)
      }
      yield* refused(
        ["agent", "session", "a2a", "task", "wait", sessionUid, "t", "--timeout", "-3"],
        "Invalid timeout: must be a positive, finite number of seconds (got -3)"
      )
      for (
        const [bad, line] of [["1.5", `expected an integer (got "1.5")`], ["2e1", `expected an integer (got "2e1")`]]
      ) {
        yield* refused(
          [...send, "--message", "a", "--strict-dictionary", "--json-repair-attempts", bad],
          `Invalid json-repair-attempts: ${line}`
        )
      }
      for (
        const [bad, line] of [
          ["70000", "must be between 0 and 65535 (got 70000)"],
          ["-1", "must be between 0 and 65535 (got -1)"],
          ["80.5", `expected an integer (got "80.5")`]
        ]
      ) {
        const result = yield* runCli(["dev", "platform", "--port", bad])
        expect([bad, result.exitCode, result.stderr, result.stdout]).toEqual([bad, 2, `Invalid port: ${line}\n`, ""])
      }
      // Checked before anything else runs: even without any configuration, the flag's own message.
      const configError = new CliConfigError({ variables: ["MAINSEQUENCE_ACCESS_TOKEN"], reason: "missing" })
      const first = yield* runCli([...send, "--message", "a", "--timeout", "0"], { configError })
      expect([first.exitCode, first.stderr]).toEqual([
        2,
        "Invalid timeout: must be a positive, finite number of seconds (got 0)\n"
      ])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("dev platform on a port in use: exit 1, one line naming the port and what to do", () =>
    Effect.gen(function*() {
      const taken = yield* Effect.acquireRelease(
        Effect.async<Net.Server>((resume) => {
          const server = Net.createServer()
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.promise(() => new Promise((resolve) => server.close(resolve)))
      )
      const address = taken.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const result = yield* runCli(["dev", "platform", "--port", String(port)])
      expect([result.exitCode, result.stdout, result.stderr]).toEqual([
        1,
        "",
        `Cannot start the reference platform: port ${port} on 127.0.0.1 is in use (choose another with --port N, ` +
        "or leave --port out for a free one)\n"
      ])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("--timeout takes every documented spelling: SECONDS or CONNECT,READ, as the SDK's Timeout", () =>
    Effect.gen(function*() {
      const spellings: ReadonlyArray<readonly [string, number | readonly [number, number]]> = [
        ["30", 30],
        ["0.5", 0.5],
        [".5", 0.5],
        ["1e2", 100],
        [" 7 ", 7],
        ["5,900", [5, 900]],
        ["0.3,0.5", [0.3, 0.5]]
      ]
      for (const [text, timeout] of spellings) {
        const sent = yield* runCli([...send, "--message", "a", "--timeout", text])
        expect({ text, exitCode: sent.exitCode, timeout: sentInput(sent.calls) }).toMatchObject({
          text,
          exitCode: 0,
          timeout: { timeout }
        })
        const waited = yield* runCli(["agent", "session", "a2a", "task", "wait", sessionUid, "t", "--timeout", text], {
          answer: { id: "t", contextId: sessionUid, status: { state: "TASK_STATE_WORKING" } }
        })
        expect({ text, calls: waited.calls }).toEqual({
          text,
          calls: [{ method: "waitForA2ATask", agentSessionUid: sessionUid, args: ["t", { timeout }] }]
        })
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("--message-file reads any readable file, also a pipe (/dev/stdin, <(…)), whole and unchanged", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "ms-cli-fifo-" })
      const fifo = `${dir}/message.fifo`
      execFileSync("mkfifo", [fifo])
      const text = "From a pipe\n  indented, with a trailing newline\n"
      const writer = yield* Effect.fork(Effect.promise(() => writeFile(fifo, text)))
      const result = yield* runCli([...send, "--message-file", fifo])
      yield* Fiber.join(writer)
      expect([result.exitCode, result.stderr]).toEqual([0, ""])
      expect(sentInput(result.calls)).toMatchObject({ message: text })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("an oversized attachment is refused by name and size", () =>
    Effect.gen(function*() {
      const path = yield* tempFile("big.pdf", new Uint8Array(15 * 1024 * 1024 + 1))
      yield* refused([...send, "--message", "a", "--file", path], /big\.pdf.*15728641/)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("usage errors exit 2 with one line", () =>
    Effect.gen(function*() {
      for (
        const args of [
          [...send, "--message", "a", "--bogus"],
          ["agent", "session", "a2a", "send", "--message", "a"],
          [...send, "--message"],
          [...send, "--message", "a", "--output", "yaml"],
          ["agent", "session", "a2a", "bogus"],
          [],
          ["agent"]
        ]
      ) {
        const result = yield* runCli(args)
        expect({ args, exitCode: result.exitCode }).toEqual({ args, exitCode: 2 })
        expect(result.calls).toEqual([])
        const lines = result.stderr.split("\n").filter((line) => line !== "")
        expect({ args, lines: lines.length }).toEqual({ args, lines: 1 })
        // Under `agent` the default output is json: the document, also when the command line does not parse.
        if (args[0] === "agent") {
          expect(errorDocumentOf(result.stdout)).toMatchObject({ message: lines[0], exitCode: 2, messageId: null })
        } else {
          expect(result.stdout).toBe("")
        }
      }
      for (const flag of ["--output", "-o"]) {
        const text = yield* runCli([...send, "--message", "a", "--bogus", flag, "text"])
        expect([flag, text.exitCode, text.stdout]).toEqual([flag, 2, ""])
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a flag without its value is refused by its own name, wherever it stands; nothing is sent", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [[...send, "--message", "a", "--message-id"], "--message-id"],
        [[...send, "-o", "text", "--message"], "--message"],
        [[...send, "--message", "a", "--debug", "--response-kind"], "--response-kind"],
        [[...send, "--message", "a", "-o"], "-o"],
        [[...send, "--message", "a", "--file"], "--file"],
        [[...send, "--message", "a", "--reference-task-id"], "--reference-task-id"],
        [["agent", "session", "a2a", "task", "get", sessionUid, "t", "--timeout"], "--timeout"],
        [["dev", "platform", "--port"], "--port"]
      ]
      for (const [args, flag] of cases) {
        const result = yield* runCli(args)
        expect([args, result.exitCode, result.stderr, result.calls]).toEqual([
          args,
          2,
          `Missing value for ${flag}\n`,
          []
        ])
        if (args[0] !== "agent" || args.includes("text")) expect(result.stdout).toBe("")
        else expect(errorDocumentOf(result.stdout)).toMatchObject({ type: "MissingValue" })
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a flag given twice is refused by its name, unless it is repeatable; nothing is sent", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [[...send, "--message", "a", "--message", "b"], "Invalid message: given more than once"],
        [[...send, "--message=a", "--message", "b"], "Invalid message: given more than once"],
        [[...send, "--message", "a", "-o", "text", "--output", "json"], "Invalid output: given more than once"],
        [[...send, "--message", "a", "--debug", "--debug"], "Invalid debug: given more than once"],
        [["dev", "platform", "--port", "1", "--port", "2"], "Invalid port: given more than once"]
      ]
      for (const [args, line] of cases) {
        const result = yield* runCli(args)
        expect([args, result.exitCode, result.stderr, result.calls]).toEqual([args, 2, `${line}\n`, []])
      }
      // Only the command's own flags: another command's is an unknown flag.
      const task = ["agent", "session", "a2a", "task", "get", sessionUid, "t"]
      for (const flags of [["--file", ""], ["--message", "a", "--message", "b"]]) {
        const result = yield* runCli([...task, ...flags])
        expect([flags, result.exitCode, result.stderr]).toEqual([
          flags,
          2,
          `Unknown flag ${flags[0]} (an argument that starts with "-" goes after --)\n`
        ])
      }
      const twice = yield* runCli([...send, "--message", "a", "--reference-task-id", "t1", "--reference-task-id", "t2"])
      expect([twice.exitCode, sentInput(twice.calls)]).toMatchObject([0, { referenceTaskIds: ["t1", "t2"] }])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("an unknown flag is refused by its own name, with the flag it may be a typo of; nothing is sent", () =>
    Effect.gen(function*() {
      const task = ["agent", "session", "a2a", "task", "get", sessionUid]
      const dash = `(an argument that starts with "-" goes after --)`
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        // @effect/cli took the flag for the Task id, asked for Task `--bogus`, or named the next argument.
        [[...task, "--bogus"], `Unknown flag --bogus ${dash}`],
        [[...task, "--bogus", "value"], `Unknown flag --bogus ${dash}`],
        // A flag spelling of one of the command's arguments is named as that argument.
        [[...task, "--task-id=t"], "Unknown flag --task-id (<task_id> is an argument: give its value without a flag)"],
        [
          [...task, "--task-id", "t"],
          "Unknown flag --task-id (<task_id> is an argument: give its value without a flag)"
        ],
        [
          ["agent", "session", "a2a", "send", "--agent-session-uid", sessionUid, "--message", "a"],
          "Unknown flag --agent-session-uid (<agent_session_uid> is an argument: give its value without a flag)"
        ],
        [[...send, "--message", "a", "--task_id", "t"], "Unknown flag --task_id (did you mean --task-id?)"],
        [[...task, "t", "-x"], `Unknown flag -x ${dash}`],
        [[...send, "--message", "a", "--bogus", "-o", "text"], `Unknown flag --bogus ${dash}`],
        [["agent", "session", "a2a", "send", "--bogus", sessionUid, "--message", "a"], `Unknown flag --bogus ${dash}`],
        [[...send, "--mesage", "a"], "Unknown flag --mesage (did you mean --message?)"],
        [[...send, "--message", "a", "--tiemout=5"], "Unknown flag --tiemout (did you mean --timeout?)"],
        [[...task, "t", "--debgu"], "Unknown flag --debgu (did you mean --debug?)"],
        // Case matters, as it does to the parser.
        [[...send, "--Message", "a"], "Unknown flag --Message (did you mean --message?)"],
        // @effect/cli's own `--log-level` takes one of its levels only.
        [
          [...task, "t", "--log-level", "--debug"],
          `Invalid log-level: expected one of all, trace, debug, info, warning, error, fatal, none (got "--debug")`
        ]
      ]
      for (const [args, line] of cases) {
        const result = yield* runCli(args)
        expect([args, result.exitCode, result.stderr, result.calls]).toEqual([args, 2, `${line}\n`, []])
      }
      // After `--` an argument is one, whatever it reads like; so is a lone `-`; @effect/cli's `--log-level` stays.
      const answer = { id: "t", contextId: sessionUid, status: { state: "TASK_STATE_WORKING" as const } }
      const given: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [[...task, "--", "--weird"], "--weird"],
        [[...task, "-"], "-"],
        [[...task, "t", "--log-level", "debug"], "t"]
      ]
      for (const [args, taskId] of given) {
        const result = yield* runCli(args, { answer })
        expect([args, result.exitCode, result.calls.map((call) => call.args[0])]).toEqual([args, 0, [taskId]])
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a repeatable flag's value is never dropped or changed: an empty or padded one is refused", () =>
    Effect.gen(function*() {
      const note = yield* tempFile("note.txt", "hello")
      yield* refused([...send, "--message", "a", "--file", ""], "Invalid file: must not be empty")
      yield* refused(
        [...send, "--message", "a", "--file=", "--media-type", "text/plain"],
        "Invalid file: must not be empty"
      )
      yield* refused(
        [...send, "--message", "a", "--file", note, "--media-type", ""],
        "Invalid media-type: must not be empty"
      )
      yield* refused(
        [...send, "--message", "a", "--reference-task-id", "task-7", "--reference-task-id", ""],
        "Invalid reference-task-id: must not be empty"
      )
      yield* refused(
        [...send, "--message", "a", "--reference-task-id", " task-7"],
        `Invalid reference-task-id: must not start or end with whitespace (got " task-7")`
      )
      yield* refused(
        [...send, "--message", "a", "--file", `${note} `, "--media-type", "text/plain"],
        `Invalid file: must not start or end with whitespace (got ${JSON.stringify(`${note} `)})`
      )
      // @effect/cli would read it as that flag, and drop both.
      yield* refused(
        [...send, "--message", "a", "--reference-task-id", "--file"],
        "Invalid reference-task-id: must not be a flag (got --file)"
      )
      yield* refused([...send, "--message", "a", "--file", "--debug"], "Invalid file: must not be a flag (got --debug)")
      yield* refused(
        [...send, "--message", "a", "--reference-task-id", "--message-file=/etc/hostname"],
        "Invalid reference-task-id: must not be a flag (got --message-file=/etc/hostname)"
      )
      // Another flag's value is that flag's own, whatever it reads like.
      const quoted = yield* runCli([...send, "--message", "--file", "--reference-task-id", "-task-7"])
      expect([quoted.exitCode, quoted.stderr]).toEqual([0, ""])
      expect(sentInput(quoted.calls)).toMatchObject({ message: "--file", referenceTaskIds: ["-task-7"] })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a flag's value is the word after it, whatever it reads like, whichever flag it is", () =>
    Effect.gen(function*() {
      // A Task id from the platform that reads like a flag, given as scripts give ids.
      const hostileId = "--message-file=/etc/hostname"
      const answer = yield* tempFile("answer.txt", "eu-west")
      const idFirst = ["--task-id", hostileId, "--message-file", answer]
      const idLast = ["--message-file", answer, "--task-id", hostileId]
      for (const flags of [idFirst, idLast]) {
        const sent = yield* runCli([...send, "--response-kind", "task", ...flags])
        expect([flags, sent.exitCode, sent.stderr]).toEqual([flags, 0, ""])
        expect(sentInput(sent.calls)).toMatchObject({ taskId: hostileId, message: "eu-west" })
      }
      const typed = yield* runCli([...send, "--message", "a", "--timeout", "--message"])
      expect([typed.exitCode, typed.stderr]).toEqual([
        2,
        `Invalid timeout: expected SECONDS or CONNECT,READ in seconds (got "--message")\n`
      ])
      const short = yield* runCli([...send, "--message", "a", "--message-id", "-o", "-o", "text"])
      expect([short.exitCode, short.stdout]).toEqual([0, "Hello\nWorld\n"])
      expect(sentInput(short.calls)).toMatchObject({ messageId: "-o" })
      // A text that reads as a flag @effect/cli answers on its own is still the flag's value, and is sent.
      for (const text of ["--help", "-h", "--version", "--completions", "--wizard"]) {
        const sent = yield* runCli([...send, "--message", text, "-o", "text"])
        expect([text, sent.exitCode, sent.stdout]).toEqual([text, 0, "Hello\nWorld\n"])
        expect(sentInput(sent.calls)).toMatchObject({ message: text })
      }
      const taskId = yield* runCli([...send, "--message", "a", "--response-kind", "task", "--task-id", "--version"])
      expect(sentInput(taskId.calls)).toMatchObject({ taskId: "--version" })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("--flag=VALUE works for every flag, the repeatable ones too", () =>
    Effect.gen(function*() {
      const note = yield* tempFile("note.txt", "hello")
      const result = yield* runCli([
        ...send,
        "--message=Summarise",
        `--file=${note}`,
        "--media-type=text/plain",
        "--reference-task-id=task-7",
        "--reference-task-id=a=b",
        "--output=text"
      ])
      expect([result.exitCode, result.stdout]).toEqual([0, "Hello\nWorld\n"])
      expect(sentInput(result.calls)).toMatchObject({
        message: "Summarise",
        referenceTaskIds: ["task-7", "a=b"],
        attachments: [{ filename: "note.txt", mediaType: "text/plain" }]
      })
      expect(result.stdout).toBe("Hello\nWorld\n")
      // The value after `=` is kept as given: several lines, spaces around it, another flag's name.
      const values = [
        "line one\nline two",
        "- a list\n- of two",
        "--message-file=/etc/hostname\n",
        "  padded  ",
        "--file",
        "a=b"
      ]
      for (const text of values) {
        const sent = yield* runCli([...send, `--message=${text}`])
        expect([text, sent.exitCode, sent.stderr]).toEqual([text, 0, ""])
        expect(sentInput(sent.calls)).toMatchObject({ message: text })
      }
      // An empty value after `=` is checked like any other value.
      yield* refused(
        [...send, "--message", "a", "--response-kind="],
        `Invalid response-kind: expected one of message, task (got "")`
      )
      yield* refused(
        [...send, "--message", "a", "--timeout="],
        `Invalid timeout: expected SECONDS or CONNECT,READ in seconds (got "")`
      )
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("--wizard is a usage error (its prompts would take stdout and wait for a terminal), anywhere", () =>
    Effect.gen(function*() {
      const line = "Unknown option --wizard: mainsequence has no wizard mode (see mainsequence --help)\n"
      for (const args of [["--wizard"], [...send, "--message", "a", "--wizard"], ["agent", "--wizard"]]) {
        const result = yield* runCli(args)
        expect([args, result.exitCode, result.stderr, result.calls]).toEqual([args, 2, line, []])
        if (args[0] === "agent") {
          expect(errorDocumentOf(result.stdout)).toMatchObject({ type: "InvalidArgument", exitCode: 2 })
        } else expect(result.stdout).toBe("")
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("an SDK failure prints its message and, when known, the message id line", () =>
    Effect.gen(function*() {
      const failWith = new A2AError.A2ATimeoutError({
        agentSessionUid: sessionUid,
        messageId: "msg-1234",
        step: "read-response",
        limit: "total",
        seconds: 2,
        messageMayHaveBeenSent: true
      })
      const result = yield* runCli([...send, "--message", "hi"], { failWith })
      expect(result.exitCode).toBe(5)
      expect(result.stderr).toBe(`${failWith.message}\nA2A message id for request retry: msg-1234\n`)
      expect(errorDocumentOf(result.stdout)).toEqual({
        type: "A2ATimeoutError",
        message: failWith.message,
        exitCode: 5,
        agentSessionUid: sessionUid,
        messageId: "msg-1234",
        retrySafe: false,
        hint: "The call ran out of time: give a longer --timeout. The message may have reached the Agent: check " +
          "before sending it again; a resend with --message-id msg-1234 is the same logical message",
        details: {
          agentSessionUid: sessionUid,
          messageId: "msg-1234",
          step: "read-response",
          limit: "total",
          seconds: 2,
          messageMayHaveBeenSent: true
        }
      })
      const text = yield* runCli([...send, "--message", "hi", "--output", "text"], { failWith })
      expect([text.exitCode, text.stdout]).toEqual([5, ""])

      const input = new A2AError.A2AInputError({ field: "agentSessionUid", reason: "must be a UUID" })
      const refusedInput = yield* runCli([...send, "--message", "hi"], { failWith: input })
      expect(refusedInput.stderr).toBe(`${input.message}\n`)
      expect(refusedInput.exitCode).toBe(2)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("missing configuration names the variable", () =>
    Effect.gen(function*() {
      const configError = new CliConfigError({ variables: ["MAINSEQUENCE_ACCESS_TOKEN"], reason: "missing" })
      const result = yield* runCli([...send, "--message", "hi"], { configError })
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toMatch(/^Missing configuration: MAINSEQUENCE_ACCESS_TOKEN is not set[^\n]*\n$/)
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("task: command line", () => {
  const task: A2AProtocol.Task = {
    id: "task-1",
    contextId: sessionUid,
    status: {
      state: "TASK_STATE_COMPLETED",
      message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "Done" }] }
    }
  }

  it.scoped("get, wait and cancel call the SDK helpers and print {\"task\": …}", () =>
    Effect.gen(function*() {
      for (
        const [name, method] of [
          ["get", "getA2ATask"],
          ["wait", "waitForA2ATask"],
          ["cancel", "cancelA2ATask"]
        ] as const
      ) {
        const result = yield* runCli(
          ["agent", "session", "a2a", "task", name, sessionUid, "task-1", "--timeout", "9"],
          {
            answer: task
          }
        )
        expect(result.exitCode).toBe(0)
        expect(result.stdout).toBe(JSON.stringify({ task }, null, 2) + "\n")
        expect(result.calls).toEqual([{ method, agentSessionUid: sessionUid, args: ["task-1", { timeout: 9 }] }])
      }
      const text = yield* runCli(["agent", "session", "a2a", "task", "get", sessionUid, "task-1", "--output", "text"], {
        answer: task
      })
      expect(text.stdout).toBe("Done\n")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a bad timeout is refused before the call; a missing task id is a usage error", () =>
    Effect.gen(function*() {
      const bad = yield* runCli(["agent", "session", "a2a", "task", "get", sessionUid, "t", "--timeout", "-3"])
      expect(bad.exitCode).toBe(2)
      expect(bad.calls).toEqual([])
      const missing = yield* runCli(["agent", "session", "a2a", "task", "wait", sessionUid])
      expect(missing.exitCode).toBe(2)
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("--output json: exactly one document on stdout whatever the outcome", () => {
  const http = { agentSessionUid: sessionUid, messageId: "msg-9", method: "POST", url: "http://x/", status: 500 }
  // One SDK failure per exit code of the table (130/143: see CliSimulated.test.ts and e2e.test.ts).
  const failures = [
    [1, new A2AError.ServerError({ ...http, origin: "runtime" })],
    [2, new A2AError.A2AInputError({ field: "message", reason: "must not be blank" })],
    [3, new A2AError.AgentRuntimeUnavailableError({ agentSessionUid: sessionUid, state: "update_required" })],
    [4, new A2AError.NotLoggedInError({ ...http, status: 401 })],
    [
      5,
      new A2AError.A2ATimeoutError({
        agentSessionUid: sessionUid,
        step: "read-response",
        limit: "read",
        seconds: 30,
        messageMayHaveBeenSent: true
      })
    ],
    [6, new A2AError.A2ATransportError({ ...http, step: "resolve-runtime-access", messageMayHaveBeenSent: false })]
  ] as const

  it.scoped("exit 0: the answer; exits 1 to 6: the error object, for send and for each task command", () =>
    Effect.gen(function*() {
      const ok = yield* runCli([...send, "--message", "hi"])
      expect(ok.exitCode).toBe(0)
      expect(JSON.parse(ok.stdout)).toEqual({ message: agentMessage(sessionUid) })
      for (const [code, failWith] of failures) {
        for (
          const args of [[...send, "--message", "hi"], ["agent", "session", "a2a", "task", "wait", sessionUid, "t"]]
        ) {
          const result = yield* runCli(args, { failWith })
          const what = `${code} ${args[3]}`
          expect([what, result.exitCode]).toEqual([what, code])
          expect(result.stderr.split("\n")[0]).toBe(failWith.message)
          expect(errorDocumentOf(result.stdout)).toMatchObject({
            type: failWith._tag,
            message: failWith.message,
            exitCode: code,
            agentSessionUid: sessionUid,
            retrySafe: A2AError.isRetrySafe(failWith)
          })
        }
      }
      // The message id of a send is known even when the error does not carry it: the one given.
      const given = yield* runCli([...send, "--message", "hi", "--message-id", "msg-given"], {
        failWith: new A2AError.AgentRuntimeNotReadyError({ state: "waking", remainingMs: 0 })
      })
      expect(errorDocumentOf(given.stdout)).toMatchObject({
        messageId: "msg-given",
        retrySafe: true,
        hint: expect.stringContaining("Retrying is safe: run the same command with --message-id msg-given")
      })
      const missing = yield* runCli([...send, "--message", "hi"], {
        configError: new CliConfigError({ variables: ["MAINSEQUENCE_ENDPOINT"], reason: "missing" })
      })
      expect(errorDocumentOf(missing.stdout)).toMatchObject({ type: "CliConfigError", exitCode: 2 })
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("an interruption (SPEC §8)", () => {
  it.scoped("until the SDK hands the message to the runtime (a cold start), an interrupted send is safe to retry", () =>
    Effect.gen(function*() {
      const prepared = { _tag: "MessagePrepared", agentSessionUid: sessionUid, messageId: "msg-given-1" } as const
      const waiting = yield* runCli([...send, "--message", "hi", "--message-id", "msg-given-1"], {
        interruptedAfter: [prepared]
      })
      expect([waiting.exitCode, waiting.stderr]).toEqual([
        130,
        "Interrupted: the call was stopped\nA2A message id for request retry: msg-given-1\n"
      ])
      expect(errorDocumentOf(waiting.stdout)).toMatchObject({
        type: "Interrupted",
        message: "Interrupted: the call was stopped",
        messageId: "msg-given-1",
        retrySafe: true,
        hint: "The run was stopped by a signal. Retrying is safe: run the same command with --message-id msg-given-1"
      })
      const sending = yield* runCli([...send, "--message", "hi"], {
        interruptedAfter: [prepared, { ...prepared, _tag: "MessageSending" }]
      })
      expect(errorDocumentOf(sending.stdout)).toMatchObject({
        type: "Interrupted",
        message: "Interrupted: the send was stopped; the message may already have reached the runtime and is not " +
          "sent again",
        messageId: "msg-given-1",
        retrySafe: false
      })
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("--output json: a flag's value is never read as --output (or -o)", () => {
  it.scoped("a message text that reads --output=text (or --output, text) keeps the json error document", () =>
    Effect.gen(function*() {
      const failWith = new A2AError.AgentRuntimeUnavailableError({
        agentSessionUid: sessionUid,
        state: "update_required"
      })
      for (
        const flags of [
          ["--message", "--output=text"],
          ["--message", "--output", "--reference-task-id", "text", "--response-kind", "task"]
        ]
      ) {
        const result = yield* runCli([...send, ...flags], { failWith })
        expect([flags, result.exitCode]).toEqual([flags, 3])
        expect(errorDocumentOf(result.stdout)).toMatchObject({ type: "AgentRuntimeUnavailableError", exitCode: 3 })
      }
      const text = yield* runCli([...send, "--message", "--output", "--output", "text"], { failWith })
      expect([text.exitCode, text.stdout]).toEqual([3, ""])
      const short = yield* runCli([...send, "--message", "-o", "-o", "text"], { failWith })
      expect([short.exitCode, short.stdout]).toEqual([3, ""])
      const shortInText = yield* runCli([...send, "--message", "-o", "--reference-task-id", "text"], { failWith })
      expect(errorDocumentOf(shortInText.stdout)).toMatchObject({ type: "AgentRuntimeUnavailableError", exitCode: 3 })
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("a Task that waits for its caller", () => {
  const waiting = (state: "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED"): A2AProtocol.Task => ({
    id: "task it's",
    contextId: sessionUid,
    status: { state, message: { messageId: "q", role: "ROLE_AGENT", parts: [{ text: "Which region?" }] } }
  })

  it.scoped("INPUT_REQUIRED / AUTH_REQUIRED: stderr names the command that answers it; json has it as \"resume\"", () =>
    Effect.gen(function*() {
      for (const state of ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"] as const) {
        const answer = waiting(state)
        const command = `mainsequence agent session a2a send ${sessionUid} --task-id 'task it'\\''s' ` +
          "--response-kind task --message TEXT"
        for (
          const args of [
            ["agent", "session", "a2a", "task", "wait", sessionUid, answer.id],
            [...send, "--message", "go", "--response-kind", "task"]
          ]
        ) {
          const result = yield* runCli(args, { answer })
          expect(result.exitCode).toBe(0)
          expect(result.stderr).toBe(
            `The Task waits for you (${state}); answer it with: ${command} ` +
              "(or --message-file - to read the answer from standard input)\n"
          )
          taskDocumentOf(result.stdout)
          expect(JSON.parse(result.stdout)).toEqual({
            task: answer,
            resume: {
              state,
              command,
              args: ["agent", "session", "a2a", "send", sessionUid, "--task-id", answer.id, "--response-kind", "task"]
            }
          })
        }
        const text = yield* runCli([
          "agent",
          "session",
          "a2a",
          "task",
          "get",
          sessionUid,
          answer.id,
          "--output",
          "text"
        ], {
          answer
        })
        expect(text.stdout).toBe("Which region?\n")
        expect(text.stderr).toContain(command)
      }
      // The command, read back by a shell, gives the same arguments.
      const shown = taskDocumentOf(
        (yield* runCli([...send, "--message", "go"], { answer: waiting("TASK_STATE_INPUT_REQUIRED") })).stdout
      )
      const words = execFileSync("sh", [
        "-c",
        `printf '%s\\n' ${shown.resume?.command.replace(/^mainsequence /, "") ?? ""}`
      ], {
        encoding: "utf8"
      }).trimEnd().split("\n")
      expect(words).toEqual([...(shown.resume?.args ?? []), "--message", "TEXT"])
      // An id that reads as an option is joined to its flag, and the command answers that Task.
      const dashed = { ...waiting("TASK_STATE_INPUT_REQUIRED"), id: "--message-file=/etc/passwd" }
      const dashedArgs = taskDocumentOf((yield* runCli([...send, "--message", "go"], { answer: dashed })).stdout)
        .resume?.args ?? []
      expect(dashedArgs).toContain("--task-id=--message-file=/etc/passwd")
      const resumed = yield* runCli([...dashedArgs, "--message", "eu-west"], { answer: dashed })
      expect(sentInput(resumed.calls)).toMatchObject({ message: "eu-west", taskId: "--message-file=/etc/passwd" })
      // An id a terminal would act on (a bidirectional override, a line break): exact in bash's $'…', printed safe.
      const hostile = { ...waiting("TASK_STATE_INPUT_REQUIRED"), id: "task\u202eeno\n'2\\" }
      const hostileRun = yield* runCli([...send, "--message", "go"], { answer: hostile })
      expect(hostileRun.stderr).toContain(`--task-id $'task\\xe2\\x80\\xaeeno\\x0a\\'2\\\\' --response-kind`)
      const hostileShown = taskDocumentOf(hostileRun.stdout).resume?.command.replace(/^mainsequence /, "") ?? ""
      const hostileWords = execFileSync("bash", ["-c", `printf '%s\\0' ${hostileShown}`], { encoding: "utf8" })
      expect(hostileWords.split("\0").slice(0, -1)).toEqual([
        ...send,
        "--task-id",
        hostile.id,
        "--response-kind",
        "task",
        "--message",
        "TEXT"
      ])
      // A completed Task: no line.
      const completed = yield* runCli([...send, "--message", "go"], {
        answer: { id: "t", contextId: sessionUid, status: { state: "TASK_STATE_COMPLETED" } }
      })
      expect([completed.stderr, taskDocumentOf(completed.stdout).resume]).toEqual(["", undefined])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("FAILED / CANCELED / REJECTED: exit 0, and stderr names the state, in both formats", () =>
    Effect.gen(function*() {
      for (const state of ["TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"] as const) {
        const answer = {
          id: "task-7\u001b[2J",
          contextId: sessionUid,
          status: { state, message: { messageId: "m", role: "ROLE_AGENT" as const, parts: [{ text: "No." }] } }
        }
        const line = `The Task task-7 ended without completing (${state})\n`
        for (const [format, stdout] of [["json", JSON.stringify({ task: answer }, null, 2)], ["text", "No."]]) {
          const result = yield* runCli(["agent", "session", "a2a", "task", "get", "-o", format, sessionUid, "t"], {
            answer
          })
          expect([state, format, result.exitCode, result.stderr, result.stdout]).toEqual([
            state,
            format,
            0,
            line,
            `${stdout}\n`
          ])
        }
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("SUBMITTED / WORKING: stderr names the task wait command that follows it, in both formats", () =>
    Effect.gen(function*() {
      for (const state of ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"] as const) {
        for (const [taskId, spelled] of [["task-7", "task-7"], ["-t 1", "-- '-t 1'"]] as const) {
          const answer = { id: taskId, contextId: sessionUid, status: { state } }
          const line = `The Task ${taskId} is under way (${state}); follow it with: ` +
            `mainsequence agent session a2a task wait ${sessionUid} ${spelled}\n`
          const json = yield* runCli([...send, "--message", "go", "--response-kind", "task"], { answer })
          expect([json.exitCode, json.stderr, JSON.parse(json.stdout)]).toEqual([0, line, { task: answer }])
          const text = yield* runCli(
            ["agent", "session", "a2a", "task", "get", "-o", "text", sessionUid, "--", taskId],
            {
              answer
            }
          )
          expect([text.exitCode, text.stderr, text.stdout]).toEqual([0, line, "\n"])
        }
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("--output text counts on stderr the parts it leaves out (data, files); --output json has them all", () =>
    Effect.gen(function*() {
      const message = (parts: ReadonlyArray<A2AProtocol.Part>) => ({ messageId: "m", role: "ROLE_AGENT", parts })
      const file = { url: "https://h/r.pdf", mediaType: "application/pdf", filename: "r\u001b[2J.pdf" }
      const cases = [
        [[{ text: "Here." }, { data: { rows: 3 } }], "Here.", "1 part that is not text (1 data)"],
        [
          [file, { raw: "aGk=" }, { data: [] }, { metadata: {} }],
          "",
          "4 parts that are not text (1 data, 2 files, 1 other)"
        ],
        [[{ text: "Only text." }], "Only text.", undefined]
      ] as const
      for (const [parts, stdout, counted] of cases) {
        const answer = message(parts)
        const text = yield* runCli([...send, "--message", "go", "-o", "text"], { answer })
        const stderr = counted === undefined ? "" : `The answer has ${counted}; --output json prints it whole\n`
        expect([text.exitCode, text.stdout, text.stderr]).toEqual([0, `${stdout}\n`, stderr])
        const json = yield* runCli([...send, "--message", "go"], { answer })
        expect([json.exitCode, JSON.parse(json.stdout), json.stderr]).toEqual([0, { message: answer }, ""])
      }
      // A Task: its status message and artifacts are read; the line comes before the Task's own.
      const task = {
        id: "task-7",
        contextId: sessionUid,
        status: { state: "TASK_STATE_WORKING" as const },
        artifacts: [{ artifactId: "a", parts: [file] }]
      }
      const taskText = yield* runCli(["agent", "session", "a2a", "task", "get", "-o", "text", sessionUid, "task-7"], {
        answer: task
      })
      expect(taskText.stderr.split("\n")).toEqual([
        "The answer has 1 part that is not text (1 file); --output json prints it whole",
        expect.stringMatching(/^The Task task-7 is under way/),
        ""
      ])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("command groups (SPEC §8): a group needs one of its commands", () => {
  const groups = [
    [[], "agent|dev"],
    [["agent"], "session"],
    [["agent", "session"], "a2a"],
    [["agent", "session", "a2a"], "send|task"],
    [["agent", "session", "a2a", "task"], "get|wait|cancel"],
    [["dev"], "platform"]
  ] as const

  it.scoped("a group run without a command is a usage error: exit 2, one line naming its commands, no help", () =>
    Effect.gen(function*() {
      for (const [path, commands] of groups) {
        const result = yield* runCli(path)
        const group = ["mainsequence", ...path].join(" ")
        const line = `Missing command: ${group} ${commands} (see ${group} --help)`
        expect([group, result.exitCode, result.stderr]).toEqual([group, 2, `${line}\n`])
        if (path[0] === "agent") {
          expect(errorDocumentOf(result.stdout)).toMatchObject({ type: "MissingSubcommand", message: line })
        } else {
          expect(result.stdout).toBe("")
        }
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("an unknown command names the deepest group the command line reached, and that group's commands", () =>
    Effect.gen(function*() {
      for (
        const [args, line] of [
          [["bogus"], "Invalid subcommand 'bogus' for mainsequence - use one of 'agent', 'dev'"],
          [["agent", "sesion"], "Invalid subcommand 'sesion' for mainsequence agent - use 'session'"],
          [
            ["agent", "session", "a2a", "bogus"],
            "Invalid subcommand 'bogus' for mainsequence agent session a2a - use one of 'send', 'task'"
          ],
          [
            ["agent", "session", "a2a", "task", "bogus", sessionUid],
            "Invalid subcommand 'bogus' for mainsequence agent session a2a task - use one of 'get', 'wait', 'cancel'"
          ]
        ] as const
      ) {
        const result = yield* runCli(args)
        const group = line.split(" for ")[1]?.split(" - ")[0] ?? ""
        const expected = `${line} (see ${group} --help)`
        expect([args, result.exitCode, result.stderr]).toEqual([args, 2, `${expected}\n`])
        if (args[0] === "agent") {
          expect(errorDocumentOf(result.stdout)).toMatchObject({ type: "CommandMismatch", message: expected })
        }
        expect(result.calls).toEqual([])
      }
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("version", () => {
  it.scoped("--version anywhere prints the package's version, one line, and sends nothing", () =>
    Effect.gen(function*() {
      for (
        const args of [["--version"], ["agent", "--version"], [
          "agent",
          "session",
          "a2a",
          "send",
          sessionUid,
          "--version"
        ]]
      ) {
        const result = yield* runCli(args)
        expect([args, result.exitCode, result.stdout, result.stderr, result.calls]).toEqual([
          args,
          0,
          `${version}\n`,
          "",
          []
        ])
      }
    }))
})

describe("help", () => {
  const commandPaths = [
    "mainsequence agent session a2a send",
    "mainsequence agent session a2a task get",
    "mainsequence agent session a2a task wait",
    "mainsequence agent session a2a task cancel",
    "mainsequence dev platform"
  ]
  // The command path of a listed usage line: the words before the first option or argument.
  const pathOf = (line: string) => {
    const words = line.split(" ")
    const end = words.findIndex((word) => /^[[<-]/.test(word))
    return words.slice(0, end === -1 ? undefined : end).join(" ")
  }
  // The command paths listed in the COMMANDS section.
  const listedPaths = (stdout: string) =>
    (stripVTControlCharacters(stdout).split("\nCOMMANDS\n")[1] ?? "").split("\n").filter((line) =>
      line.startsWith("mainsequence ")
    )
      .map(pathOf)

  it.scoped("the root help lists each command once, by its full path (no repeated parent names)", () =>
    Effect.gen(function*() {
      for (const flag of ["--help", "-h"]) {
        const result = yield* runCli([flag])
        expect(result.exitCode).toBe(0)
        expect(result.stderr).toBe("")
        expect(result.calls).toEqual([])
        expect(listedPaths(result.stdout)).toEqual(commandPaths)
        const text = stripVTControlCharacters(result.stdout)
        expect(text).not.toMatch(/\b(agent|session|a2a|task|dev) \1\b/)
        expect(text).toContain("$ mainsequence <command>")
        expect(text).toContain("Send a message to an Agent session and print the Agent's answer")
        expect(text).toContain("mainsequence agent session a2a task get [--timeout SECONDS]")
        // the program named once, in the first line (no banner above it)
        expect(text.split("\n").filter((line) => line.trim() !== "")[0]).toMatch(/^mainsequence \d+\.\d+\.\d+/)
        expect(text.split("\n").filter((line) => line.trim() === "mainsequence")).toEqual([])
        // repeatable flags optional, as in the command's own help
        const sendLine = text.split("\n").find((line) => line.startsWith("mainsequence agent session a2a send ")) ?? ""
        for (const flag of ["[--file PATH]...", "[--media-type TYPE]...", "[--reference-task-id ID]..."]) {
          expect(sendLine).toContain(flag)
        }
        expect(sendLine).not.toMatch(/(?<!\[)--(file|media-type|reference-task-id) \S+\.\.\./)
        expect(text).toMatch(/\n143\n+ {2}stopped by SIGTERM/)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("each group's help lists the commands below it, once each", () =>
    Effect.gen(function*() {
      for (
        const group of [
          ["agent"],
          ["agent", "session"],
          ["agent", "session", "a2a"],
          ["agent", "session", "a2a", "task"],
          ["dev"]
        ]
      ) {
        const prefix = ["mainsequence", ...group].join(" ")
        const result = yield* runCli([...group, "--help"])
        expect({ group, exitCode: result.exitCode }).toEqual({ group, exitCode: 0 })
        expect(listedPaths(result.stdout)).toEqual(commandPaths.filter((path) => path.startsWith(`${prefix} `)))
        expect(stripVTControlCharacters(result.stdout)).toContain(`$ ${prefix} <command>`)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("each command's own help: its full path, our descriptions only, optional and repeatable flags, exit codes", () =>
    Effect.gen(function*() {
      for (const path of commandPaths) {
        const result = yield* runCli([...path.split(" ").slice(1), "--help"])
        expect({ path, exitCode: result.exitCode, calls: result.calls }).toEqual({ path, exitCode: 0, calls: [] })
        const text = result.stdout
        expect(text.split("\n").find((line) => line.startsWith("$ "))?.startsWith(`$ ${path} `), path).toBe(true)
        expect(text, path).not.toMatch(/A user-defined piece of text|A true or false value|An integer\.|One of the/)
        expect(text, path).toContain("\nEXIT CODES\n")
      }
      const send = (yield* runCli(["agent", "session", "a2a", "send", "--help"])).stdout
      const usage = send.split("\n").find((line) => line.startsWith("$ ")) ?? ""
      for (
        const flag of ["[--file PATH]...", "[--media-type TYPE]...", "[--reference-task-id ID]...", "[--task-id ID]"]
      ) {
        expect(usage).toContain(flag)
      }
      expect(send).toContain("--message-file PATH")
      expect(send).toContain("[--response-kind message | task]")
      expect(send).toContain("It does not imply Task mode: give --response-kind task with it")
      expect(send.split("\n").filter((line) => line.trim() === "mainsequence")).toEqual([])
      for (const code of ["0", "1", "2", "3", "4", "5", "6", "130", "143"]) {
        expect(send).toMatch(new RegExp(`\n${code}\n+  \\S`))
      }
      // the dev platform's own: it serves until stopped, and sends nothing
      const platform = (yield* runCli(["dev", "platform", "--help"])).stdout.split("\nEXIT CODES\n")[1] ?? ""
      expect(platform.match(/^\d+$/gm)).toEqual(["1", "2", "130", "143"])
      expect(platform).toContain("its port is in use")
      expect(platform).not.toContain("the answer was printed")
    }).pipe(Effect.provide(NodeContext.layer)))

  // Each line @effect/cli 0.77.2 adds for a kind of value (Primitive.getHelp): the help shows none of them.
  const genericLines = [
    "A true or false value.",
    "A date without a time-zone in the ISO-8601 format, such as 2007-12-03T10:15:30.",
    "A floating point number.",
    "An integer.",
    "An existing file or directory.",
    "An existing file.",
    "An existing directory.",
    "A file or directory that must not exist.",
    "A file that must not exist.",
    "A directory that must not exist.",
    "A file or directory.",
    "A file.",
    "A directory.",
    "A user-defined piece of text that is confidential.",
    "A user-defined piece of text."
  ]
  const optionalNote = /^This setting is optional\.( Defaults to: .*)?$/
  const repeatableNote = "This option may be repeated zero or more times."
  // The OPTIONS section: each flag's line (`--file PATH...`) and the paragraphs below it.
  const optionEntries = (stdout: string) =>
    ((stdout.split("\nOPTIONS\n")[1] ?? "").split("\nEXIT CODES\n")[0] ?? "").split(/\n(?=--|\(-\w, --)/).filter((
      entry
    ) => entry.trim() !== "").map((entry) => {
      const [flag = "", ...paragraphs] = entry.split("\n").map((line) => line.trim()).filter((line) => line !== "")
      return { flag, paragraphs }
    })

  it.scoped("no generic placeholder lines: each flag has our description, then whether it is optional or repeatable", () =>
    Effect.gen(function*() {
      for (const path of commandPaths) {
        const text = (yield* runCli([...path.split(" ").slice(1), "--help"])).stdout
        const lines = text.split("\n").map((line) => line.trim())
        expect(lines.filter((line) => genericLines.includes(line) || line.startsWith("One of the following:")), path)
          .toEqual([])
        const entries = optionEntries(text)
        expect(entries.length, path).toBeGreaterThan(0)
        for (const { flag, paragraphs } of entries) {
          expect({ path, flag, count: paragraphs.length }).toEqual({ path, flag, count: 2 })
          const [description = "", note = ""] = paragraphs
          expect(description, `${path} ${flag}`).not.toMatch(optionalNote)
          expect(description, `${path} ${flag}`).not.toBe(repeatableNote)
          if (flag.endsWith("...")) expect(note, `${path} ${flag}`).toBe(repeatableNote)
          else expect(note, `${path} ${flag}`).toMatch(optionalNote)
        }
      }
      const send = optionEntries((yield* runCli(["agent", "session", "a2a", "send", "--help"])).stdout)
      expect(send.map(({ flag }) => flag)).toEqual([
        "--message TEXT",
        "--message-file PATH",
        "--message-id ID",
        "--strict-dictionary",
        "--json-repair-attempts N",
        "--file PATH...",
        "--media-type TYPE...",
        "--response-kind message | task",
        "--task-id ID",
        "--reference-task-id ID...",
        "--timeout SECONDS",
        "(-o, --output json | text)",
        "--debug"
      ])
      expect(send.find(({ flag }) => flag === "--timeout SECONDS")?.paragraphs[0]).toBe(
        "The call's total budget in seconds, or CONNECT,READ phase limits (total = their sum); default 5,900"
      )
      expect(send.find(({ flag }) => flag === "--file PATH...")?.paragraphs[0]).toBe(
        "Attach a file (at most 15 MiB); repeat for more files"
      )
      // Each of the two says that one of them is required: @effect/cli marks both optional.
      expect(send.find(({ flag }) => flag === "--message TEXT")?.paragraphs[0]).toBe(
        "The message text (this or --message-file is required)"
      )
      expect(send.find(({ flag }) => flag === "--message-file PATH")?.paragraphs[0]).toBe(
        "Read the message text from this file, or from standard input with - (UTF-8, at most 15 MiB; this or " +
          "--message is required)"
      )
      expect(send.find(({ flag }) => flag === "(-o, --output json | text)")?.paragraphs[0]).toMatch(
        /exactly one JSON document whatever the outcome.*\{"error": \{type, message, exitCode, agentSessionUid, messageId, retrySafe, hint, details\}\}/
      )
      expect(send.find(({ flag }) => flag === "--debug")?.paragraphs[0]).toBe(
        "Write each HTTP exchange to stderr (method, URL, status, timing, headers, a body excerpt), every " +
          "credential redacted"
      )
      // Every A2A command has them.
      for (const path of ["get", "wait", "cancel"]) {
        const flags = optionEntries((yield* runCli(["agent", "session", "a2a", "task", path, "--help"])).stdout)
        expect(flags.map(({ flag }) => flag), path).toEqual([
          "--timeout SECONDS",
          "(-o, --output json | text)",
          "--debug"
        ])
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("help has escape codes only on a terminal without NO_COLOR", () =>
    Effect.gen(function*() {
      for (const args of [["agent", "session", "a2a", "send", "--help"], ["agent", "--help"], ["--help"]]) {
        const plain = yield* runCli(args)
        expect(plain.stdout, args.join(" ")).toBe(stripVTControlCharacters(plain.stdout))
        const styled = yield* runCli(args, { color: true })
        expect(styled.stdout, args.join(" ")).not.toBe(stripVTControlCharacters(styled.stdout))
        expect(stripVTControlCharacters(styled.stdout)).toBe(plain.stdout)
      }
      expect(escapeCodesAllowed(true, {})).toBe(true)
      expect(escapeCodesAllowed(true, { NO_COLOR: "1" })).toBe(false)
      expect(escapeCodesAllowed(true, { NO_COLOR: "" })).toBe(true)
      expect(escapeCodesAllowed(false, {})).toBe(false)
      expect(escapeCodesAllowed(undefined, {})).toBe(false)
    }).pipe(Effect.provide(NodeContext.layer)))
})
