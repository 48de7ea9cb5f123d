/**
 * The networks users are on, over real sockets on 127.0.0.1: a real forward proxy (the npm package `proxy`)
 * between the client and the platform, and real TLS with a certificate authority made for the test.
 *
 * - Proxies: http targets as absolute-form requests to `HTTP_PROXY`, https targets through a CONNECT tunnel
 *   to `HTTPS_PROXY` (lowercase first), `NO_PROXY` exemptions, credentials as `Proxy-Authorization`, and each
 *   refusal (407, 403, 502 to CONNECT; 407 to a forwarded request) as an `A2ATransportError` naming the
 *   proxy (never its credentials) with `messageMayHaveBeenSent: false`; the CLI exits 6 with the retry line.
 *   The SDK is driven in this process with the Node layer's `proxy` option, and in a child process (the
 *   Promise entry) from the environment; the CLI always from the environment.
 * - TLS: trusted through `NODE_EXTRA_CA_CERTS` (read at process start, hence child processes); untrusted,
 *   for another host name and expired, each with its own one-line message, the OpenSSL code in the error's
 *   `code`, nothing sent.
 *
 * Proxy credentials are distinctive secrets (`support/secrets.ts`): the secrecy suite scans every channel of
 * these scenarios for them as for tokens.
 */
import { type A2AClient, A2AError } from "@mainsequence/a2a"
import * as A2ANode from "@mainsequence/a2a/node"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import * as Url from "node:url"
import { expect } from "vitest"
import {
  captureCli,
  type CliResult,
  expectErrorDocument,
  makeConfigDir,
  retryMessageId,
  runCli
} from "../support/cli.js"
import { type FaultRuntime, startFaultRuntime } from "../support/faultRuntime.js"
import {
  type Pki,
  proxyPassword,
  proxyUser,
  type RunningProxy,
  startProxy,
  startTlsFront,
  testPki
} from "../support/network.js"
import { type ReferenceBackend, referenceBackend } from "../support/referenceBackend.js"
import type { Scenario, ScenarioContext } from "../support/scenario.js"
import { captureFailure, failureOf, runSdk, successOf } from "../support/sdk.js"
import { secrets } from "../support/secrets.js"
import { closedPort, listen, must } from "../support/wire.js"

const sessionUid = "7b2e4c6d-8f0a-4b1c-9d2e-3f4a5b6c7d8e"
const agentUid = "8c3f5d7e-9a1b-4c2d-8e3f-4a5b6c7d8e9f"
const serviceUid = "9d4a6e8f-0b2c-4d3e-9f4a-5b6c7d8e9f0a"

const credentials = { user: proxyUser, password: proxyPassword }
const wrongPassword = "not-the-password"

interface Stage {
  readonly backend: ReferenceBackend
  readonly runtime: FaultRuntime
  /** The runtime's rpc_url as the backend hands it out (http, or https through a TLS front). */
  readonly rpcUrl: string
  /** TLS handshakes the runtime's front completed (https runtimes only). */
  readonly handshakes: () => number
}

/** An http reference backend and a fault runtime that answers, over http or behind a TLS front. */
const stage = async (
  ctx: ScenarioContext,
  runtimeOver: "http" | { readonly key: string; readonly cert: string }
): Promise<Stage> => {
  const runtime = await startFaultRuntime(() => "ok", { contextId: sessionUid })
  ctx.defer(() => runtime.close())
  ctx.watch(runtime.requests)
  let rpcUrl = runtime.rpcUrl
  let handshakes = () => 0
  if (runtimeOver !== "http") {
    const front = await startTlsFront(ctx, runtime.origin, runtimeOver)
    rpcUrl = `${front.origin}/runtimes/fault/`
    handshakes = front.handshakes
  }
  const backend = await referenceBackend(ctx, [{ sessionUid, agentUid, serviceUid, rpcUrl }])
  return { backend, runtime, rpcUrl, handshakes }
}

const hostPort = (origin: string): string => new URL(origin).host

const send = (timeout = 10) => (client: A2AClient.Service) =>
  client.sendA2AMessage(sessionUid, { message: "through the network", timeout })

const cliSend = async (
  ctx: ScenarioContext,
  label: string,
  s: Stage,
  env: Readonly<Record<string, string>>
): Promise<CliResult> => {
  const configDir = makeConfigDir()
  ctx.defer(() => Fs.rmSync(configDir, { recursive: true, force: true }))
  const result = await runCli(
    ["agent", "session", "a2a", "send", sessionUid, "--message", "hello", "--timeout", "10"],
    {
      backendUrl: s.backend.url,
      configDir,
      env
    }
  )
  captureCli(ctx.captured, label, result)
  return result
}

/** The proxy's name in messages and fields: its origin, never its credentials. */
const expectProxyRefusal = (error: unknown, proxy: RunningProxy, status: number, step = "send-message") => {
  expect(error).toBeInstanceOf(A2AError.A2ATransportError)
  const transport = error as A2AError.A2ATransportError
  expect(transport).toMatchObject({ step, proxy: proxy.origin, proxyStatus: status, messageMayHaveBeenSent: false })
  expect(A2AError.isRetrySafe(transport)).toBe(true)
  expect(transport.message).toContain(`The proxy ${proxy.origin} refused`)
  expect(transport.message).toContain(String(status))
  expect(transport.message).toContain("nothing was sent")
}

const expectCliProxyRefusal = (result: CliResult, proxy: RunningProxy, status: number) => {
  expect(result.code, result.stderr).toBe(6)
  expectErrorDocument(result, { type: "A2ATransportError", retrySafe: true })
  const lines = result.stderr.trim().split("\n").filter((l) => !l.startsWith("\r"))
  expect(lines.at(-2) ?? "").toContain(`The proxy ${proxy.origin} refused`)
  expect(lines.at(-2) ?? "").toContain(String(status))
  expect(retryMessageId(result.stderr)).toMatch(/^msg-/)
}

// --- the SDK in this process, with the Node layer's `proxy` option -------------------------------------

const sdkProxyScenarios: ReadonlyArray<Scenario> = [
  {
    name: "SDK proxy: http backend and runtime through the proxy as absolute-form requests, with credentials",
    run: async (ctx) => {
      const s = await stage(ctx, "http")
      const proxy = await startProxy(ctx, { credentials })
      const run = await runSdk(ctx.captured, "sdk proxy http", {
        backendUrl: s.backend.url,
        proxy: Redacted.make(proxy.url)
      }, send())
      successOf(run)
      const expected = `Basic ${Buffer.from(`${proxyUser}:${proxyPassword}`).toString("base64")}`
      const forwarded = proxy.requests.filter((r) => r.proxyAuthorization === expected)
      expect(proxy.requests.every((r) => r.method !== "CONNECT")).toBe(true)
      expect(forwarded.map((r) => `${r.method} ${r.url}`)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`^POST ${s.backend.url}/api/v1/.*resolve-runtime-access/$`)),
          `POST ${s.runtime.rpcUrl}api/a2a/v1/message:send`
        ])
      )
      expect(s.runtime.sends()).toBe(1)
    }
  },
  {
    name: "SDK proxy: an https runtime through a CONNECT tunnel; an untrusted certificate in the tunnel is named",
    run: async (ctx) => {
      const s = await stage(ctx, testPki().trusted)
      const proxy = await startProxy(ctx, { credentials })
      const run = await runSdk(ctx.captured, "sdk proxy connect", {
        backendUrl: s.backend.url,
        proxy: proxy.url,
        noProxy: hostPort(s.backend.url)
      }, send())
      // this process does not trust the test's CA (NODE_EXTRA_CA_CERTS is read at start-up): the tunnel is up,
      // the handshake through it refuses the certificate
      const error = failureOf(run)
      expect(error).toMatchObject({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE", messageMayHaveBeenSent: false })
      expect(proxy.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`CONNECT ${hostPort(s.rpcUrl)}`])
      expect(s.handshakes()).toBe(0)
      expect(s.runtime.sends()).toBe(0)
    }
  },
  {
    name: "SDK proxy: noProxy exempts by host:port, IP address, name and *; another port still goes through the proxy",
    run: async (ctx) => {
      const s = await stage(ctx, "http")
      const proxy = await startProxy(ctx)
      const backendPort = new URL(s.backend.url).port
      const runtimePort = new URL(s.runtime.rpcUrl).port
      const viaProxy = async (noProxy: string, label: string) => {
        const before = proxy.requests.length
        successOf(await runSdk(ctx.captured, label, { backendUrl: s.backend.url, proxy: proxy.url, noProxy }, send()))
        return proxy.requests.slice(before).map((r) => new URL(r.url).port)
      }
      expect(await viaProxy(`127.0.0.1:${backendPort}`, "sdk noProxy host:port")).toEqual([runtimePort])
      expect(await viaProxy(`127.0.0.1:1`, "sdk noProxy other port")).toEqual([backendPort, runtimePort])
      expect(await viaProxy("example.test, 127.0.0.1", "sdk noProxy ip")).toEqual([])
      expect(await viaProxy("*", "sdk noProxy *")).toEqual([])
      const local = s.backend.url.replace("127.0.0.1", "localhost")
      const before = proxy.requests.length
      successOf(
        await runSdk(
          ctx.captured,
          "sdk noProxy name",
          { backendUrl: local, proxy: proxy.url, noProxy: ".localhost" },
          send()
        )
      )
      expect(proxy.requests.slice(before).map((r) => new URL(r.url).port)).toEqual([runtimePort])
    }
  },
  {
    name: "SDK proxy: proxy \"none\" goes direct",
    run: async (ctx) => {
      const s = await stage(ctx, "http")
      successOf(await runSdk(ctx.captured, "sdk proxy none", { backendUrl: s.backend.url, proxy: "none" }, send()))
      expect(s.runtime.sends()).toBe(1)
    }
  },
  ...([
    ["407 to CONNECT (wrong credentials)", 407],
    ["403 to CONNECT (a destination the proxy does not allow)", 403],
    ["502 to CONNECT (a gateway that cannot reach the server)", 502]
  ] as const).map(([what, status]): Scenario => ({
    name: `SDK proxy: ${what} is a typed refusal naming the proxy; nothing sent`,
    run: async (ctx) => {
      const s = await stage(ctx, testPki().trusted)
      const proxy = await startProxy(ctx, status === 407 ? { credentials } : { refuse: () => status })
      const password = status === 407 ? wrongPassword : proxyPassword
      const run = await runSdk(ctx.captured, `sdk proxy ${status}`, {
        backendUrl: s.backend.url,
        proxy: Redacted.make(`http://${proxyUser}:${password}@${hostPort(proxy.origin)}`),
        noProxy: hostPort(s.backend.url)
      }, send())
      expectProxyRefusal(failureOf(run), proxy, status)
      expect(proxy.requests.map((r) => r.method)).toEqual(["CONNECT"])
      expect(s.handshakes()).toBe(0)
      expect(s.runtime.sends()).toBe(0)
    }
  })),
  {
    name: "SDK proxy: 407 to a forwarded http request is a typed refusal; the backend's 407 stops before any send",
    run: async (ctx) => {
      const s = await stage(ctx, "http")
      const proxy = await startProxy(ctx, { credentials })
      const run = await runSdk(ctx.captured, "sdk proxy 407 forwarded", {
        backendUrl: s.backend.url,
        proxy: `http://${hostPort(proxy.origin)}`
      }, send())
      expectProxyRefusal(failureOf(run), proxy, 407, "resolve-runtime-access")
      expect(await s.backend.resolves(sessionUid)).toBe(0)
      expect(s.runtime.sends()).toBe(0)
      // the runtime's own request refused: the backend exempt, the runtime behind the proxy
      const runtimeRun = await runSdk(ctx.captured, "sdk proxy 407 forwarded runtime", {
        backendUrl: s.backend.url,
        proxy: `http://${hostPort(proxy.origin)}`,
        noProxy: hostPort(s.backend.url)
      }, send())
      expectProxyRefusal(failureOf(runtimeRun), proxy, 407)
      expect(s.runtime.sends()).toBe(0)
    }
  },
  {
    name: "SDK proxy: a CONNECT the proxy never answers is bounded by the connect limit",
    run: async (ctx) => {
      const s = await stage(ctx, testPki().trusted)
      // accepts the connection, reads the CONNECT, never answers
      const silent = Net.createServer((socket) => socket.on("data", () => undefined))
      const listening = await listen(silent)
      ctx.defer(() => listening.close())
      const started = performance.now()
      const run = await runSdk(ctx.captured, "sdk proxy silent", {
        backendUrl: s.backend.url,
        proxy: listening.origin,
        noProxy: hostPort(s.backend.url)
      }, (client) => client.sendA2AMessage(sessionUid, { message: "hello", timeout: [1, 30] }))
      const elapsed = performance.now() - started
      expect(failureOf(run)).toMatchObject({ _tag: "A2ATimeoutError", limit: "connect", messageMayHaveBeenSent: false })
      expect(elapsed).toBeLessThan(1_000 + 2_000)
      expect(s.runtime.sends()).toBe(0)
    }
  },
  {
    name: "SDK proxy: an invalid proxy URL fails the layer with a ConfigError that does not repeat it",
    run: async (ctx) => {
      const exit = await Effect.runPromiseExit(
        Effect.provide(
          Effect.void,
          A2ANode.layer({
            backendUrl: "http://127.0.0.1:1",
            accessToken: secrets.userAccess,
            proxy: `socks5://${proxyUser}:${proxyPassword}@127.0.0.1:1080`
          })
        )
      )
      expect(exit._tag).toBe("Failure")
      if (exit._tag === "Failure") {
        captureFailure(ctx.captured, "sdk proxy invalid", exit.cause)
        expect(String(exit.cause)).toContain("http:// or https://")
      }
    }
  }
]

// --- the SDK from the environment, in a child process (the Promise entry) --------------------------------

const interopDir = ((): string => {
  const here = Path.dirname(Url.fileURLToPath(import.meta.url))
  return here.includes(`${Path.sep}.tsbuild${Path.sep}`) ? Path.resolve(here, "../../..") : Path.resolve(here, "../..")
})()

interface ChildOutcome {
  readonly ok: boolean
  readonly error?: Record<string, unknown> & { readonly message: string }
  readonly stdout: string
  readonly stderr: string
}

const childProgram = `
import { makeA2AClient } from "@mainsequence/a2a/promise"
const client = makeA2AClient({ backendUrl: process.env.MAINSEQUENCE_ENDPOINT, accessToken: process.env.MAINSEQUENCE_ACCESS_TOKEN })
try {
  await client.sendA2AMessage(process.env.SESSION_UID, { message: "from a child", timeout: 10 })
  console.log(JSON.stringify({ ok: true }))
} catch (error) {
  const { _tag, code, step, proxy, proxyStatus, messageMayHaveBeenSent, messageId } = error
  console.log(JSON.stringify({ ok: false, error: { _tag, code, step, proxy, proxyStatus, messageMayHaveBeenSent, messageId, message: error.message } }))
} finally {
  await client.dispose()
}
`

/** The Promise entry of the SDK in a child process with `env` (a new process reads NODE_EXTRA_CA_CERTS). */
const sdkChild = (ctx: ScenarioContext, label: string, backendUrl: string, env: Readonly<Record<string, string>>) =>
  new Promise<ChildOutcome>((resolve, reject) => {
    const child = ChildProcess.spawn(process.execPath, ["--input-type=module", "-e", childProgram], {
      cwd: interopDir,
      env: {
        PATH: process.env["PATH"] ?? "",
        MAINSEQUENCE_ENDPOINT: backendUrl,
        MAINSEQUENCE_ACCESS_TOKEN: secrets.userAccess,
        SESSION_UID: sessionUid,
        ...env
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s))
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s))
    const killer = setTimeout(() => child.kill("SIGKILL"), 20_000)
    child.on("error", reject)
    child.on("close", () => {
      clearTimeout(killer)
      ctx.captured.add(`stdout ${label}`, stdout)
      ctx.captured.add(`stderr ${label}`, stderr)
      try {
        const outcome = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Omit<ChildOutcome, "stdout" | "stderr">
        resolve({ ...outcome, stdout, stderr })
      } catch {
        reject(new Error(`the SDK child printed no outcome:\n${stdout}\n${stderr}`))
      }
    })
  })

const sdkChildScenarios: ReadonlyArray<Scenario> = [
  {
    name:
      "SDK (environment): https_proxy before HTTPS_PROXY, a CONNECT tunnel with credentials, the CA of NODE_EXTRA_CA_CERTS trusted",
    timeoutMs: 25_000,
    run: async (ctx) => {
      const pki = testPki()
      const s = await stage(ctx, pki.trusted)
      const proxy = await startProxy(ctx, { credentials })
      const outcome = await sdkChild(ctx, "sdk child connect", s.backend.url, {
        https_proxy: proxy.url,
        HTTPS_PROXY: `http://127.0.0.1:${await closedPort()}`,
        NODE_EXTRA_CA_CERTS: pki.caFile
      })
      expect(outcome.ok, outcome.stdout + outcome.stderr).toBe(true)
      // the http backend goes direct: no http proxy is set
      expect(proxy.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`CONNECT ${hostPort(s.rpcUrl)}`])
      expect(proxy.requests[0]?.proxyAuthorization).toMatch(/^Basic /)
      expect(s.runtime.sends()).toBe(1)
    }
  },
  {
    name: "SDK (environment): HTTP_PROXY for http targets, NO_PROXY exempting the backend by host:port",
    timeoutMs: 25_000,
    run: async (ctx) => {
      const s = await stage(ctx, "http")
      const proxy = await startProxy(ctx)
      const outcome = await sdkChild(ctx, "sdk child http", s.backend.url, {
        HTTP_PROXY: proxy.url,
        NO_PROXY: `localhost,${hostPort(s.backend.url)}`
      })
      expect(outcome.ok, outcome.stdout + outcome.stderr).toBe(true)
      expect(proxy.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
        `POST ${s.runtime.rpcUrl}api/a2a/v1/message:send`
      ])
    }
  },
  ...(["otherHost", "expired"] as const).map((which): Scenario => ({
    name: `SDK TLS: a certificate ${
      which === "expired" ? "that has expired" : "for another host name"
    } (its CA trusted) is named; nothing sent`,
    timeoutMs: 25_000,
    run: async (ctx) => {
      const pki = testPki()
      const s = await stage(ctx, pki[which])
      const outcome = await sdkChild(ctx, `sdk child tls ${which}`, s.backend.url, { NODE_EXTRA_CA_CERTS: pki.caFile })
      const error = must(outcome.error, outcome.stdout + outcome.stderr)
      expect(error).toMatchObject({
        _tag: "A2ATransportError",
        step: "send-message",
        messageMayHaveBeenSent: false,
        code: which === "expired" ? "CERT_HAS_EXPIRED" : "ERR_TLS_CERT_ALTNAME_INVALID"
      })
      expect(error.message).toMatch(tlsMessage[which])
      expect(s.runtime.sends()).toBe(0)
    }
  }))
]

const tlsMessage: Readonly<Record<keyof Omit<Pki, "dir" | "caFile" | "ca">, RegExp>> = {
  trusted: /^$/,
  otherHost:
    /the server's certificate is not valid for 127\.0\.0\.1 \(ERR_TLS_CERT_ALTNAME_INVALID\): check the host name/,
  expired: /the server's certificate has expired \(CERT_HAS_EXPIRED\): the server must renew it/
}

const untrustedMessage =
  /the server's certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): .*NODE_EXTRA_CA_CERTS=/

const sdkTlsScenarios: ReadonlyArray<Scenario> = [
  {
    name:
      "SDK TLS: a certificate from an unknown CA is named, with NODE_EXTRA_CA_CERTS as the way to trust it; nothing sent",
    run: async (ctx) => {
      const s = await stage(ctx, testPki().trusted)
      const run = await runSdk(ctx.captured, "sdk tls untrusted", { backendUrl: s.backend.url, proxy: "none" }, send())
      const error = failureOf(run)
      expect(error).toMatchObject({
        _tag: "A2ATransportError",
        code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
        step: "send-message",
        messageMayHaveBeenSent: false
      })
      expect(error.message).toMatch(untrustedMessage)
      expect(error.message).not.toMatch(/may already have reached/)
      expect(A2AError.isRetrySafe(error)).toBe(true)
      expect(s.runtime.sends()).toBe(0)
    }
  }
]

// --- the CLI, from the environment -------------------------------------------------------------------------

const cliScenarios: ReadonlyArray<Scenario> = [
  {
    name: "CLI proxy: HTTP_PROXY with credentials carries the backend and runtime requests (absolute-form)",
    timeoutMs: 25_000,
    run: async (ctx) => {
      const s = await stage(ctx, "http")
      const proxy = await startProxy(ctx, { credentials })
      const result = await cliSend(ctx, "cli proxy http", s, { HTTP_PROXY: proxy.url })
      expect(result.code, result.stderr).toBe(0)
      expect(proxy.requests.every((r) => r.method !== "CONNECT" && r.proxyAuthorization !== undefined)).toBe(true)
      expect(proxy.requests.map((r) => r.url)).toContain(`${s.runtime.rpcUrl}api/a2a/v1/message:send`)
      expect(s.runtime.sends()).toBe(1)
    }
  },
  {
    name: "CLI proxy: https_proxy (lowercase first) tunnels to an https runtime whose CA is in NODE_EXTRA_CA_CERTS",
    timeoutMs: 25_000,
    run: async (ctx) => {
      const pki = testPki()
      const s = await stage(ctx, pki.trusted)
      const proxy = await startProxy(ctx, { credentials })
      const result = await cliSend(ctx, "cli proxy connect", s, {
        https_proxy: proxy.url,
        HTTPS_PROXY: `http://127.0.0.1:${await closedPort()}`,
        http_proxy: `http://127.0.0.1:${await closedPort()}`,
        no_proxy: hostPort(s.backend.url),
        NODE_EXTRA_CA_CERTS: pki.caFile
      })
      expect(result.code, result.stderr).toBe(0)
      expect(proxy.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`CONNECT ${hostPort(s.rpcUrl)}`])
      expect(s.runtime.sends()).toBe(1)
    }
  },
  {
    name: "CLI proxy: NO_PROXY=* goes direct whatever HTTP_PROXY says",
    timeoutMs: 25_000,
    run: async (ctx) => {
      const s = await stage(ctx, "http")
      const proxy = await startProxy(ctx)
      const result = await cliSend(ctx, "cli proxy no_proxy *", s, { HTTP_PROXY: proxy.url, NO_PROXY: "*" })
      expect(result.code, result.stderr).toBe(0)
      expect(proxy.requests).toEqual([])
    }
  },
  ...([
    ["407 to CONNECT", 407],
    ["403 to CONNECT", 403],
    ["502 to CONNECT", 502]
  ] as const).map(([what, status]): Scenario => ({
    name: `CLI proxy: ${what} exits 6 naming the proxy, with the retry line; nothing sent`,
    timeoutMs: 25_000,
    run: async (ctx) => {
      const s = await stage(ctx, testPki().trusted)
      const proxy = await startProxy(ctx, status === 407 ? { credentials } : { refuse: () => status })
      const withCredentials = `http://${proxyUser}:${status === 407 ? wrongPassword : proxyPassword}@${
        hostPort(proxy.origin)
      }`
      const result = await cliSend(ctx, `cli proxy ${status}`, s, {
        HTTPS_PROXY: withCredentials,
        NO_PROXY: hostPort(s.backend.url)
      })
      expectCliProxyRefusal(result, proxy, status)
      expect(s.runtime.sends()).toBe(0)
    }
  })),
  {
    name: "CLI proxy: an invalid HTTPS_PROXY exits 2 naming the variable, not its value",
    timeoutMs: 25_000,
    run: async (ctx) => {
      const s = await stage(ctx, "http")
      const result = await cliSend(ctx, "cli proxy invalid", s, {
        HTTPS_PROXY: `ftp://${proxyUser}:${proxyPassword}@127.0.0.1:21`
      })
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toMatch(/Invalid configuration: HTTPS_PROXY must be an http:\/\/ or https:\/\/ proxy URL/)
      expect(s.runtime.sends()).toBe(0)
    }
  },
  {
    name: "CLI TLS: the test CA in NODE_EXTRA_CA_CERTS is trusted; the send goes through",
    timeoutMs: 25_000,
    run: async (ctx) => {
      const pki = testPki()
      const s = await stage(ctx, pki.trusted)
      const result = await cliSend(ctx, "cli tls trusted", s, { NODE_EXTRA_CA_CERTS: pki.caFile })
      expect(result.code, result.stderr).toBe(0)
      expect(s.runtime.sends()).toBe(1)
    }
  },
  ...([
    ["from an unknown CA", "trusted", false, untrustedMessage],
    ["for another host name", "otherHost", true, tlsMessage.otherHost],
    ["that has expired", "expired", true, tlsMessage.expired]
  ] as const).map(([what, which, trustCa, message]): Scenario => ({
    name: `CLI TLS: a certificate ${what} exits 6 with its message and the retry line; nothing sent`,
    timeoutMs: 25_000,
    run: async (ctx) => {
      const pki = testPki()
      const s = await stage(ctx, pki[which])
      const result = await cliSend(ctx, `cli tls ${which}`, s, trustCa ? { NODE_EXTRA_CA_CERTS: pki.caFile } : {})
      expect(result.code, result.stderr).toBe(6)
      expectErrorDocument(result, { type: "A2ATransportError" })
      expect(result.stderr).toMatch(message)
      expect(result.stderr).not.toMatch(/may already have reached/)
      expect(retryMessageId(result.stderr)).toMatch(/^msg-/)
      expect(s.runtime.sends()).toBe(0)
    }
  }))
]

export const networkScenarios: ReadonlyArray<Scenario> = [
  ...sdkProxyScenarios,
  ...sdkChildScenarios,
  ...sdkTlsScenarios,
  ...cliScenarios
]
