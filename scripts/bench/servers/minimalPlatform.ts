/**
 * A minimal Main Sequence platform on node:http, for the benchmarks: the backend resolve route (SPEC §3),
 * a runtime `message:send` (SPEC §4) that answers a valid direct Message, and the agent card the official
 * A2A client reads. Deliberately tiny so the server's own cost is the same for every client under test.
 *
 * Session behaviour is set through `POST /__bench/configure` (mode for sessions seen from now on):
 * - `ready`: every resolve answers ready at once.
 * - `slow`: a session's first resolve is held `coldDelayMs` before answering ready (a cold start done
 *   inside the backend call); later resolves answer at once. A single-flight client makes 1 resolve.
 * - `waking`: the runtime becomes ready `coldDelayMs` after the session's first resolve; before that the
 *   backend answers transient `waking` with `retry_after_ms`. With `retryAfterMs >= coldDelayMs` a
 *   single-flight client makes exactly 2 resolves (one transient, one ready) per session.
 * Independently of the mode, `holdSends: true` makes the runtime accept each `message:send` (checked as
 * usual) and hold its answer until `holdSends: false` is configured again, which answers every held send:
 * N calls in flight for as long as a benchmark needs (`held` in the stats counts them).
 * `expiresInMs` sets how far ahead the ready answer's `expires_at` is (default an hour; the SDK keeps an access
 * until `expires_at` − 30 s, so 31 s makes an access valid about a second).
 * `GET /__bench/stats` → `{ resolves, resolvesBySession, sends, rejected, held, clientSockets, peakClientSockets }`;
 * `POST /__bench/reset` clears the counters (and sets the socket peak to the sockets open now). Client sockets
 * are the connections that carried a request other than `/__bench/*` (the admin calls' own are not counted).
 */
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export type SessionMode = "ready" | "slow" | "waking"

export interface Configure {
  readonly mode?: SessionMode
  readonly coldDelayMs?: number
  readonly retryAfterMs?: number
  readonly holdSends?: boolean
  readonly expiresInMs?: number
}

export interface Stats {
  readonly resolves: number
  readonly resolvesBySession: Record<string, number>
  readonly sends: number
  readonly rejected: number
  /** Sends accepted and not answered yet (`holdSends`). */
  readonly held: number
  /** Client connections open now, and the most open at once since the last reset. */
  readonly clientSockets: number
  readonly peakClientSockets: number
}

export const USER_TOKEN = "bench-user-token"
export const RESOLVE_PATH = (uid: string): string => `/api/v1/agent-sessions/${uid}/resolve-runtime-access/`
export const A2A_EXTENSION_RESPONSE_KIND = "https://mainsequence.ai/a2a/extensions/response-kind/v1"

interface SessionState {
  readonly serviceUid: string
  readonly mode?: SessionMode
  readonly coldDelayMs: number
  readonly retryAfterMs: number
  firstResolveAt: number | undefined
}

const readBody = (req: http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export interface MinimalPlatform {
  readonly port: number
  readonly baseUrl: string
  readonly close: () => Promise<void>
}

export const startMinimalPlatform = async (options: { readonly port?: number } = {}): Promise<MinimalPlatform> => {
  let config: Required<Configure> = {
    mode: "ready",
    coldDelayMs: 200,
    retryAfterMs: 250,
    holdSends: false,
    expiresInMs: 3600_000
  }
  let clientSockets = 0
  let peakClientSockets = 0
  const counted = new WeakSet<object>()
  let held: Array<() => void> = []
  const sessions = new Map<string, SessionState>()
  const services = new Map<string, string>() // serviceUid -> session uid
  let resolves = 0
  let resolvesBySession: Record<string, number> = {}
  let sends = 0
  let rejected = 0
  let baseUrl = ""
  let replyCounter = 0

  const json = (res: http.ServerResponse, status: number, body: unknown, contentType = "application/json") => {
    const bytes = Buffer.from(JSON.stringify(body))
    res.writeHead(status, { "content-type": contentType, "content-length": bytes.length })
    res.end(bytes)
  }

  const sessionFor = (uid: string): SessionState => {
    let s = sessions.get(uid)
    if (s === undefined) {
      s = {
        serviceUid: randomUUID(),
        mode: config.mode,
        coldDelayMs: config.coldDelayMs,
        retryAfterMs: config.retryAfterMs,
        firstResolveAt: undefined
      }
      sessions.set(uid, s)
      services.set(s.serviceUid, uid)
    }
    return s
  }

  const readyAnswer = (s: SessionState) => ({
    coding_agent_service_uid: s.serviceUid,
    mode: "token",
    rpc_url: `${baseUrl}/runtimes/${s.serviceUid}/`,
    token: `rt-${s.serviceUid}`,
    expires_at: new Date(Date.now() + config.expiresInMs).toISOString(),
    runtime_paths: { a2a: "/api/a2a/v1" },
    runtime_interaction: { state: "ready", can_submit: true, notice: null, operation: null, retry_after_ms: null },
    runtime_presence: {
      phase: "serving",
      replicas: { desired: 1, actual: 1 },
      detail: "The runtime is serving requests.",
      observed_at: new Date().toISOString(),
      wake: null
    }
  })

  const wakingAnswer = (s: SessionState) => ({
    coding_agent_service_uid: s.serviceUid,
    mode: "unavailable",
    rpc_url: null,
    token: null,
    expires_at: null,
    runtime_interaction: {
      state: "waking",
      can_submit: false,
      notice: null,
      operation: null,
      retry_after_ms: s.retryAfterMs
    },
    runtime_presence: {
      phase: "provisioning",
      replicas: { desired: 1, actual: 0 },
      detail: "Starting the runtime.",
      observed_at: new Date().toISOString(),
      wake: null
    }
  })

  const handleResolve = async (uid: string, req: http.IncomingMessage, res: http.ServerResponse) => {
    await readBody(req)
    if (req.headers.authorization !== `Bearer ${USER_TOKEN}`) {
      rejected++
      return json(res, 401, { detail: "Authentication credentials were not provided." })
    }
    resolves++
    resolvesBySession[uid] = (resolvesBySession[uid] ?? 0) + 1
    const s = sessionFor(uid)
    const now = Date.now()
    const first = s.firstResolveAt === undefined
    if (first) s.firstResolveAt = now
    switch (s.mode) {
      case "ready":
        return json(res, 200, readyAnswer(s))
      case "slow":
        if (first) await sleep(s.coldDelayMs)
        return json(res, 200, readyAnswer(s))
      case "waking":
        return now - (s.firstResolveAt ?? now) >= s.coldDelayMs
          ? json(res, 200, readyAnswer(s))
          : json(res, 200, wakingAnswer(s))
    }
  }

  const handleSend = async (serviceUid: string, req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = await readBody(req)
    const uid = services.get(serviceUid)
    if (uid === undefined) {
      rejected++
      return json(res, 404, { error: { code: 404, status: "NOT_FOUND", message: "no such runtime" } })
    }
    if (req.headers.authorization !== `Bearer rt-${serviceUid}`) {
      rejected++
      return json(res, 401, { error: { code: 401, status: "UNAUTHENTICATED", message: "bad runtime token" } })
    }
    if (req.headers["a2a-version"] !== "1.0") {
      rejected++
      return json(res, 400, { error: { code: 400, status: "INVALID_ARGUMENT", message: "A2A-Version 1.0 required" } })
    }
    let parsed: { message?: { contextId?: unknown } }
    try {
      parsed = JSON.parse(body.toString("utf8")) as { message?: { contextId?: unknown } }
    } catch {
      rejected++
      return json(res, 400, { error: { code: 400, status: "INVALID_ARGUMENT", message: "body is not JSON" } })
    }
    if (parsed.message?.contextId !== uid) {
      rejected++
      return json(res, 400, { error: { code: 400, status: "INVALID_ARGUMENT", message: "contextId mismatch" } })
    }
    sends++
    const answer = () =>
      json(res, 200, {
        message: {
          messageId: `reply-${++replyCounter}`,
          role: "ROLE_AGENT",
          contextId: uid,
          parts: [{ text: "I can answer questions about your project." }]
        }
      }, "application/a2a+json")
    if (config.holdSends) held.push(answer)
    else answer()
  }

  const agentCard = (serviceUid: string) => ({
    name: "Bench Agent",
    description: "Minimal agent for benchmarks",
    version: "1.0.0",
    supportedInterfaces: [
      { url: `${baseUrl}/runtimes/${serviceUid}/api/a2a/v1`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }
    ],
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: []
  })

  const server = http.createServer((req, res) => {
    const url = req.url ?? "/"
    const socket = req.socket
    if (!url.startsWith("/__bench/") && !counted.has(socket)) {
      counted.add(socket)
      clientSockets++
      if (clientSockets > peakClientSockets) peakClientSockets = clientSockets
      socket.once("close", () => clientSockets--)
    }
    const handle = async () => {
      if (
        req.method === "POST" && url.startsWith("/api/v1/agent-sessions/") && url.endsWith("/resolve-runtime-access/")
      ) {
        return handleResolve(url.slice("/api/v1/agent-sessions/".length, -"/resolve-runtime-access/".length), req, res)
      }
      if (url.startsWith("/runtimes/")) {
        const rest = url.slice("/runtimes/".length)
        const slash = rest.indexOf("/")
        const serviceUid = rest.slice(0, slash)
        const path = rest.slice(slash)
        if (req.method === "POST" && path === "/api/a2a/v1/message:send") return handleSend(serviceUid, req, res)
        if (req.method === "GET" && path === "/.well-known/agent-card.json") {
          await readBody(req)
          return json(res, 200, agentCard(serviceUid))
        }
      }
      if (url === "/__bench/stats") {
        await readBody(req)
        const stats: Stats = {
          resolves,
          resolvesBySession,
          sends,
          rejected,
          held: held.length,
          clientSockets,
          peakClientSockets
        }
        return json(res, 200, stats)
      }
      if (url === "/__bench/reset" && req.method === "POST") {
        await readBody(req)
        resolves = 0
        resolvesBySession = {}
        sends = 0
        rejected = 0
        peakClientSockets = clientSockets
        return json(res, 200, {})
      }
      if (url === "/__bench/configure" && req.method === "POST") {
        const c = JSON.parse((await readBody(req)).toString("utf8")) as Configure
        config = { ...config, ...c }
        if (!config.holdSends) {
          const release = held
          held = []
          for (const answer of release) answer()
        }
        return json(res, 200, config)
      }
      if (url.startsWith("/__bench/runtime/") && req.method === "GET") {
        // The admitted access of a session as the backend would give it (for the floor and official sides,
        // which play "a warm access cache"). Does not count as a resolve.
        await readBody(req)
        const s = sessionFor(url.slice("/__bench/runtime/".length))
        return json(res, 200, { rpcUrl: `${baseUrl}/runtimes/${s.serviceUid}/`, token: `rt-${s.serviceUid}` })
      }
      await readBody(req)
      return json(res, 404, { detail: "Not found." })
    }
    handle().catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, { detail: String(e) })
      else res.destroy()
    })
  })
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  server.maxRequestsPerSocket = 0
  await new Promise<void>((resolve) =>
    server.listen({ port: options.port ?? 0, host: "127.0.0.1", backlog: 4096 }, resolve)
  )
  const port = (server.address() as AddressInfo).port
  baseUrl = `http://127.0.0.1:${port}`
  return {
    port,
    baseUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** Admin calls against a running minimal platform (plain fetch: not part of any measurement). */
export const admin = {
  configure: async (baseUrl: string, c: Configure): Promise<void> => {
    await (await fetch(`${baseUrl}/__bench/configure`, { method: "POST", body: JSON.stringify(c) })).text()
  },
  reset: async (baseUrl: string): Promise<void> => {
    await (await fetch(`${baseUrl}/__bench/reset`, { method: "POST" })).text()
  },
  stats: async (baseUrl: string): Promise<Stats> => (await (await fetch(`${baseUrl}/__bench/stats`)).json()) as Stats,
  runtime: async (baseUrl: string, uid: string): Promise<{ rpcUrl: string; token: string }> =>
    (await (await fetch(`${baseUrl}/__bench/runtime/${uid}`)).json()) as { rpcUrl: string; token: string }
}
