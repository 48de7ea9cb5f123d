/**
 * Representative core scenarios over real sockets (admission, cache, Task-mode refusal, bad input), for the
 * secrecy suite: each one has tokens flowing through a different part of the SDK and CLI.
 */
import { A2AError } from "@mainsequence/a2a"
import type { SessionScenario } from "@mainsequence/a2a-testing"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import { expect } from "vitest"
import { captureCli, makeConfigDir, runCli } from "../support/cli.js"
import { assertMessage } from "../support/conformance.js"
import { type OfficialServer, startOfficialServer } from "../support/officialServer.js"
import { type ReferenceBackend, referenceBackend, simulatorRuntimeToken } from "../support/referenceBackend.js"
import type { Scenario, ScenarioContext } from "../support/scenario.js"
import { runSdk, successOf } from "../support/sdk.js"
import { secrets } from "../support/secrets.js"

const sessionUid = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"

const agentUid = "c0a8e1f2-3b4d-4e5f-8a6b-7c8d9e0f1a2b"
const serviceUid = "d1b9f2a3-4c5e-4f6a-9b7c-8d9e0f1a2b3c"

type Access = SessionScenario.SessionScenarioInput["access"]

/** Ready: admitted, with a token the reference platform mints. */
const ready: Access = { _tag: "Ready" }

/** Waking for 290 ms with retry_after_ms 150: ready on the third resolve (the wake ends before 2 × 150 ms). */
const waking: Access = { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 150, durationMs: 290 }] }

const terminal: Access = {
  _tag: "Terminal",
  state: "update_required",
  notice: {
    code: "agent_runtime_update_required",
    severity: "warning",
    title: "Agent update required",
    message: "This agent must be redeployed before it can take messages."
  },
  detail: "Runtime reconciliation is queued."
}

/**
 * The official server behind the reference platform's backend; the session's Agent advertises no profile
 * (`a2a_profile: null`: message only).
 */
const coreStage = async (
  ctx: ScenarioContext,
  access: Access,
  options: { readonly userTokensExpired?: boolean } = {}
): Promise<{ readonly official: OfficialServer; readonly backend: ReferenceBackend }> => {
  const official = await startOfficialServer({ tokens: [], authorize: (token) => simulatorRuntimeToken.test(token) })
  ctx.defer(() => official.close())
  ctx.watch(official.requests)
  const backend = await referenceBackend(ctx, [{
    sessionUid,
    agentUid,
    serviceUid,
    rpcUrl: official.rpcUrl(serviceUid),
    access,
    agent: { advertiseProfile: false }
  }], options.userTokensExpired === true ? { userTokensExpired: true } : {})
  return { official, backend }
}

export const coreScenarios: ReadonlyArray<Scenario> = [
  {
    name: "core SDK: a waking runtime is re-resolved at retry_after_ms, then the message is sent",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, waking)
      const run = await runSdk(
        ctx.captured,
        "core waking",
        { backendUrl: backend.url },
        (client) => client.sendA2AMessage(sessionUid, { message: "wake up" })
      )
      assertMessage(successOf(run))
      // re-resolved no sooner than retry_after_ms, until the wake was over (3 resolves; 2 when the machine is so
      // loaded that the second came after the wake), then sent once
      const resolves = (await backend.requestLog()).filter((e) => e.path.endsWith("/resolve-runtime-access/"))
      expect(resolves.length).toBe(await backend.resolves(sessionUid))
      expect(resolves.length).toBeGreaterThanOrEqual(2)
      expect(resolves.length).toBeLessThanOrEqual(3)
      const gaps = resolves.slice(1).map((e, i) => e.atMs - (resolves[i]?.atMs ?? 0))
      for (const gap of gaps) expect(gap, "waited retry_after_ms (150 ms)").toBeGreaterThanOrEqual(145)
      expect(official.sends()).toHaveLength(1)
    }
  },
  {
    name: "core SDK: still waking when the next retry no longer fits → AgentRuntimeNotReadyError, nothing sent",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, {
        _tag: "StuckTransient",
        state: "starting",
        retryAfterMs: 5_000
      })
      const run = await runSdk(
        ctx.captured,
        "core not-ready",
        { backendUrl: backend.url },
        (client) => Effect.flip(client.sendA2AMessage(sessionUid, { message: "too early", timeout: 1 }))
      )
      const error = successOf(run)
      expect(error).toBeInstanceOf(A2AError.AgentRuntimeNotReadyError)
      expect(run.ms).toBeLessThan(1_000)
      expect(official.sends()).toHaveLength(0)
    }
  },
  {
    name: "core SDK: a terminal state → AgentRuntimeUnavailableError with the notice, nothing sent",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, terminal)
      const run = await runSdk(
        ctx.captured,
        "core terminal",
        { backendUrl: backend.url },
        (client) => Effect.flip(client.sendA2AMessage(sessionUid, { message: "hello" }))
      )
      const error = successOf(run)
      expect(error).toBeInstanceOf(A2AError.AgentRuntimeUnavailableError)
      expect(error.message).toContain("redeployed")
      expect(official.sends()).toHaveLength(0)
      expect(await backend.resolves(sessionUid)).toBe(1)
    }
  },
  {
    name: "core SDK: Task mode for an Agent without a profile → TaskModeNotSupportedError, nothing sent",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, ready)
      const run = await runSdk(
        ctx.captured,
        "core no-task",
        { backendUrl: backend.url },
        (client) => Effect.flip(client.sendA2AMessage(sessionUid, { message: "long work", responseKind: "task" }))
      )
      expect(successOf(run)).toBeInstanceOf(A2AError.TaskModeNotSupportedError)
      expect(official.sends()).toHaveLength(0)
    }
  },
  {
    name: "core SDK: cached access is reused across calls; a rejected user token without refresh → NotLoggedInError",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, ready)
      const run = await runSdk(ctx.captured, "core cache", { backendUrl: backend.url }, (client) =>
        Effect.all([
          client.sendA2AMessage(sessionUid, { message: "one" }),
          client.sendA2AMessage(sessionUid, { message: "two" }),
          client.sendA2AMessage(sessionUid, { message: "three" })
        ], { concurrency: 3 }))
      successOf(run)
      expect(await backend.resolves(sessionUid)).toBe(1)
      expect(official.sends()).toHaveLength(3)
      await Effect.runPromise(backend.platform.expireUserTokens)
      const denied = await runSdk(
        ctx.captured,
        "core not-logged-in",
        { backendUrl: backend.url },
        (client) => Effect.flip(client.sendA2AMessage(sessionUid, { message: "four" }))
      )
      expect(successOf(denied)).toBeInstanceOf(A2AError.NotLoggedInError)
    }
  },
  {
    name: "core CLI: progress while waking goes to stderr, the answer to stdout; refresh token used once",
    run: async (ctx) => {
      const { backend } = await coreStage(ctx, waking, { userTokensExpired: true })
      const dir = makeConfigDir()
      ctx.defer(() => Fs.rmSync(dir, { recursive: true, force: true }))
      const result = await runCli(["agent", "session", "a2a", "send", sessionUid, "--message", "wake up"], {
        backendUrl: backend.url,
        refreshToken: secrets.userRefresh,
        username: "interop-user",
        configDir: dir
      })
      captureCli(ctx.captured, "core cli waking", result)
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toMatch(/waking/i)
      expect((await backend.counters()).refreshes).toBe(1)
    }
  },
  {
    name: "core CLI: bad input and a usage error exit 2 (SPEC §8), nothing sent",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, ready)
      const blank = await runCli(["agent", "session", "a2a", "send", sessionUid, "--message", "   "], {
        backendUrl: backend.url
      })
      captureCli(ctx.captured, "core cli blank", blank)
      expect(blank.code).toBe(2)
      const usage = await runCli(["agent", "session", "a2a", "send", sessionUid, "--no-such-flag"], {
        backendUrl: backend.url
      })
      captureCli(ctx.captured, "core cli usage", usage)
      expect(usage.code).toBe(2)
      expect(official.sends()).toHaveLength(0)
      expect(await backend.resolves(sessionUid)).toBe(0)
    }
  }
]
