/**
 * Faults over real sockets (127.0.0.1): each ends in the documented SDK error, within the budget, with the
 * message id reported (the error's `messageId`; for the CLI the `A2A message id for request retry: <id>`
 * line), and with the number of sends the SPEC allows, counted on the server side.
 */
import { type A2AClient, A2AError, Attachment, type Timeout } from "@mainsequence/a2a"
import type { SessionScenario } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { expect } from "vitest"
import {
  cacheFileName,
  captureCli,
  exitCodeFor,
  expectErrorDocument,
  filesIn,
  makeConfigDir,
  retryMessageId,
  runCli
} from "../support/cli.js"
import { type Fault, type FaultRuntime, startFaultRuntime } from "../support/faultRuntime.js"
import { type ReferenceBackend, referenceBackend } from "../support/referenceBackend.js"
import type { Scenario, ScenarioContext } from "../support/scenario.js"
import { runSdk } from "../support/sdk.js"
import { closedPort, must, type RecordedRequest, until } from "../support/wire.js"

export const sessionUid = "3c9e1f2a-6b7d-4c8e-9f0a-1b2c3d4e5f60"
const agentUid = "4d0f2a3b-7c8e-4d9f-8a1b-2c3d4e5f6a71"
const serviceUid = "5e1a3b4c-8d9f-4e0a-9b2c-3d4e5f6a7b82"
const uuidV4Id = /^msg-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/**
 * Slack over a budget for scheduling noise. The CLI is timed from the first request the backend received
 * (after the budget started) to the process's exit, so Node's start-up is not counted against the budget.
 */
const sdkSlackMs = 2_000
const cliSlackMs = 2_000

interface Stage {
  readonly backend: ReferenceBackend
  readonly runtime: FaultRuntime | undefined
}

const stage = async (
  ctx: ScenarioContext,
  options: {
    readonly plan?: (n: number) => Fault
    readonly rpcUrl?: string
    /** How the backend plays the session (default: ready, one runtime token until it is rejected). */
    readonly session?: Pick<SessionScenario.SessionScenarioInput, "backend" | "token">
  }
): Promise<Stage> => {
  let runtime: FaultRuntime | undefined
  if (options.plan !== undefined) {
    const started = await startFaultRuntime(options.plan, { contextId: sessionUid })
    runtime = started
    ctx.defer(() => started.close())
    ctx.watch(started.requests)
  }
  const rpcUrl = options.rpcUrl ?? must(runtime, "a runtime or an rpcUrl").rpcUrl
  const backend = await referenceBackend(ctx, [{ sessionUid, agentUid, serviceUid, rpcUrl, ...options.session }])
  return { backend, runtime }
}

const messageIdOnWire = (requests: ReadonlyArray<RecordedRequest>): string | undefined => {
  const send = requests.find((r) => r.path.endsWith("/message:send") && r.body.length > 0)
  if (send === undefined) return undefined
  const match = /"messageId":"([^"]+)"/.exec(send.body.toString("utf8"))
  return match?.[1]
}

interface FaultCase {
  readonly name: string
  readonly setup: (ctx: ScenarioContext) => Promise<Stage>
  /** The SDK call's timeout, and the CLI's `--timeout`. */
  readonly sdkTimeout: Timeout.Timeout
  readonly cliTimeout: number
  /** The call must end within this (plus slack). */
  readonly budgetMs: number
  /** The documented error. */
  readonly tag: string
  /** Sends the runtime may see (counted when the request head arrived); `undefined` = no runtime to count. */
  readonly sends: number | undefined
  readonly resolves: number
  /** More checks on the SDK error. */
  readonly check?: (error: Record<string, unknown> & { readonly message: string }, stage: Stage) => void
  /** The CLI's cause line must match. */
  readonly cliLine: RegExp
  /** Attach a large file (for the reset in the middle of the request body). */
  readonly bigAttachment?: boolean
  /** SPEC-allowed identical resends (the one 401/403 refresh). */
  readonly identicalResends?: boolean
  /** The client's `maxResponseBytes` (CLI: `MAINSEQUENCE_MAX_RESPONSE_BYTES`); default 64 MiB. */
  readonly maxResponseBytes?: number
}

const bigFile = Crypto.randomBytes(2 * 1024 * 1024)

const sdkSend = (client: A2AClient.Service, c: FaultCase) =>
  Effect.gen(function*() {
    const attachments = c.bigAttachment === true
      ? [yield* Attachment.fromBytes("big.bin", bigFile, "application/octet-stream")]
      : []
    return yield* client.sendA2AMessage(sessionUid, { message: `fault: ${c.name}`, attachments, timeout: c.sdkTimeout })
  })

const html = (status: number) => ({
  name: `a text/html ${status} page`,
  setup: (ctx: ScenarioContext) => stage(ctx, { plan: () => `html-${status}` as Fault }),
  sdkTimeout: 10,
  cliTimeout: 10,
  budgetMs: 2_000,
  tag: "ServerError",
  sends: 1,
  resolves: 1,
  check: (error: Record<string, unknown> & { readonly message: string }) => {
    expect(error).toMatchObject({ status, origin: "runtime" })
    expect(error).not.toBeInstanceOf(A2AError.A2AMessageLimitExceededError)
    expect(error.message).toContain(String(status))
    expect(error.message).not.toMatch(/<html|<!DOCTYPE|nginx/i)
  },
  cliLine: new RegExp(String(status))
})

export const faultCases: ReadonlyArray<FaultCase> = [
  {
    name: "connection refused",
    setup: async (ctx) => stage(ctx, { rpcUrl: `http://127.0.0.1:${await closedPort()}/runtimes/gone/` }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "A2ATransportError",
    sends: undefined,
    resolves: 1,
    check: (error) => {
      expect(error).toMatchObject({ step: "send-message", messageMayHaveBeenSent: false })
      expect(error.message).toContain("ECONNREFUSED")
      expect(error.message).not.toMatch(/may already have reached/)
    },
    cliLine: /^(?!.*may already have reached).*connection failed during send-message.*ECONNREFUSED/i
  },
  {
    name: "a backend that refuses connections",
    setup: async (ctx) => {
      const s = await stage(ctx, { plan: () => "ok" })
      await s.backend.close()
      return s
    },
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "A2ATransportError",
    sends: 0,
    resolves: 0,
    check: (error) => expect(error).toMatchObject({ step: "resolve-runtime-access", messageMayHaveBeenSent: false }),
    cliLine: /connection failed during resolve-runtime-access/i
  },
  {
    name: "connection reset before the response head",
    setup: (ctx) => stage(ctx, { plan: () => "reset-before-head" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "A2ATransportError",
    sends: 1,
    resolves: 1,
    check: (error) => expect(error).toMatchObject({ messageMayHaveBeenSent: true }),
    cliLine: /connection failed.*may already have reached/i
  },
  {
    name: "connection reset in the middle of the response body",
    setup: (ctx) => stage(ctx, { plan: () => "reset-mid-response-body" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "A2ATransportError",
    sends: 1,
    resolves: 1,
    check: (error) => expect(error).toMatchObject({ messageMayHaveBeenSent: true, step: "read-response" }),
    cliLine: /connection failed.*may already have reached/i
  },
  {
    name: "connection reset in the middle of the request body (2 MiB attachment)",
    setup: (ctx) => stage(ctx, { plan: () => "reset-mid-request-body" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 3_000,
    tag: "A2ATransportError",
    sends: 1,
    resolves: 1,
    check: (error) => expect(error).toMatchObject({ messageMayHaveBeenSent: true }),
    cliLine: /connection failed/i,
    bigAttachment: true
  },
  {
    name: "a response head that never comes",
    setup: (ctx) => stage(ctx, { plan: () => "head-never-comes" }),
    sdkTimeout: [1, 1],
    cliTimeout: 2,
    budgetMs: 2_000,
    tag: "A2ATimeoutError",
    sends: 1,
    resolves: 1,
    check: (error) => expect(error).toMatchObject({ messageMayHaveBeenSent: true }),
    cliLine: /ran out.*may already have reached the runtime and is not sent again/
  },
  {
    name: "a body trickled one byte per second past the budget",
    setup: (ctx) => stage(ctx, { plan: () => "trickle" }),
    // read limit 2 s between chunks is never hit (a byte a second); the 3 s total is.
    sdkTimeout: [1, 2],
    cliTimeout: 3,
    budgetMs: 3_000,
    tag: "A2ATimeoutError",
    sends: 1,
    resolves: 1,
    check: (error, s) => {
      expect(error).toMatchObject({ messageMayHaveBeenSent: true, limit: "total", seconds: 3 })
      expect(must(s.runtime).written[0]).toBeGreaterThanOrEqual(2)
    },
    cliLine: /ran out.*may already have reached the runtime and is not sent again/
  },
  {
    name: "a 50 MB answer",
    setup: (ctx) => stage(ctx, { plan: () => "answer-50mb" }),
    sdkTimeout: 20,
    cliTimeout: 20,
    budgetMs: 10_000,
    tag: "InvalidA2AResponseError",
    sends: 1,
    resolves: 1,
    // 50 MiB is under the default 64 MiB maxResponseBytes: read whole, then refused as not JSON
    check: (error) => {
      expect(error).toMatchObject({ rule: "json" })
      expect(error.message.length).toBeLessThan(1_000)
    },
    cliLine: /Invalid A2A answer.*not JSON/
  },
  {
    name: "a 50 MB answer over a 1 MiB maxResponseBytes",
    setup: (ctx) => stage(ctx, { plan: () => "answer-50mb" }),
    maxResponseBytes: 1024 * 1024,
    sdkTimeout: 20,
    cliTimeout: 20,
    budgetMs: 2_000,
    tag: "InvalidA2AResponseError",
    sends: 1,
    resolves: 1,
    // refused from its Content-Length: the client stops the answer instead of reading 50 MB
    check: (error, s) => {
      expect(error).toMatchObject({ rule: "response-too-large", status: 200 })
      expect(error.message).toContain(`limit of ${1024 * 1024} bytes`)
      expect(must(s.runtime).written[0] ?? 0).toBeLessThan(50 * 1024 * 1024)
    },
    cliLine: /Invalid A2A answer.*too large.*limit of 1048576 bytes/
  },
  {
    name: "invalid JSON",
    setup: (ctx) => stage(ctx, { plan: () => "invalid-json" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "InvalidA2AResponseError",
    sends: 1,
    resolves: 1,
    check: (error) => expect(error).toMatchObject({ status: 200 }),
    cliLine: /Invalid A2A answer/
  },
  {
    name: "an empty 200",
    setup: (ctx) => stage(ctx, { plan: () => "empty-200" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "InvalidA2AResponseError",
    sends: 1,
    resolves: 1,
    check: (error) => expect(error).toMatchObject({ status: 200 }),
    cliLine: /Invalid A2A answer/
  },
  html(502),
  html(503),
  html(504),
  {
    name: "a 504 Message-limit answer with extra unknown details",
    setup: (ctx) => stage(ctx, { plan: () => "limit-504-extra-details" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "A2AMessageLimitExceededError",
    sends: 1,
    resolves: 1,
    check: (error) => {
      expect(error).toMatchObject({ limitSeconds: 90, status: 504, reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED" })
      expect(A2AError.isServerError(error)).toBe(true)
      expect(error.message).toMatch(/task/i)
    },
    cliLine: /limit of 90 seconds.*task/i
  },
  {
    name: "a backend that hangs",
    setup: (ctx) => stage(ctx, { plan: () => "ok", session: { backend: { resolveDelay: "forever" } } }),
    sdkTimeout: 1.5,
    cliTimeout: 1.5,
    budgetMs: 1_500,
    tag: "A2ATimeoutError",
    sends: 0,
    resolves: 1,
    check: (error) =>
      expect(error).toMatchObject({ messageMayHaveBeenSent: false, step: "resolve-runtime-access", limit: "total" }),
    cliLine: /ran out during resolve-runtime-access/
  },
  {
    name: "a backend 503 with Retry-After",
    setup: (ctx) =>
      stage(ctx, {
        plan: () => "ok",
        session: {
          backend: { resolveFault: { status: 503, detail: "The platform is under maintenance.", retryAfter: "30" } }
        }
      }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "ServerError",
    sends: 0,
    resolves: 1,
    check: (error) => {
      expect(error).toMatchObject({ status: 503, origin: "backend" })
      expect(error.message).toContain("maintenance")
    },
    cliLine: /503.*maintenance/
  },
  {
    name: "a runtime that answers 401, then hangs after the one refresh",
    setup: (ctx) =>
      stage(ctx, {
        plan: (n) => n === 0 ? "unauthorized" : "head-never-comes",
        // a fresh runtime token on every resolve: the rejected one is never sent again
        session: { token: { mintOnEveryResolve: true } }
      }),
    sdkTimeout: [1, 1],
    cliTimeout: 2,
    budgetMs: 2_000,
    tag: "A2ATimeoutError",
    sends: 2,
    resolves: 2,
    identicalResends: true,
    check: (error, s) => {
      expect(error).toMatchObject({ messageMayHaveBeenSent: true })
      const auth = must(s.runtime).requests.map((r) => r.headers["authorization"])
      expect(auth).toHaveLength(2)
      for (const header of auth) expect(header).toMatch(/^Bearer msim-runtime-\d+-[0-9a-f]{32}$/)
      expect(auth[1], "the resend carries the fresh token").not.toBe(auth[0])
    },
    cliLine: /ran out.*may already have reached the runtime and is not sent again/
  }
]

const checkSends = async (c: FaultCase, s: Stage): Promise<void> => {
  expect(await s.backend.resolves(sessionUid), "resolves").toBe(c.resolves)
  if (c.sends === undefined || s.runtime === undefined) return
  expect(s.runtime.sends(), "sends counted by the runtime").toBe(c.sends)
  const bodies = s.runtime.requests.filter((r) => r.complete).map((r) => r.body)
  if (c.identicalResends === true && bodies.length > 1) {
    for (const body of bodies) expect(body.equals(must(bodies[0])), "the resend carries identical bytes").toBe(true)
  }
}

/** Waits for the runtime to count the sends it will count (a reset may be noticed before the server logs it). */
const settle = async (c: FaultCase, s: Stage): Promise<void> => {
  if (c.sends !== undefined && s.runtime !== undefined && c.sends > 0) {
    const runtime = s.runtime
    await until(() => runtime.sends() >= must(c.sends), 2_000, "the runtime's send count").catch(() => undefined)
  }
}

export const sdkFaultScenarios: ReadonlyArray<Scenario> = faultCases.map((c) => ({
  name: `SDK fault: ${c.name} → ${c.tag}`,
  timeoutMs: c.budgetMs + 15_000,
  run: async (ctx) => {
    const s = await c.setup(ctx)
    const run = await runSdk(
      ctx.captured,
      `fault ${c.name}`,
      {
        backendUrl: s.backend.url,
        ...(c.maxResponseBytes === undefined ? {} : { maxResponseBytes: c.maxResponseBytes })
      },
      (client) => Effect.flip(sdkSend(client, c))
    )
    await settle(c, s)
    if (run.exit._tag === "Failure") throw new Error(`the call died: ${JSON.stringify(run.exit.cause)}`)
    const error = run.exit.value as unknown as Record<string, unknown> & {
      readonly _tag: string
      readonly message: string
    }
    expect(error._tag, error.message).toBe(c.tag)
    expect(run.ms, "ended within the budget").toBeLessThan(c.budgetMs + sdkSlackMs)
    const wireId = messageIdOnWire(s.runtime?.requests ?? [])
    expect(error["messageId"], "the error carries the message id").toMatch(uuidV4Id)
    if (wireId !== undefined) expect(error["messageId"]).toBe(wireId)
    expect(error["agentSessionUid"]).toBe(sessionUid)
    expect(error.message.split("\n")).toHaveLength(1)
    c.check?.(error, s)
    await checkSends(c, s)
  }
}))

const cliArgs = (c: FaultCase, dir: string): Array<string> => {
  const args = [
    "agent",
    "session",
    "a2a",
    "send",
    sessionUid,
    "--message",
    `fault: ${c.name}`,
    "--timeout",
    String(c.cliTimeout)
  ]
  if (c.bigAttachment === true) {
    const file = Path.join(dir, "big.bin")
    Fs.writeFileSync(file, bigFile)
    args.push("--file", file, "--media-type", "application/octet-stream")
  }
  return args
}

export const cliFaultScenarios: ReadonlyArray<Scenario> = faultCases.map((c) => ({
  name: `CLI fault: ${c.name} → exit ${exitCodeFor(c.tag)}, one-line cause, message id`,
  timeoutMs: c.budgetMs + 20_000,
  run: async (ctx) => {
    const s = await c.setup(ctx)
    const dir = makeConfigDir()
    ctx.defer(() => Fs.rmSync(dir, { recursive: true, force: true }))
    const result = await runCli(cliArgs(c, dir), {
      backendUrl: s.backend.url,
      configDir: dir,
      ...(c.maxResponseBytes === undefined ? {} : { maxResponseBytes: c.maxResponseBytes })
    })
    captureCli(ctx.captured, `cli fault ${c.name}`, result)
    await settle(c, s)
    expect(result.code, result.stderr).toBe(exitCodeFor(c.tag))
    expectErrorDocument(result, { type: c.tag })
    // Timed from the first backend request (Node's start-up is not the call's budget), else from the spawn.
    const firstRequest = await s.backend.firstRequestAt()
    const elapsed = firstRequest === undefined ? result.ms : result.endedAt - firstRequest
    expect(elapsed, "ended within the budget").toBeLessThan(
      c.budgetMs + (firstRequest === undefined ? 3 * cliSlackMs : cliSlackMs)
    )
    const lines = result.stderr.trim().split("\n").filter((l) => !l.startsWith("\r"))
    const last = lines.slice(-2)
    expect(last[0], result.stderr).toMatch(c.cliLine)
    expect(last[0]).not.toMatch(/<html|<!DOCTYPE|^\s+at /i)
    const id = retryMessageId(result.stderr)
    expect(id, "A2A message id for request retry").toMatch(uuidV4Id)
    const wireId = messageIdOnWire(s.runtime?.requests ?? [])
    if (wireId !== undefined) expect(id).toBe(wireId)
    await checkSends(c, s)
  }
}))

export const sigintScenario: Scenario = {
  name: "CLI fault: SIGINT during a send exits 130 with the message id; the cache file stays valid",
  timeoutMs: 20_000,
  run: async (ctx) => {
    const s = await stage(ctx, { plan: () => "head-never-comes" })
    const runtime = must(s.runtime)
    const dir = makeConfigDir()
    ctx.defer(() => Fs.rmSync(dir, { recursive: true, force: true }))
    const result = await runCli(["agent", "session", "a2a", "send", sessionUid, "--message", "interrupt me"], {
      backendUrl: s.backend.url,
      configDir: dir,
      onSpawn: (child) => {
        void until(() => runtime.sends() === 1, 10_000, "the send").then(() => child.kill("SIGINT"))
      }
    })
    captureCli(ctx.captured, "cli sigint", result)
    expect(result.code, result.stderr).toBe(130)
    expectErrorDocument(result, { type: "Interrupted", retrySafe: false })
    expect(retryMessageId(result.stderr)).toBe(messageIdOnWire(runtime.requests))
    expect(result.stderr).not.toMatch(/^\s+at /m)
    const cache = filesIn(dir).find((f) => Path.basename(f.path) === cacheFileName)
    expect(cache, "the cache file").toBeDefined()
    expect(must(cache).mode).toBe(0o600)
    expect(() => JSON.parse(must(cache).bytes.toString("utf8")) as unknown).not.toThrow()
    expect(filesIn(dir).filter((f) => f.path.includes(".tmp") || f.path.endsWith("~")), "no temp files left").toEqual(
      []
    )
    expect(runtime.sends()).toBe(1)
  }
}

export const sigtermScenario: Scenario = {
  name: "CLI fault: SIGTERM during a send exits 143 with the interruption line and the message id",
  timeoutMs: 20_000,
  run: async (ctx) => {
    const s = await stage(ctx, { plan: () => "head-never-comes" })
    const runtime = must(s.runtime)
    const result = await runCli(["agent", "session", "a2a", "send", sessionUid, "--message", "stop me"], {
      backendUrl: s.backend.url,
      onSpawn: (child) => {
        void until(() => runtime.sends() === 1, 10_000, "the send").then(() => child.kill("SIGTERM"))
      }
    })
    captureCli(ctx.captured, "cli sigterm", result)
    expect(result.code, result.stderr).toBe(143)
    expectErrorDocument(result, { type: "Interrupted", retrySafe: false })
    expect(result.stderr).toMatch(/Interrupted: the send was stopped/)
    expect(retryMessageId(result.stderr)).toBe(messageIdOnWire(runtime.requests))
    expect(runtime.sends()).toBe(1)
  }
}
