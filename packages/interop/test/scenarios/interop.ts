/**
 * Interoperability with the official A2A v1 server (`@a2a-js/sdk@1.3.0` REST handler) behind the reference
 * platform's backend: through the SDK (`A2AClient` on `@mainsequence/a2a/node`) and through the built CLI.
 */
import { A2AError, A2AProtocol, Attachment } from "@mainsequence/a2a"
import type { SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { expect } from "vitest"
import {
  cacheFileName,
  captureCli,
  expectErrorDocument,
  filesIn,
  makeConfigDir,
  retryMessageId,
  runCli
} from "../support/cli.js"
import { assertAnswer, assertMessage, assertTask } from "../support/conformance.js"
import { type OfficialServer, startOfficialServer } from "../support/officialServer.js"
import {
  type ReferenceBackend,
  referenceBackend,
  simulatorRuntimeToken,
  taskProfile
} from "../support/referenceBackend.js"
import type { Scenario, ScenarioContext } from "../support/scenario.js"
import { runSdk, successOf } from "../support/sdk.js"
import { secrets } from "../support/secrets.js"
import { must } from "../support/wire.js"

export const sessionUid = "0b2701a1-e777-4cfe-8437-b94025f00069"
const serviceUid = "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"
export const agentUid = "5f1c2a9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b"

interface OfficialStage {
  readonly official: OfficialServer
  /** The simulated backend (reference platform) handing out the official server's rpc_url. */
  readonly ref: ReferenceBackend
  readonly backendUrl: string
  readonly counters: () => Promise<SimulatedPlatform.Counters>
  readonly backendLog: () => Promise<ReadonlyArray<SimulatedPlatform.RequestLogEntry>>
}

/**
 * The official A2A server behind the simulated backend (the reference platform, a session whose scenario
 * names the official server as its external `rpc_url`, Task mode advertised). The official server accepts the
 * runtime tokens the simulation mints; with `rejectFirstToken` it rotates the session's token and answers 401
 * to the first runtime request.
 */
const officialStage = async (
  ctx: ScenarioContext,
  options: {
    readonly rpcUrl?: (official: OfficialServer) => string
    readonly rejectFirstToken?: boolean
    readonly userTokensExpired?: boolean
  } = {}
): Promise<OfficialStage> => {
  let rotate: () => Promise<void> = () => Promise.resolve()
  const official = await startOfficialServer({
    tokens: [],
    slowTaskMs: 400,
    authorize: async (token, n) => {
      if (!simulatorRuntimeToken.test(token)) return false
      if (options.rejectFirstToken === true && n === 0) {
        await rotate()
        return false
      }
      return true
    }
  })
  ctx.defer(() => official.close())
  ctx.watch(official.requests)
  const ref = await referenceBackend(ctx, [{
    sessionUid,
    agentUid,
    serviceUid,
    rpcUrl: options.rpcUrl?.(official) ?? official.rpcUrl(),
    agent: { taskSupport: true }
  }], options.userTokensExpired === true ? { userTokensExpired: true } : {})
  rotate = () => Effect.runPromise(Effect.asVoid(ref.platform.rotateRuntimeToken(sessionUid)))
  return { official, ref, backendUrl: ref.url, counters: ref.counters, backendLog: ref.requestLog }
}

const resolvesOf = async (stage: OfficialStage): Promise<number> =>
  (await stage.counters()).resolveCalls[sessionUid] ?? 0

type Json = Record<string, unknown>
const parse = (bytes: Buffer): Json => JSON.parse(bytes.toString("utf8")) as Json

/** The data part the official server's executor adds: what it received. */
const receivedOf = (message: A2AProtocol.Message): Json => {
  const part = message.parts.find((p) => typeof p.data === "object" && p.data !== null && "received" in p.data)
  expect(part, "the echo's `received` data part").toBeDefined()
  return (part?.data as { received: Json }).received
}

const uuidV4Id = /^msg-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

// ---------------------------------------------------------------------------------------------------------
// SDK
// ---------------------------------------------------------------------------------------------------------

export const sdkScenarios: ReadonlyArray<Scenario> = [
  {
    name: "SDK: direct Message through the official A2A v1 server (headers, body, answer kept whole)",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const { official } = stage
      const run = await runSdk(
        ctx.captured,
        "direct",
        { backendUrl: stage.backendUrl },
        (client) => client.sendA2AMessage(sessionUid, { message: "What can you do?" })
      )
      const answer = successOf(run)
      assertMessage(answer)
      expect(answer.role).toBe("ROLE_AGENT")
      expect(answer.contextId).toBe(sessionUid)
      expect(A2AProtocol.textOf(answer)).toEqual(["echo: What can you do?"])
      // kept whole: data parts, metadata, extensions
      expect(answer.metadata).toEqual({ interop: { server: "@a2a-js/sdk@1.3.0" } })
      expect(answer.extensions).toEqual([A2AProtocol.responseKindExtensionUri])
      expect(receivedOf(answer)).toMatchObject({
        text: "What can you do?",
        files: [],
        acceptedOutputModes: ["text/plain"],
        metadata: null,
        extensions: [A2AProtocol.responseKindExtensionUri]
      })
      const sends = official.sends()
      expect(sends).toHaveLength(1)
      const sent = must(sends[0])
      expect(sent.headers).toMatchObject({
        authorization: expect.stringMatching(/^Bearer msim-runtime-\d+-[0-9a-f]{32}$/),
        "a2a-version": "1.0",
        "a2a-extensions": A2AProtocol.responseKindExtensionUri,
        accept: "application/a2a+json"
      })
      expect(sent.headers["content-type"]?.split(";")[0]).toBe("application/a2a+json")
      const body = parse(sent.body)
      expect(body).toEqual({
        message: {
          messageId: expect.stringMatching(uuidV4Id),
          role: "ROLE_USER",
          contextId: sessionUid,
          parts: [{ text: "What can you do?" }]
        },
        configuration: { acceptedOutputModes: ["text/plain"], responseKind: "message" }
      })
      expect(sent.path).toBe(`/runtimes/${"7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"}/api/a2a/v1/message:send`)
      expect(await resolvesOf(stage)).toBe(1)
    }
  },
  {
    name: "SDK: strict dictionary reaches the official server (application/json, output-contract metadata)",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const { official } = stage
      const run = await runSdk(
        ctx.captured,
        "strict",
        { backendUrl: stage.backendUrl },
        (client) =>
          client.sendA2AMessage(sessionUid, {
            message: "Return a JSON dictionary with keys ok and answer.",
            strictDictionary: true,
            jsonRepairAttempts: 5
          })
      )
      const answer = successOf(run)
      assertMessage(answer)
      const contract = {
        [A2AProtocol.outputContractExtensionUri]: {
          response_format: { type: "dictionary", strict: true },
          jsonRepairAttempts: 5
        }
      }
      expect(receivedOf(answer)).toMatchObject({ acceptedOutputModes: ["application/json"], metadata: contract })
      expect(
        answer.parts.some((p) =>
          JSON.stringify(p.data) ===
            JSON.stringify({ ok: true, answer: "Return a JSON dictionary with keys ok and answer." })
        )
      ).toBe(true)
      const body = parse(must(official.sends()[0]).body)
      expect(body["metadata"]).toEqual(contract)
      expect(body["configuration"]).toEqual({ acceptedOutputModes: ["application/json"], responseKind: "message" })
    }
  },
  {
    name: "SDK: attachments arrive byte-identical through the official server's parser",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const pdf = Buffer.concat([Buffer.from("%PDF-1.4\n"), Crypto.randomBytes(10_000)])
      const png = Crypto.randomBytes(1024 * 1024 + 7)
      const sha = (b: Buffer) => Crypto.createHash("sha256").update(b).digest("hex")
      const run = await runSdk(
        ctx.captured,
        "attachments",
        { backendUrl: stage.backendUrl },
        (client) =>
          Effect.gen(function*() {
            const a = yield* Attachment.fromBytes("report.pdf", pdf)
            const b = yield* Attachment.fromBytes("image.png", png, "image/png")
            return yield* client.sendA2AMessage(sessionUid, { message: "Summarise these", attachments: [a, b] })
          })
      )
      const answer = successOf(run)
      expect(receivedOf(answer)["files"]).toEqual([
        { filename: "report.pdf", mediaType: "application/pdf", bytes: pdf.length, sha256: sha(pdf) },
        { filename: "image.png", mediaType: "image/png", bytes: png.length, sha256: sha(png) }
      ])
    }
  },
  {
    name: "SDK: a caller's message id is trimmed and sent as message.messageId",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const { official } = stage
      const run = await runSdk(
        ctx.captured,
        "message-id",
        { backendUrl: stage.backendUrl },
        (client) => client.sendA2AMessage(sessionUid, { message: "hi", messageId: "  client.id:42-x_y  " })
      )
      successOf(run)
      expect((parse(must(official.sends()[0]).body)["message"] as Json)["messageId"]).toBe("client.id:42-x_y")
    }
  },
  {
    name: "SDK: Task mode — send (with Agent discovery), get",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const { official } = stage
      const run = await runSdk(
        ctx.captured,
        "task",
        { backendUrl: stage.backendUrl },
        (client) =>
          Effect.gen(function*() {
            const task = yield* client.sendA2AMessage(sessionUid, { message: "complete", responseKind: "task" })
            const got = yield* client.getA2ATask(sessionUid, task.id)
            return { task, got }
          })
      )
      const { got, task } = successOf(run)
      assertTask(task)
      assertTask(got)
      expect(task.status.state).toBe("TASK_STATE_COMPLETED")
      expect(task.contextId).toBe(sessionUid)
      expect(A2AProtocol.textOf(task)).toEqual(["done: complete", "result of complete"])
      expect(got.id).toBe(task.id)
      expect(got.status.state).toBe("TASK_STATE_COMPLETED")
      const body = parse(must(official.sends()[0]).body)
      expect(body["configuration"]).toEqual({ acceptedOutputModes: ["text/plain"], responseKind: "task" })
      const discovery = (await stage.backendLog()).filter((r) => r.method === "GET").map((r) => r.path)
      expect(discovery).toEqual([`/api/v1/agent-sessions/${sessionUid}/`, `/api/v1/agents/${agentUid}/`])
      expect(official.requests.filter((r) => r.method === "GET").map((r) => r.path)).toEqual([
        `/runtimes/7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f/api/a2a/v1/tasks/${encodeURIComponent(task.id)}`
      ])
    }
  },
  {
    name: "SDK: Task mode — failed and input-required Tasks are returned as Tasks (agentProfile given, no discovery)",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const run = await runSdk(ctx.captured, "task-states", { backendUrl: stage.backendUrl }, (client) =>
        Effect.all([
          client.sendA2AMessage(sessionUid, { message: "fail", responseKind: "task", agentProfile: taskProfile }),
          client.sendA2AMessage(sessionUid, { message: "input", responseKind: "task", agentProfile: taskProfile })
        ]))
      const [failed, input] = successOf(run)
      assertTask(failed)
      assertTask(input)
      expect(failed.status.state).toBe("TASK_STATE_FAILED")
      expect(input.status.state).toBe("TASK_STATE_INPUT_REQUIRED")
      expect(A2AProtocol.isInterrupted(input)).toBe(true)
      expect((await stage.counters()).discoveryCalls).toBe(0)
    }
  },
  {
    name: "SDK: Task mode — a follow-up turn (taskId) answers an INPUT_REQUIRED Task; the same Task completes",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const { official } = stage
      const run = await runSdk(
        ctx.captured,
        "follow-up",
        { backendUrl: stage.backendUrl },
        (client) =>
          Effect.gen(function*() {
            const asked = yield* client.sendA2AMessage(sessionUid, { message: "input", responseKind: "task" })
            const answered = yield* client.sendA2AMessage(sessionUid, {
              message: "the blue one",
              responseKind: "task",
              taskId: asked.id
            })
            const got = yield* client.getA2ATask(sessionUid, asked.id)
            return { asked, answered, got }
          })
      )
      const { answered, asked, got } = successOf(run)
      assertTask(asked)
      expect(asked.status.state).toBe("TASK_STATE_INPUT_REQUIRED")
      expect(A2AProtocol.isInterrupted(asked)).toBe(true)
      expect(A2AProtocol.textOf(asked)).toEqual(["which one?"])
      assertTask(answered)
      expect(answered.id).toBe(asked.id)
      expect(answered.contextId).toBe(sessionUid)
      expect(answered.status.state).toBe("TASK_STATE_COMPLETED")
      expect(A2AProtocol.textOf(answered)).toEqual(["answered: the blue one", "result for the blue one"])
      assertTask(got)
      expect(got.status.state).toBe("TASK_STATE_COMPLETED")
      // on the wire: the second turn names the Task, in Task mode, in the session's context
      const sends = official.sends().map((r) => parse(r.body))
      expect(sends).toHaveLength(2)
      expect((sends[0]?.["message"] as Json)["taskId"]).toBeUndefined()
      expect(sends[1]?.["message"]).toMatchObject({ taskId: asked.id, contextId: sessionUid, role: "ROLE_USER" })
      expect(sends[1]?.["configuration"]).toMatchObject({ responseKind: "task" })
    }
  },
  {
    name: "SDK: Task mode — wait follows a WORKING Task until it completes",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const { official } = stage
      const run = await runSdk(
        ctx.captured,
        "wait",
        { backendUrl: stage.backendUrl },
        (client) =>
          Effect.gen(function*() {
            const task = yield* client.sendA2AMessage(sessionUid, { message: "working", responseKind: "task" })
            const done = yield* client.waitForA2ATask(sessionUid, task.id, { timeout: 10 })
            return { task, done }
          })
      )
      const { done, task } = successOf(run)
      expect(task.status.state).toBe("TASK_STATE_WORKING")
      assertTask(done)
      expect(done.status.state).toBe("TASK_STATE_COMPLETED")
      expect(official.requests.filter((r) => r.method === "GET").length).toBeGreaterThanOrEqual(2)
    }
  },
  {
    name: "SDK: Task mode — cancel a WORKING Task; canceling a finished one is TASK_NOT_CANCELABLE",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const run = await runSdk(
        ctx.captured,
        "cancel",
        { backendUrl: stage.backendUrl },
        (client) =>
          Effect.gen(function*() {
            const task = yield* client.sendA2AMessage(sessionUid, { message: "cancelable", responseKind: "task" })
            const canceled = yield* client.cancelA2ATask(sessionUid, task.id)
            const done = yield* client.sendA2AMessage(sessionUid, { message: "complete", responseKind: "task" })
            const refused = yield* Effect.flip(client.cancelA2ATask(sessionUid, done.id))
            return { canceled, refused, doneId: done.id }
          })
      )
      const { canceled, doneId, refused } = successOf(run)
      assertTask(canceled)
      expect(canceled.status.state).toBe("TASK_STATE_CANCELED")
      expect(refused).toBeInstanceOf(A2AError.TaskNotCancelableError)
      expect(refused).toMatchObject({
        status: 400,
        reason: "TASK_NOT_CANCELABLE",
        taskId: doneId,
        agentSessionUid: sessionUid
      })
      expect(String(refused)).toContain("cannot be canceled")
    }
  },
  {
    name: "SDK: TASK_NOT_FOUND on get, wait and cancel (google.rpc.Status 404, charset media type)",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const run = await runSdk(ctx.captured, "not-found", { backendUrl: stage.backendUrl }, (client) =>
        Effect.all([
          Effect.flip(client.getA2ATask(sessionUid, "no-such-task")),
          Effect.flip(client.waitForA2ATask(sessionUid, "no-such-task", { timeout: 5 })),
          Effect.flip(client.cancelA2ATask(sessionUid, "no such/task?"))
        ]))
      for (const error of successOf(run)) {
        expect(error).toBeInstanceOf(A2AError.TaskNotFoundError)
        expect(error).toMatchObject({ status: 404, reason: "TASK_NOT_FOUND", agentSessionUid: sessionUid })
        expect(error.message).toMatch(/not found/)
      }
      expect(successOf(run)[2]).toMatchObject({ taskId: "no such/task?" })
    }
  },
  {
    name: "SDK: HTML 404 pages from unknown routes are a clear A2ARequestError (never TaskNotFound)",
    run: async (ctx) => {
      const stage = await officialStage(ctx, { rpcUrl: (o) => o.unmountedRpcUrl })
      const run = await runSdk(ctx.captured, "html-404", { backendUrl: stage.backendUrl }, (client) =>
        Effect.all([
          Effect.flip(client.sendA2AMessage(sessionUid, { message: "hello" })),
          Effect.flip(client.getA2ATask(sessionUid, "task-1"))
        ]))
      const [send, get] = successOf(run)
      expect(send).toBeInstanceOf(A2AError.A2ARequestError)
      expect(send).toMatchObject({ status: 404, messageId: expect.stringMatching(uuidV4Id) })
      expect(send.message).toContain("404")
      expect(send.message).not.toMatch(/<html|<!DOCTYPE/i)
      expect(get).toBeInstanceOf(A2AError.A2ARequestError)
      expect(get).toMatchObject({ status: 404 })
    }
  },
  {
    name: "SDK: a Task answer to a Message request is a response-kind mismatch",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const run = await runSdk(
        ctx.captured,
        "kind-mismatch",
        { backendUrl: stage.backendUrl },
        (client) => Effect.flip(client.sendA2AMessage(sessionUid, { message: "task-anyway" }))
      )
      const error = successOf(run)
      expect(error).toBeInstanceOf(A2AError.InvalidA2AResponseError)
      expect(error).toMatchObject({ messageId: expect.stringMatching(uuidV4Id) })
    }
  },
  {
    name: "SDK: an answer for another contextId is refused with a clear message",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const run = await runSdk(
        ctx.captured,
        "wrong-context",
        { backendUrl: stage.backendUrl },
        (client) => Effect.flip(client.sendA2AMessage(sessionUid, { message: "wrong-context" }))
      )
      const error = successOf(run)
      expect(error).toBeInstanceOf(A2AError.InvalidA2AResponseError)
      expect(error.message).toMatch(/context/i)
    }
  },
  {
    name: "SDK: a runtime 401 drops the access, resolves again and resends the identical bytes once",
    run: async (ctx) => {
      const stage = await officialStage(ctx, { rejectFirstToken: true })
      const { official } = stage
      const run = await runSdk(
        ctx.captured,
        "runtime-401",
        { backendUrl: stage.backendUrl },
        (client) => client.sendA2AMessage(sessionUid, { message: "again" })
      )
      assertAnswer(successOf(run))
      const sends = official.sends()
      expect(sends).toHaveLength(2)
      expect(must(sends[1]).body.equals(must(sends[0]).body)).toBe(true)
      const [first, second] = sends.map((s) => s.headers["authorization"])
      expect(first).not.toBe(second)
      expect((await stage.counters()).runtimeTokensIssued).toBe(2)
      expect(await resolvesOf(stage)).toBe(2)
    }
  },
  {
    name: "SDK: a backend 401 refreshes the user token once",
    run: async (ctx) => {
      const stage = await officialStage(ctx, { userTokensExpired: true })
      const run = await runSdk(
        ctx.captured,
        "user-refresh",
        { backendUrl: stage.backendUrl, refreshToken: secrets.userRefresh },
        (client) => client.sendA2AMessage(sessionUid, { message: "hello" })
      )
      assertAnswer(successOf(run))
      expect((await stage.counters()).refreshes).toBe(1)
      const resolves = (await stage.backendLog()).filter((r) => r.path.endsWith("/resolve-runtime-access/"))
      expect(resolves).toHaveLength(2)
      expect(resolves[0]?.tokenLabel).not.toBe(resolves[1]?.tokenLabel)
    }
  }
]

// ---------------------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------------------

const send = ["agent", "session", "a2a", "send", sessionUid]
const task = (verb: string, id: string) => ["agent", "session", "a2a", "task", verb, sessionUid, id]

const answerOf = (stdout: string): Json => {
  expect(stdout).toMatch(/^\{\n {2}"/)
  return JSON.parse(stdout) as Json
}

export const cliScenarios: ReadonlyArray<Scenario> = [
  {
    name: "CLI: send prints the official server's Message as JSON; the cache file is 0600 JSON",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const { official } = stage
      const configDir = makeConfigDir()
      ctx.defer(() => Fs.rmSync(configDir, { recursive: true, force: true }))
      const first = await runCli([...send, "--message", "What can you do?"], {
        backendUrl: stage.backendUrl,
        configDir
      })
      captureCli(ctx.captured, "cli-send", first)
      expect(first.stderr).toBe("")
      expect(first.code).toBe(0)
      const message = answerOf(first.stdout)["message"] as Json
      assertMessage(message)
      expect(message).toMatchObject({ role: "ROLE_AGENT", contextId: sessionUid })
      // second run reuses the cached access: one resolve in all
      const second = await runCli([...send, "--message", "again", "--output", "text"], {
        backendUrl: stage.backendUrl,
        configDir
      })
      captureCli(ctx.captured, "cli-send-2", second)
      expect(second.code).toBe(0)
      expect(second.stdout).toContain("echo: again")
      expect(await resolvesOf(stage)).toBe(1)
      expect(official.sends()).toHaveLength(2)
      const cache = filesIn(configDir).find((f) => Path.basename(f.path) === cacheFileName)
      expect(cache, "the cache file").toBeDefined()
      expect(must(cache).mode).toBe(0o600)
      expect(() => JSON.parse(must(cache).bytes.toString("utf8")) as unknown).not.toThrow()
    }
  },
  {
    name: "CLI: --strict-dictionary, --file/--media-type and --message-id reach the official server",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const { official } = stage
      const dir = makeConfigDir()
      ctx.defer(() => Fs.rmSync(dir, { recursive: true, force: true }))
      const pdf = Path.join(dir, "report.pdf")
      const csv = Path.join(dir, "table.csv")
      Fs.writeFileSync(pdf, "%PDF-1.4\nhello")
      Fs.writeFileSync(csv, "a,b\n1,2\n")
      const result = await runCli([
        ...send,
        "--message",
        "Summarise",
        "--strict-dictionary",
        "--json-repair-attempts",
        "2",
        "--file",
        pdf,
        "--media-type",
        "application/pdf",
        "--file",
        csv,
        "--media-type",
        "text/csv",
        "--message-id",
        "cli-msg-1"
      ], { backendUrl: stage.backendUrl })
      captureCli(ctx.captured, "cli-options", result)
      expect(result.stderr).toBe("")
      expect(result.code).toBe(0)
      const body = parse(must(official.sends()[0]).body)
      expect(body["message"]).toMatchObject({ messageId: "cli-msg-1" })
      expect(body["configuration"]).toEqual({ acceptedOutputModes: ["application/json"], responseKind: "message" })
      expect(body["metadata"]).toEqual({
        [A2AProtocol.outputContractExtensionUri]: {
          response_format: { type: "dictionary", strict: true },
          jsonRepairAttempts: 2
        }
      })
      const parts = (body["message"] as { parts: Array<Json> }).parts
      expect(parts.slice(1)).toEqual([
        {
          raw: Buffer.from("%PDF-1.4\nhello").toString("base64"),
          filename: "report.pdf",
          mediaType: "application/pdf"
        },
        { raw: Buffer.from("a,b\n1,2\n").toString("base64"), filename: "table.csv", mediaType: "text/csv" }
      ])
    }
  },
  {
    name: "CLI: --response-kind task, then task get, wait and cancel",
    timeoutMs: 60_000,
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const opts = { backendUrl: stage.backendUrl }
      const created = await runCli([...send, "--message", "working", "--response-kind", "task"], opts)
      captureCli(ctx.captured, "cli-task", created)
      expect(created.code, created.stderr).toBe(0)
      const t = answerOf(created.stdout)["task"] as { id: string; status: { state: string } }
      assertTask(t)
      expect(t.status.state).toBe("TASK_STATE_WORKING")
      const got = await runCli(task("get", t.id), opts)
      captureCli(ctx.captured, "cli-get", got)
      expect(got.code, got.stderr).toBe(0)
      const waited = await runCli([...task("wait", t.id), "--timeout", "10"], opts)
      captureCli(ctx.captured, "cli-wait", waited)
      expect(waited.code, waited.stderr).toBe(0)
      expect((answerOf(waited.stdout)["task"] as Json)["status"]).toMatchObject({ state: "TASK_STATE_COMPLETED" })
      const other = await runCli([...send, "--message", "cancelable", "--response-kind", "task"], opts)
      const otherId = (answerOf(other.stdout)["task"] as { id: string }).id
      const canceled = await runCli(task("cancel", otherId), opts)
      captureCli(ctx.captured, "cli-cancel", canceled)
      expect(canceled.code, canceled.stderr).toBe(0)
      expect((answerOf(canceled.stdout)["task"] as Json)["status"]).toMatchObject({ state: "TASK_STATE_CANCELED" })
    }
  },
  {
    name: "CLI: TASK_NOT_FOUND and TASK_NOT_CANCELABLE are one-line failures, exit 1",
    run: async (ctx) => {
      const stage = await officialStage(ctx)
      const opts = { backendUrl: stage.backendUrl }
      const missing = await runCli(task("get", "no-such-task"), opts)
      captureCli(ctx.captured, "cli-not-found", missing)
      expect(missing.code).toBe(1)
      expectErrorDocument(missing, { type: "TaskNotFoundError" })
      expect(missing.stderr.trim().split("\n")).toHaveLength(1)
      expect(missing.stderr).toMatch(/no-such-task.*not found/i)
      const done = await runCli([...send, "--message", "complete", "--response-kind", "task"], opts)
      const id = (answerOf(done.stdout)["task"] as { id: string }).id
      const refused = await runCli(task("cancel", id), opts)
      captureCli(ctx.captured, "cli-not-cancelable", refused)
      expect(refused.code).toBe(1)
      expect(refused.stderr.trim().split("\n")).toHaveLength(1)
      expect(refused.stderr).toMatch(/cannot be canceled/)
    }
  },
  {
    name: "CLI: an HTML 404 page is a one-line failure with the message id",
    run: async (ctx) => {
      const stage = await officialStage(ctx, { rpcUrl: (o) => o.unmountedRpcUrl })
      const { official } = stage
      const result = await runCli([...send, "--message", "hello"], { backendUrl: stage.backendUrl })
      captureCli(ctx.captured, "cli-html-404", result)
      expect(result.code).toBe(1)
      expect(result.stderr).not.toMatch(/<html|<!DOCTYPE|\s+at /i)
      const lines = result.stderr.trim().split("\n")
      expect(lines).toHaveLength(2)
      expect(lines[0]).toContain("404")
      const sent = must(official.requests.find((r) => r.path.endsWith("/message:send")))
      expect(retryMessageId(result.stderr)).toBe((parse(sent.body)["message"] as Json)["messageId"])
    }
  }
]
