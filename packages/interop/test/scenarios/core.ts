/**
 * Representative core scenarios over real sockets (admission, cache, Task-mode refusal, bad input), for the
 * secrecy suite: each one has tokens flowing through a different part of the SDK and CLI.
 */
import { A2AError } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import { expect } from "vitest"
import { assertMessage } from "../support/a2aSchema.js"
import { type Backend, type BackendReply, ready, startBackend, transient } from "../support/backend.js"
import { captureCli, makeConfigDir, runCli } from "../support/cli.js"
import { type OfficialServer, startOfficialServer } from "../support/officialServer.js"
import type { Scenario, ScenarioContext } from "../support/scenario.js"
import { runSdk, successOf } from "../support/sdk.js"
import { secrets } from "../support/secrets.js"

const sessionUid = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"

const terminal: BackendReply = {
  _tag: "json",
  status: 200,
  body: {
    mode: "unavailable",
    rpc_url: null,
    token: null,
    runtime_interaction: {
      state: "update_required",
      can_submit: false,
      retry_after_ms: null,
      notice: {
        code: "agent_runtime_update_required",
        severity: "warning",
        title: "Agent update required",
        message: "This agent must be redeployed before it can take messages."
      }
    },
    runtime_presence: {
      phase: "not_deployed",
      replicas: { desired: 0, actual: 0 },
      detail: "…",
      observed_at: null,
      wake: null
    },
    detail: "Runtime reconciliation is queued."
  }
}

const coreStage = async (
  ctx: ScenarioContext,
  resolve: (n: number, official: OfficialServer) => BackendReply,
  options: { readonly accessTokens?: ReadonlyArray<string>; readonly profile?: unknown } = {}
): Promise<{ readonly official: OfficialServer; readonly backend: Backend }> => {
  const official = await startOfficialServer({ tokens: [secrets.runtimeOne, secrets.runtimeTwo] })
  ctx.defer(() => official.close())
  ctx.watch(official.requests)
  const backend = await startBackend({
    accessTokens: options.accessTokens ?? [secrets.userAccess],
    refresh: {
      refreshToken: secrets.userRefresh,
      access: secrets.userAccessRefreshed,
      rotatedRefresh: secrets.userRefreshRotated
    }
  })
  ctx.defer(() => backend.close())
  backend.addSession({
    uid: sessionUid,
    agentUid: "agent-core",
    profile: options.profile ?? null,
    resolve: (n) => resolve(n, official)
  })
  return { official, backend }
}

export const coreScenarios: ReadonlyArray<Scenario> = [
  {
    name: "core SDK: a waking runtime is re-resolved at retry_after_ms, then the message is sent",
    run: async (ctx) => {
      const { backend, official } = await coreStage(
        ctx,
        (n, o) => n < 2 ? transient("waking", 150) : ready(o.rpcUrl(), secrets.runtimeTwo)
      )
      const run = await runSdk(
        ctx.captured,
        "core waking",
        { backendUrl: backend.origin },
        (client) => client.sendA2AMessage(sessionUid, { message: "wake up" })
      )
      assertMessage(successOf(run))
      expect(backend.resolves(sessionUid)).toBe(3)
      expect(official.sends()).toHaveLength(1)
    }
  },
  {
    name: "core SDK: still waking when the next retry no longer fits → AgentRuntimeNotReadyError, nothing sent",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, () => transient("starting", 5_000))
      const run = await runSdk(
        ctx.captured,
        "core not-ready",
        { backendUrl: backend.origin },
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
      const { backend, official } = await coreStage(ctx, () => terminal)
      const run = await runSdk(
        ctx.captured,
        "core terminal",
        { backendUrl: backend.origin },
        (client) => Effect.flip(client.sendA2AMessage(sessionUid, { message: "hello" }))
      )
      const error = successOf(run)
      expect(error).toBeInstanceOf(A2AError.AgentRuntimeUnavailableError)
      expect(error.message).toContain("redeployed")
      expect(official.sends()).toHaveLength(0)
      expect(backend.resolves(sessionUid)).toBe(1)
    }
  },
  {
    name: "core SDK: Task mode for an Agent without a profile → TaskModeNotSupportedError, nothing sent",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, (_n, o) => ready(o.rpcUrl(), secrets.runtimeOne))
      const run = await runSdk(
        ctx.captured,
        "core no-task",
        { backendUrl: backend.origin },
        (client) => Effect.flip(client.sendA2AMessage(sessionUid, { message: "long work", responseKind: "task" }))
      )
      expect(successOf(run)).toBeInstanceOf(A2AError.TaskModeNotSupportedError)
      expect(official.sends()).toHaveLength(0)
    }
  },
  {
    name: "core SDK: cached access is reused across calls; a rejected user token without refresh → NotLoggedInError",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, (_n, o) => ready(o.rpcUrl(), secrets.runtimeOne))
      const run = await runSdk(ctx.captured, "core cache", { backendUrl: backend.origin }, (client) =>
        Effect.all([
          client.sendA2AMessage(sessionUid, { message: "one" }),
          client.sendA2AMessage(sessionUid, { message: "two" }),
          client.sendA2AMessage(sessionUid, { message: "three" })
        ], { concurrency: 3 }))
      successOf(run)
      expect(backend.resolves(sessionUid)).toBe(1)
      expect(official.sends()).toHaveLength(3)
      backend.revoke(secrets.userAccess)
      const denied = await runSdk(
        ctx.captured,
        "core not-logged-in",
        { backendUrl: backend.origin },
        (client) => Effect.flip(client.sendA2AMessage(sessionUid, { message: "four" }))
      )
      expect(successOf(denied)).toBeInstanceOf(A2AError.NotLoggedInError)
    }
  },
  {
    name: "core CLI: progress while waking goes to stderr, the answer to stdout; refresh token used once",
    run: async (ctx) => {
      const { backend } = await coreStage(
        ctx,
        (n, o) => n < 2 ? transient("waking", 150) : ready(o.rpcUrl(), secrets.runtimeTwo),
        { accessTokens: [] }
      )
      const dir = makeConfigDir()
      ctx.defer(() => Fs.rmSync(dir, { recursive: true, force: true }))
      const result = await runCli(["agent", "session", "a2a", "send", sessionUid, "--message", "wake up"], {
        backendUrl: backend.origin,
        refreshToken: secrets.userRefresh,
        username: "interop-user",
        configDir: dir
      })
      captureCli(ctx.captured, "core cli waking", result)
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toMatch(/waking/i)
      expect(backend.refreshes()).toBe(1)
    }
  },
  {
    name: "core CLI: bad input and a usage error exit 2 (SPEC §8), nothing sent",
    run: async (ctx) => {
      const { backend, official } = await coreStage(ctx, (_n, o) => ready(o.rpcUrl(), secrets.runtimeOne))
      const blank = await runCli(["agent", "session", "a2a", "send", sessionUid, "--message", "   "], {
        backendUrl: backend.origin
      })
      captureCli(ctx.captured, "core cli blank", blank)
      expect(blank.code).toBe(2)
      const usage = await runCli(["agent", "session", "a2a", "send", sessionUid, "--no-such-flag"], {
        backendUrl: backend.origin
      })
      captureCli(ctx.captured, "core cli usage", usage)
      expect(usage.code).toBe(2)
      expect(official.sends()).toHaveLength(0)
      expect(backend.resolves(sessionUid)).toBe(0)
    }
  }
]
