/**
 * The faults the reference platform (`serveReferencePlatform` from `@mainsequence/a2a-testing/node`, the
 * simulated platform over real HTTP on 127.0.0.1, real clock) can play, through the SDK and the CLI. Sends
 * and resolves are counted by the platform (`counters`); every `message:send` body it logged is
 * schema-checked like any other.
 */
import { A2AError, type Timeout } from "@mainsequence/a2a"
import type { SessionScenario } from "@mainsequence/a2a-testing"
import { type ReferencePlatform, serveReferencePlatform } from "@mainsequence/a2a-testing/node"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import { expect } from "vitest"
import { captureCli, exitCodeFor, expectErrorDocument, makeConfigDir, retryMessageId, runCli } from "../support/cli.js"
import type { Scenario, ScenarioContext } from "../support/scenario.js"
import { runSdk } from "../support/sdk.js"
import { secrets } from "../support/secrets.js"
import type { RecordedRequest } from "../support/wire.js"

const session = {
  sessionUid: "6f0e1d2c-3b4a-4958-8776-a5b4c3d2e1f0",
  agentUid: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
  serviceUid: "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f"
}
const uuidV4Id = /^msg-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

type SessionInput = Omit<SessionScenario.SessionScenarioInput, "sessionUid" | "agentUid" | "serviceUid">

interface Reference {
  readonly ref: ReferencePlatform
  readonly sends: () => Promise<number>
  readonly resolves: () => Promise<number>
}

/** Serves the reference platform with one session until the scenario ends; its log feeds the wire check. */
const serve = async (ctx: ScenarioContext, input: SessionInput): Promise<Reference> => {
  const scope = Effect.runSync(Scope.make())
  ctx.defer(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  const ref = await Effect.runPromise(
    serveReferencePlatform({
      demoSessions: false,
      sessions: [{ ...session, ...input }],
      userAccessTokens: [Redacted.make(secrets.userAccess)],
      refreshTokens: [Redacted.make(secrets.userRefresh)]
    }).pipe(Scope.extend(scope))
  )
  const log: Array<RecordedRequest> = []
  ctx.watch(log)
  const counters = () => Effect.runPromise(ref.platform.counters)
  const mirror = async () => {
    const entries = await Effect.runPromise(ref.platform.requestLog)
    log.length = 0
    for (const e of entries) {
      log.push({
        server: "reference",
        method: e.method,
        path: e.path,
        headers: e.headers,
        body: Buffer.from(e.body),
        complete: true,
        at: e.atMs
      })
    }
  }
  return {
    ref,
    sends: async () => {
      await mirror()
      return (await counters()).sends[session.sessionUid] ?? 0
    },
    resolves: async () => (await counters()).resolveCalls[session.sessionUid] ?? 0
  }
}

interface ReferenceFault {
  readonly name: string
  readonly session: SessionInput
  readonly sdkTimeout: Timeout.Timeout
  readonly cliTimeout: number
  readonly budgetMs: number
  readonly tag: string
  readonly sends: number
  readonly resolves: number
  readonly check?: (error: Record<string, unknown> & { readonly message: string }) => void
  readonly cliLine: RegExp
}

const answerWith = (behaviour: Record<string, unknown>): SessionInput => ({
  agent: { behaviour } as SessionInput["agent"]
})

export const referenceFaults: ReadonlyArray<ReferenceFault> = [
  {
    name: "the connection drops without an answer",
    session: answerWith({ _tag: "ConnectionFailure" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "A2ATransportError",
    sends: 1,
    resolves: 1,
    check: (e) => expect(e).toMatchObject({ messageMayHaveBeenSent: true }),
    cliLine: /connection failed/i
  },
  {
    name: "a head that never comes",
    session: answerWith({ _tag: "Stall" }),
    sdkTimeout: [1, 1],
    cliTimeout: 2,
    budgetMs: 2_000,
    tag: "A2ATimeoutError",
    sends: 1,
    resolves: 1,
    check: (e) => expect(e).toMatchObject({ messageMayHaveBeenSent: true }),
    cliLine: /ran out.*not sent again/
  },
  {
    name: "a head, part of the body, then nothing (read limit)",
    session: answerWith({ _tag: "Stall", afterHead: true }),
    sdkTimeout: [1, 1],
    cliTimeout: 2,
    budgetMs: 2_000,
    tag: "A2ATimeoutError",
    sends: 1,
    resolves: 1,
    check: (e) => expect(e).toMatchObject({ messageMayHaveBeenSent: true }),
    cliLine: /ran out.*not sent again/
  },
  {
    name: "a body trickled past the total budget",
    session: answerWith({ _tag: "Answer", trickle: { chunks: 20, gapMs: 500 } }),
    sdkTimeout: [1, 1],
    cliTimeout: 2,
    budgetMs: 2_000,
    tag: "A2ATimeoutError",
    sends: 1,
    resolves: 1,
    check: (e) => expect(e).toMatchObject({ messageMayHaveBeenSent: true, limit: "total" }),
    cliLine: /ran out.*not sent again/
  },
  {
    name: "an HTML body with status 200",
    session: answerWith({ _tag: "NonJson" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "InvalidA2AResponseError",
    sends: 1,
    resolves: 1,
    cliLine: /Invalid A2A answer/
  },
  {
    name: "an empty 200",
    session: answerWith({ _tag: "EmptyOk" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "InvalidA2AResponseError",
    sends: 1,
    resolves: 1,
    cliLine: /Invalid A2A answer/
  },
  {
    name: "a gateway's HTML 502",
    session: answerWith({ _tag: "GatewayError", status: 502 }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "ServerError",
    sends: 1,
    resolves: 1,
    check: (e) => expect(e).toMatchObject({ status: 502 }),
    cliLine: /502/
  },
  {
    name: "a gateway's HTML 504 (not the Message limit)",
    session: answerWith({ _tag: "GatewayError", status: 504 }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "ServerError",
    sends: 1,
    resolves: 1,
    check: (e) => expect(e).toMatchObject({ status: 504 }),
    cliLine: /504/
  },
  {
    name: "a 503 UNAVAILABLE",
    session: answerWith({ _tag: "Unavailable" }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "ServerError",
    sends: 1,
    resolves: 1,
    check: (e) => expect(e).toMatchObject({ status: 503 }),
    cliLine: /503/
  },
  {
    name: "the 504 Message limit (MESSAGE_RESPONSE_LIMIT_EXCEEDED)",
    session: answerWith({
      _tag: "RpcError",
      httpStatus: 504,
      status: "DEADLINE_EXCEEDED",
      message: "The Agent did not answer the Message within 90 seconds. Use Task mode for longer work.",
      reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
      domain: "mainsequence.ai",
      metadata: { limitSeconds: "90" }
    }),
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "A2AMessageLimitExceededError",
    sends: 1,
    resolves: 1,
    check: (e) => {
      expect(e).toMatchObject({ limitSeconds: 90 })
      expect(A2AError.isServerError(e)).toBe(true)
    },
    cliLine: /limit of 90 seconds/
  },
  {
    name: "a backend that never answers",
    session: { backend: { resolveDelay: "forever" } },
    sdkTimeout: 1.5,
    cliTimeout: 1.5,
    budgetMs: 1_500,
    tag: "A2ATimeoutError",
    sends: 0,
    resolves: 1,
    check: (e) => expect(e).toMatchObject({ messageMayHaveBeenSent: false, step: "resolve-runtime-access" }),
    cliLine: /ran out during resolve-runtime-access/
  },
  {
    name: "a backend 503 with Retry-After",
    session: { backend: { resolveFault: { status: 503, detail: "Down for maintenance", retryAfter: "30" } } },
    sdkTimeout: 10,
    cliTimeout: 10,
    budgetMs: 2_000,
    tag: "ServerError",
    sends: 0,
    resolves: 1,
    check: (e) => expect(e).toMatchObject({ status: 503, origin: "backend" }),
    cliLine: /503/
  },
  {
    name: "a runtime that answers 401, then never answers after the one refresh",
    session: { token: { rejectFirstSends: 1 }, agent: { behaviour: { _tag: "Stall" } } as SessionInput["agent"] },
    sdkTimeout: [1, 1],
    cliTimeout: 2,
    budgetMs: 2_000,
    tag: "A2ATimeoutError",
    sends: 2,
    resolves: 2,
    check: (e) => expect(e).toMatchObject({ messageMayHaveBeenSent: true }),
    cliLine: /ran out.*not sent again/
  }
]

const slackMs = 2_000

export const referenceSdkScenarios: ReadonlyArray<Scenario> = referenceFaults.map((f) => ({
  name: `SDK fault (reference platform): ${f.name} → ${f.tag}`,
  timeoutMs: f.budgetMs + 15_000,
  run: async (ctx) => {
    const reference = await serve(ctx, f.session)
    const run = await runSdk(
      ctx.captured,
      `reference ${f.name}`,
      { backendUrl: reference.ref.url },
      (client) =>
        Effect.flip(client.sendA2AMessage(session.sessionUid, { message: `fault: ${f.name}`, timeout: f.sdkTimeout }))
    )
    if (run.exit._tag === "Failure") throw new Error("the call died")
    const error = run.exit.value as unknown as Record<string, unknown> & {
      readonly _tag: string
      readonly message: string
    }
    expect(error._tag, error.message).toBe(f.tag)
    expect(run.ms, "ended within the budget").toBeLessThan(f.budgetMs + slackMs)
    expect(error["messageId"]).toMatch(uuidV4Id)
    f.check?.(error)
    expect(await reference.sends(), "sends counted by the platform").toBe(f.sends)
    expect(await reference.resolves(), "resolves counted by the platform").toBe(f.resolves)
    if (f.sends > 0) {
      const log = await Effect.runPromise(reference.ref.platform.requestLog)
      const sent = log.filter((e) => e.path.endsWith("/message:send"))
      expect(sent.map((e) => e.messageId)).toEqual(sent.map(() => error["messageId"]))
      for (const e of sent) expect(e.bodyText).toBe(sent[0]?.bodyText)
    }
  }
}))

const cliPicks = new Set([
  "a head that never comes",
  "the 504 Message limit (MESSAGE_RESPONSE_LIMIT_EXCEEDED)",
  "a runtime that answers 401, then never answers after the one refresh"
])

export const referenceCliScenarios: ReadonlyArray<Scenario> = referenceFaults.filter((f) => cliPicks.has(f.name)).map((
  f
) => ({
  name: `CLI fault (reference platform): ${f.name} → exit ${exitCodeFor(f.tag)}, one-line cause, message id`,
  timeoutMs: f.budgetMs + 20_000,
  run: async (ctx) => {
    const reference = await serve(ctx, f.session)
    const dir = makeConfigDir()
    ctx.defer(() => Fs.rmSync(dir, { recursive: true, force: true }))
    const result = await runCli([
      "agent",
      "session",
      "a2a",
      "send",
      session.sessionUid,
      "--message",
      `fault: ${f.name}`,
      "--timeout",
      String(f.cliTimeout)
    ], { backendUrl: reference.ref.url, configDir: dir })
    captureCli(ctx.captured, `reference cli ${f.name}`, result)
    expect(result.code, result.stderr).toBe(exitCodeFor(f.tag))
    expectErrorDocument(result, { type: f.tag })
    const lines = result.stderr.trim().split("\n")
    expect(lines.at(-2), result.stderr).toMatch(f.cliLine)
    const log = await Effect.runPromise(reference.ref.platform.requestLog)
    const sent = log.find((e) => e.path.endsWith("/message:send"))
    expect(retryMessageId(result.stderr)).toBe(sent?.messageId)
    expect(await reference.sends()).toBe(f.sends)
    expect(await reference.resolves()).toBe(f.resolves)
  }
}))
