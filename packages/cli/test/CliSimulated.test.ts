import { NodeContext } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import { errorDocumentOf, taskDocumentOf } from "./support/jsonOutput.js"
import { type Captured, runCliSimulated, tempConfigDir } from "./support/runCliSimulated.js"
import { expectConformantSends, layerWatched } from "./support/schemaConformance.js"

const ready = {
  sessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
  agentUid: "1c2d3e4f-0000-4000-8000-000000000001",
  serviceUid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"
}
const cold = {
  sessionUid: "2b2701a1-e777-4cfe-8437-b94025f00069",
  agentUid: "1c2d3e4f-0000-4000-8000-000000000002",
  serviceUid: "8bd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
  access: {
    _tag: "ColdStart" as const,
    phases: [
      { state: "starting" as const, retryAfterMs: 1500, durationMs: 2000, detail: "Scheduling the runtime." },
      { state: "waking" as const, retryAfterMs: 2000, durationMs: 3000, detail: "Starting the runtime." }
    ]
  }
}
const slow = {
  sessionUid: "3b2701a1-e777-4cfe-8437-b94025f00069",
  agentUid: "1c2d3e4f-0000-4000-8000-000000000003",
  serviceUid: "9bd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
  agent: { workMs: 30_000 }
}

const tasked = {
  sessionUid: "4b2701a1-e777-4cfe-8437-b94025f00069",
  agentUid: "1c2d3e4f-0000-4000-8000-000000000004",
  serviceUid: "abd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
  agent: { taskSupport: true, workMs: 4000, task: { queuedMs: 500 } }
}

const warned = {
  sessionUid: "5b2701a1-e777-4cfe-8437-b94025f00069",
  agentUid: "1c2d3e4f-0000-4000-8000-000000000005",
  serviceUid: "bbd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
  access: {
    _tag: "Ready" as const,
    warning: {
      code: "maintenance",
      severity: "warning" as const,
      title: "Maintenance tonight",
      message: "The runtime restarts at 22:00 UTC"
    }
  }
}

// Watched: after each test, every message:send body the CLI caused must conform to A2A v1.
const platformLayer = Layer.mergeAll(
  layerWatched({ sessions: [ready, cold, slow, tasked, warned] }),
  NodeContext.layer
)

afterEach(expectConformantSends)

const send = (uid: string, ...rest: ReadonlyArray<string>) => ["agent", "session", "a2a", "send", uid, ...rest]

/** Waits (real time) until the platform has seen a request on `route`. */
const awaitRoute = (route: SimulatedPlatform.Route) =>
  Effect.gen(function*() {
    const platform = yield* SimulatedPlatform.SimulatedPlatform
    for (let i = 0; i < 500; i++) {
      const log = yield* platform.requestLog
      if (log.some((entry) => entry.route === route)) return
      yield* TestServices.provideLive(Effect.sleep(Duration.millis(5)))
    }
    return yield* Effect.die(`no ${route} request`)
  })

/**
 * Runs the CLI in a fiber; once the platform saw a request on `after`, moves the test clock on in steps of
 * `stepMs`, letting real time pass between steps for the CLI's file I/O.
 */
const runWithClock = (
  args: ReadonlyArray<string>,
  options: Parameters<typeof runCliSimulated>[1],
  after: SimulatedPlatform.Route,
  totalMs: number,
  stepMs = 250
) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(runCliSimulated(args, options))
    yield* awaitRoute(after)
    for (let t = 0; t < totalMs; t += stepMs) {
      yield* TestClock.adjust(Duration.millis(stepMs))
      yield* TestServices.provideLive(Effect.sleep(Duration.millis(2)))
    }
    return yield* Fiber.join(fiber)
  })

describe("CLI over the SDK and the simulated platform (test clock)", () => {
  it.scoped("sends, prints the answer, and keeps stderr empty", () =>
    Effect.gen(function*() {
      const configDir = yield* tempConfigDir
      const result = yield* runCliSimulated(send(ready.sessionUid, "--message", "What can you do?"), { configDir })
      expect(result.stderr).toBe("")
      expect(result.exitCode).toBe(0)
      const answer = JSON.parse(result.stdout) as { message: { role: string; contextId: string; parts: unknown } }
      expect(answer.message.role).toBe("ROLE_AGENT")
      expect(answer.message.contextId).toBe(ready.sessionUid)
      expect(answer.message.parts).toEqual([{ text: "You said: What can you do?" }])
    }).pipe(Effect.provide(platformLayer)))

  it.scoped("reuses the cached runtime access across runs (no second resolve)", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const fs = yield* FileSystem.FileSystem
      const configDir = yield* tempConfigDir
      const first = yield* runCliSimulated(send(ready.sessionUid, "--message", "one"), { configDir })
      const second = yield* runCliSimulated(send(ready.sessionUid, "--message", "two"), { configDir })
      expect([first.exitCode, second.exitCode]).toEqual([0, 0])
      const counters = yield* platform.counters
      expect(counters.resolveCalls[ready.sessionUid]).toBe(1)
      expect(counters.sends[ready.sessionUid]).toBe(2)
      const file = yield* fs.readFileString(`${configDir}/runtime_access_cache.json`)
      expect(JSON.parse(file)).toMatchObject({ version: 1 })
      expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toMatch(/runtime-token|msim-/)
    }).pipe(Effect.provide(platformLayer)))

  it.scoped("shows plain progress lines while a cold runtime starts (one per state), then the answer", () =>
    Effect.gen(function*() {
      const configDir = yield* tempConfigDir
      const result = yield* runWithClock(
        send(cold.sessionUid, "--message", "hi"),
        { configDir },
        "resolve-runtime-access",
        8_000
      )
      expect(result.exitCode).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({ message: { parts: [{ text: "You said: hi" }] } })
      const lines = result.stderr.split("\n").filter((line) => line !== "")
      expect(lines).toEqual([
        "Agent runtime starting — Scheduling the runtime. Next check in 1.5 s",
        "Agent runtime waking — Starting the runtime. Next check in 2 s"
      ])
    }).pipe(Effect.provide(platformLayer)))

  it.scoped("a warning notice the backend admits the send with is one stderr line; the answer is on stdout", () =>
    Effect.gen(function*() {
      for (const tty of [false, true]) {
        const configDir = yield* tempConfigDir
        const result = yield* runCliSimulated(send(warned.sessionUid, "--message", "hi"), { configDir, tty })
        expect(result.exitCode).toBe(0)
        expect(JSON.parse(result.stdout)).toMatchObject({ message: { parts: [{ text: "You said: hi" }] } })
        expect(result.stderr).toBe(
          "Agent runtime warning — Maintenance tonight: The runtime restarts at 22:00 UTC.\n"
        )
      }
    }).pipe(Effect.provide(platformLayer)))

  it.scoped("on a terminal, draws a live status line in place and clears it", () =>
    Effect.gen(function*() {
      const configDir = yield* tempConfigDir
      const result = yield* runWithClock(
        send(cold.sessionUid, "--message", "hi"),
        { configDir, tty: true },
        "resolve-runtime-access",
        8_000
      )
      expect(result.exitCode).toBe(0)
      expect(result.stderr).toContain("\r\u001b[2KAgent runtime starting — Scheduling the runtime. Next check in 2 s")
      expect(result.stderr).toContain("\r\u001b[2KAgent runtime waking — Starting the runtime. Next check in 1 s")
      expect(result.stderr).not.toContain("\n")
      expect(result.stderr.endsWith("\r\u001b[2K")).toBe(true)
    }).pipe(Effect.provide(platformLayer)))

  it.scoped("task wait shows the Task's state while it waits: one plain line per state, on a terminal a live one", () =>
    Effect.gen(function*() {
      for (const tty of [false, true]) {
        const configDir = yield* tempConfigDir
        const created = yield* runCliSimulated(send(tasked.sessionUid, "--message", "job", "--response-kind", "task"), {
          configDir
        })
        const taskId = taskDocumentOf(created.stdout).task.id
        const platform = yield* SimulatedPlatform.SimulatedPlatform
        yield* platform.clearRequestLog
        const result = yield* runWithClock(
          ["agent", "session", "a2a", "task", "wait", tasked.sessionUid, taskId],
          { configDir, tty },
          "task-get",
          6_000
        )
        expect([tty, result.exitCode, taskDocumentOf(result.stdout).task.status.state]).toEqual([
          tty,
          0,
          "TASK_STATE_COMPLETED"
        ])
        const submitted = `The Task ${taskId} is under way (TASK_STATE_SUBMITTED).`
        const working = `The Task ${taskId} is under way (TASK_STATE_WORKING).`
        if (tty) {
          expect(result.stderr).toContain(`\r\u001b[2K${submitted} Next check in 1 s`)
          expect(result.stderr).toContain(`\r\u001b[2K${working} Next check in 2 s`)
          expect(result.stderr).not.toContain("\n")
          expect(result.stderr.endsWith("\r\u001b[2K")).toBe(true)
        } else {
          expect(result.stderr.split("\n")).toEqual([
            `${submitted} Next check in 1 s`,
            `${working} Next check in 1.5 s`,
            ""
          ])
        }
      }
    }).pipe(Effect.provide(platformLayer)))

  it.scoped("an interrupted send names its message id (generated or given)", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const configDir = yield* tempConfigDir
      for (const given of [undefined, "msg-client-uuid-1"]) {
        const captured: Captured = { stdout: "", stderr: "" }
        const args = send(slow.sessionUid, "--message", "hi", ...(given === undefined ? [] : ["--message-id", given]))
        yield* platform.clearRequestLog
        const fiber = yield* Effect.fork(runCliSimulated(args, { configDir, captured }))
        // The send has reached the runtime (file I/O runs on real time), and the Agent is working on it.
        yield* awaitRoute("message-send")
        yield* TestClock.adjust(Duration.seconds(5))
        const exit = yield* Fiber.interrupt(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
        const log = yield* platform.requestLog
        const sent = log.filter((entry) => entry.route === "message-send").at(-1)
        const messageId = (JSON.parse(sent?.bodyText ?? "{}") as { message?: { messageId?: string } }).message
          ?.messageId
        expect(messageId).toMatch(/^msg-|^msg-client-uuid-1$/)
        if (given !== undefined) expect(messageId).toBe(given)
        // --output json (the default): the interruption as one document, with the message id that went out.
        expect(errorDocumentOf(captured.stdout)).toMatchObject({
          type: "Interrupted",
          exitCode: 130,
          agentSessionUid: slow.sessionUid,
          messageId,
          retrySafe: false
        })
        expect(captured.stderr).toBe(
          "Interrupted: the send was stopped; the message may already have reached the runtime and is not sent again\n" +
            `A2A message id for request retry: ${messageId}\n`
        )
      }
    }).pipe(Effect.provide(platformLayer)))

  it.scoped("a send interrupted while its runtime wakes: nothing was sent, so the document says a retry is safe", () =>
    Effect.gen(function*() {
      const configDir = yield* tempConfigDir
      const captured: Captured = { stdout: "", stderr: "" }
      const fiber = yield* Effect.fork(
        runCliSimulated(send(cold.sessionUid, "--message", "hi"), { configDir, captured })
      )
      yield* awaitRoute("resolve-runtime-access")
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      const document = errorDocumentOf(captured.stdout)
      expect(document).toMatchObject({
        type: "Interrupted",
        message: "Interrupted: the call was stopped",
        agentSessionUid: cold.sessionUid,
        messageId: expect.stringMatching(/^msg-/),
        retrySafe: true
      })
      // the send had begun (its message prepared): stderr names the id a retry may reuse, as for any failure
      expect(
        captured.stderr.endsWith(
          `\nInterrupted: the call was stopped\nA2A message id for request retry: ${document.messageId}\n`
        )
      ).toBe(true)
      const routes = (yield* (yield* SimulatedPlatform.SimulatedPlatform).requestLog).map((entry) => entry.route)
      expect(routes).not.toContain("message-send")
    }).pipe(Effect.provide(platformLayer)))

  it.scoped("an interrupted task call (no message) says only that it was stopped", () =>
    Effect.gen(function*() {
      const configDir = yield* tempConfigDir
      const captured: Captured = { stdout: "", stderr: "" }
      const args = ["agent", "session", "a2a", "task", "get", cold.sessionUid, "task-1"]
      const fiber = yield* Effect.fork(runCliSimulated(args, { configDir, captured }))
      yield* awaitRoute("resolve-runtime-access")
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(errorDocumentOf(captured.stdout)).toEqual({
        type: "Interrupted",
        message: "Interrupted: the call was stopped",
        exitCode: 130,
        agentSessionUid: cold.sessionUid,
        messageId: null,
        retrySafe: true,
        hint: "The run was stopped by a signal. Retrying is safe: run the same command",
        details: {}
      })
      expect(captured.stderr.split("\n").filter((line) => line !== "").at(-1)).toBe("Interrupted: the call was stopped")
    }).pipe(Effect.provide(platformLayer)))

  it.scoped("a failed send prints one line and the message id line", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const configDir = yield* tempConfigDir
      const result = yield* runWithClock(
        send(slow.sessionUid, "--message", "hi", "--timeout", "2"),
        { configDir },
        "message-send",
        3_000
      )
      expect(result.exitCode).toBe(5)
      const log = yield* platform.requestLog
      const sent = log.filter((entry) => entry.route === "message-send").at(-1)
      const messageId = (JSON.parse(sent?.bodyText ?? "{}") as { message?: { messageId?: string } }).message?.messageId
      expect(messageId).toMatch(/^msg-[0-9a-f-]{36}$/)
      const lines = result.stderr.split("\n").filter((line) => line !== "")
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/2 s budget ran out/)
      expect(lines[1]).toBe(`A2A message id for request retry: ${messageId}`)
      expect(errorDocumentOf(result.stdout)).toMatchObject({
        type: "A2ATimeoutError",
        message: lines[0],
        exitCode: 5,
        agentSessionUid: slow.sessionUid,
        messageId,
        retrySafe: false,
        details: { step: "send-message", limit: "total", messageMayHaveBeenSent: true }
      })
    }).pipe(Effect.provide(platformLayer)))
})

describe("--debug over the simulated platform (test clock)", () => {
  // The user's token has expired: the backend answers 401 until the CLI refreshes it.
  const expiredLayer = Layer.mergeAll(
    layerWatched({ sessions: [ready, cold], userTokensExpired: true, rotateRefreshTokens: false }),
    NodeContext.layer
  )
  // Every token of the simulated platform starts with `msim-` (user, refresh and runtime tokens).
  const anyToken = /msim-/

  it.scoped("each exchange on stderr (request, head, body), every credential redacted; stdout the one answer", () =>
    Effect.gen(function*() {
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const configDir = yield* tempConfigDir
      const refreshToken = SimulatedPlatform.defaultRefreshToken
      // A cold runtime after a refresh of the user's token, then a runtime token rotated under a cached access.
      const coldRun = yield* runWithClock(
        send(cold.sessionUid, "--message", "hi", "--debug"),
        { configDir, refreshToken },
        "resolve-runtime-access",
        8_000
      )
      const first = yield* runCliSimulated(send(ready.sessionUid, "--message", "one", "--debug"), {
        configDir,
        refreshToken
      })
      yield* platform.rotateRuntimeToken(ready.sessionUid)
      const rotated = yield* runCliSimulated(
        send(ready.sessionUid, "--message", "two", "--debug", "--output", "text"),
        {
          configDir,
          refreshToken
        }
      )
      expect([coldRun.exitCode, first.exitCode, rotated.exitCode]).toEqual([0, 0, 0])
      expect(JSON.parse(coldRun.stdout)).toMatchObject({ message: { parts: [{ text: "You said: hi" }] } })
      expect(rotated.stdout).toBe("You said: two\n")
      const routes = (yield* platform.requestLog).map((entry) => entry.route)
      expect(routes).toContain("token-refresh")
      for (const run of [coldRun, first, rotated]) {
        expect(run.stdout + run.stderr).not.toMatch(anyToken)
        const debug = run.stderr.split("\n").filter((line) => line.startsWith("debug #"))
        // Each request has its response head and its body.
        const requests = debug.filter((line) => / > (GET|POST) http/.test(line))
        expect(requests.length).toBeGreaterThan(0)
        expect(debug.filter((line) => / < \d{3} (GET|POST) http.* \(head after \d+\.\d ms\)$/.test(line))).toHaveLength(
          requests.length
        )
        expect(debug.filter((line) => / < body \(\d+ bytes, ended after \d+\.\d ms\): /.test(line))).toHaveLength(
          requests.length
        )
        for (const line of debug.filter((line) => /^debug #\d+ {3}authorization: /.test(line))) {
          expect(line).toMatch(/authorization: <redacted>$/)
        }
      }
      const all = [coldRun, first, rotated].map((run) => run.stderr).join("")
      // The refresh: its request's refresh token and its answer's tokens.
      expect(all).toMatch(/> POST http\S+\/auth\/jwt-token\/token\/refresh\/\n/)
      const refreshBody = JSON.stringify({ refresh: Redacted.value(refreshToken) })
      expect(all).toContain(`body (${refreshBody.length} bytes): {"refresh":"<redacted>"}`)
      expect(all).toMatch(/< body \(\d+ bytes, ended after [\d.]+ ms\): \{"access":"<redacted>"\}/)
      // The runtime access: its token; the runtime's 401 after the rotation, then the resend.
      expect(all).toMatch(/"token": ?"<redacted>"/)
      expect(rotated.stderr).toMatch(/ < 401 POST http\S+message:send/)
      expect(all).toMatch(/authorization: <redacted>/)
    }).pipe(Effect.provide(expiredLayer)))
})

describe("CLI secrecy: a platform that echoes the tokens it was sent", () => {
  const bearerOf = (request: HttpClientRequest.HttpClientRequest) =>
    (request.headers["authorization"] ?? "").replace(/^Bearer /, "")
  const isResolve = (request: HttpClientRequest.HttpClientRequest) => request.url.endsWith("/resolve-runtime-access/")
  const isSend = (request: HttpClientRequest.HttpClientRequest) => request.url.endsWith("/message:send")
  const cases: ReadonlyArray<
    readonly [string, (request: HttpClientRequest.HttpClientRequest) => { status: number; body: unknown } | undefined]
  > = [
    [
      "a backend 401 naming the user's token",
      (r) => isResolve(r) ? { status: 401, body: { detail: `Token '${bearerOf(r)}' is expired` } } : undefined
    ],
    [
      "a backend 500 whose body is a resolve answer",
      (r) => isResolve(r) ? { status: 500, body: { mode: "token", token: "rt-handed-out-0c9f8e7d" } } : undefined
    ],
    [
      "a terminal resolve answer quoting the user's token",
      (r) =>
        isResolve(r)
          ? {
            status: 200,
            body: {
              detail: `for ${bearerOf(r)}`,
              runtime_interaction: { state: "unavailable", can_submit: false, notice: { title: bearerOf(r) } }
            }
          }
          : undefined
    ],
    [
      "a runtime 400 google.rpc message naming the runtime token",
      (r) =>
        isSend(r) ? { status: 400, body: { error: { code: 400, message: `bad bearer ${bearerOf(r)}` } } } : undefined
    ],
    [
      "a runtime answer whose role is the runtime token",
      (r) =>
        isSend(r)
          ? {
            status: 200,
            body: {
              message: { role: bearerOf(r), messageId: "a", contextId: ready.sessionUid, parts: [{ text: "x" }] }
            }
          }
          : undefined
    ]
  ]
  it.scoped("a runtime token read from the cache file (a previous run's) is scrubbed too", () =>
    Effect.gen(function*() {
      const configDir = yield* tempConfigDir
      const first = yield* runCliSimulated(send(ready.sessionUid, "--message", "one"), { configDir })
      expect(first.exitCode).toBe(0)
      const echoed = new Set<string>()
      const second = yield* runCliSimulated(send(ready.sessionUid, "--message", "two"), {
        configDir,
        httpClient: (simulated) =>
          HttpClient.make((request) => {
            if (!isSend(request)) return simulated.execute(request)
            echoed.add(bearerOf(request))
            const body = { error: { code: 400, message: `bad bearer ${bearerOf(request)}` } }
            return Effect.succeed(HttpClientResponse.fromWeb(request, Response.json(body, { status: 400 })))
          })
      })
      // no resolve in the second run: the token came from the file
      expect((yield* (yield* SimulatedPlatform.SimulatedPlatform).counters).resolveCalls[ready.sessionUid]).toBe(1)
      expect(echoed.size).toBe(1)
      expect(second.stderr).toContain("bad bearer <redacted>")
      for (const secret of echoed) expect(second.stdout + second.stderr).not.toContain(secret)
    }).pipe(Effect.provide(platformLayer)))

  for (const [what, answer] of cases) {
    it.scoped(`stdout and stderr show none of them: ${what}`, () =>
      Effect.gen(function*() {
        const configDir = yield* tempConfigDir
        const secrets = new Set([Redacted.value(SimulatedPlatform.defaultUserAccessToken), "rt-handed-out-0c9f8e7d"])
        const result = yield* runCliSimulated(send(ready.sessionUid, "--message", "hi"), {
          configDir,
          httpClient: (simulated) =>
            HttpClient.make((request) => {
              secrets.add(bearerOf(request))
              const given = answer(request)
              return given === undefined
                ? simulated.execute(request)
                : Effect.succeed(HttpClientResponse.fromWeb(request, Response.json(given.body, given)))
            })
        })
        expect(result.exitCode).not.toBe(0)
        expect(result.stderr).toContain("<redacted>")
        for (const secret of secrets) expect(result.stdout + result.stderr).not.toContain(secret)
      }).pipe(Effect.provide(platformLayer)))
  }
})
