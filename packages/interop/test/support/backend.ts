/**
 * A minimal Main Sequence backend on `node:http` (127.0.0.1:0): SPEC §3 `resolve-runtime-access`, the
 * §7 discovery routes and the §8 user-token refresh. Each session scripts its resolve answers by attempt
 * number, so a test can hand out any `rpc_url` (the official A2A server, a fault server, a closed port).
 *
 * Used because the simulated platform (`@mainsequence/a2a-testing`) cannot yet hand out an external
 * `rpc_url` (see the interop report).
 */
import * as Http from "node:http"
import { flattenHeaders, json, listen, readBody, type RecordedRequest } from "./wire.js"

export type BackendReply =
  | {
    readonly _tag: "json"
    readonly status: number
    readonly body: unknown
    readonly headers?: Record<string, string>
  }
  | {
    readonly _tag: "raw"
    readonly status: number
    readonly contentType: string
    readonly body: string
    readonly headers?: Record<string, string>
  }
  | { readonly _tag: "hang" }

export interface BackendSession {
  readonly uid: string
  readonly agentUid?: string
  /** `a2a_profile` of the session's Agent; `null`/absent = message-only. */
  readonly profile?: unknown
  /** The answer to this session's n-th resolve (n from 0). */
  readonly resolve: (n: number) => BackendReply
}

export const serviceUidDefault = "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"

/** An admitted answer (SPEC §3 "Ready"). */
export const ready = (
  rpcUrl: string,
  token: string,
  extra: { readonly expiresAt?: string | null; readonly state?: string } = {}
): BackendReply => ({
  _tag: "json",
  status: 200,
  body: {
    coding_agent_service_uid: serviceUidDefault,
    mode: "token",
    rpc_url: rpcUrl,
    token,
    expires_at: extra.expiresAt === undefined ? new Date(Date.now() + 3_600_000).toISOString() : extra.expiresAt,
    runtime_paths: { a2a: "/api/a2a/v1" },
    runtime_interaction: {
      state: extra.state ?? "ready",
      can_submit: true,
      notice: null,
      operation: null,
      retry_after_ms: null
    },
    runtime_presence: {
      phase: "serving",
      replicas: { desired: 1, actual: 1 },
      detail: "The runtime is serving requests.",
      observed_at: new Date().toISOString(),
      wake: null
    },
    an_unknown_backend_key: { kept: true }
  }
})

/** A transient answer (SPEC §3 "Transient"). */
export const transient = (state: string, retryAfterMs: number): BackendReply => ({
  _tag: "json",
  status: 200,
  body: {
    coding_agent_service_uid: serviceUidDefault,
    mode: "unavailable",
    rpc_url: null,
    token: null,
    expires_at: null,
    runtime_interaction: { state, can_submit: false, notice: null, operation: null, retry_after_ms: retryAfterMs },
    runtime_presence: {
      phase: "provisioning",
      replicas: { desired: 1, actual: 0 },
      detail: "Starting the runtime.",
      observed_at: new Date().toISOString(),
      wake: null
    }
  }
})

/** A discovery profile that advertises Task mode. */
export const taskProfile = {
  response_kind_extension_uri: "https://mainsequence.ai/a2a/extensions/response-kind/v1",
  supported_response_kinds: ["message", "task"],
  default_response_kind: "message"
}

export interface BackendOptions {
  /** User access tokens the backend accepts. */
  readonly accessTokens: ReadonlyArray<string>
  /** The refresh token it honours, and what it answers. */
  readonly refresh?: { readonly refreshToken: string; readonly access: string; readonly rotatedRefresh?: string }
}

export interface Backend {
  readonly origin: string
  readonly requests: Array<RecordedRequest>
  readonly addSession: (session: BackendSession) => void
  /** Number of resolve-runtime-access requests for a session. */
  readonly resolves: (uid: string) => number
  readonly refreshes: () => number
  /** Revokes a user access token (e.g. to make the next resolve answer 401). */
  readonly revoke: (token: string) => void
  readonly close: () => Promise<void>
}

export const startBackend = async (options: BackendOptions): Promise<Backend> => {
  const requests: Array<RecordedRequest> = []
  const sessions = new Map<string, BackendSession>()
  const counts = new Map<string, number>()
  const valid = new Set(options.accessTokens)
  let refreshes = 0

  const reply = (res: Http.ServerResponse, answer: BackendReply): void => {
    switch (answer._tag) {
      case "hang":
        return
      case "json":
        return json(res, answer.status, answer.body, answer.headers)
      case "raw": {
        const bytes = Buffer.from(answer.body)
        res.writeHead(answer.status, {
          "content-type": answer.contentType,
          "content-length": String(bytes.length),
          ...answer.headers
        })
        res.end(bytes)
      }
    }
  }

  const server = Http.createServer((req, res) => {
    const record: RecordedRequest = {
      server: "backend",
      method: req.method ?? "",
      path: req.url ?? "",
      headers: flattenHeaders(req.headers),
      body: Buffer.alloc(0),
      complete: false,
      at: performance.now()
    }
    requests.push(record)
    void readBody(req).then((body) => {
      record.body = body
      record.complete = true
      const path = (req.url ?? "").split("?")[0] ?? ""
      if (req.method === "POST" && path === "/auth/jwt-token/token/refresh/") {
        refreshes++
        let given: unknown
        try {
          given = JSON.parse(body.toString("utf8"))
        } catch {
          given = undefined
        }
        const refresh = options.refresh
        if (
          refresh !== undefined && typeof given === "object" && given !== null &&
          (given as { refresh?: unknown }).refresh === refresh.refreshToken
        ) {
          valid.add(refresh.access)
          return json(res, 200, {
            access: refresh.access,
            ...(refresh.rotatedRefresh === undefined ? {} : { refresh: refresh.rotatedRefresh })
          })
        }
        return json(res, 401, { detail: "Token is invalid or expired", code: "token_not_valid" })
      }
      const auth = req.headers.authorization ?? ""
      const token = auth.startsWith("Bearer ") ? auth.slice("Bearer ".length) : ""
      if (!valid.has(token)) {
        return json(res, 401, { detail: "Given token not valid for any token type", code: "token_not_valid" })
      }
      let m = /^\/api\/v1\/agent-sessions\/([^/]+)\/resolve-runtime-access\/$/.exec(path)
      if (m !== null && req.method === "POST") {
        const uid = decodeURIComponent(m[1] ?? "")
        const session = sessions.get(uid)
        if (session === undefined) return json(res, 404, { detail: "Not found." })
        const n = counts.get(uid) ?? 0
        counts.set(uid, n + 1)
        return reply(res, session.resolve(n))
      }
      m = /^\/api\/v1\/agent-sessions\/([^/]+)\/$/.exec(path)
      if (m !== null && req.method === "GET") {
        const session = sessions.get(decodeURIComponent(m[1] ?? ""))
        if (session === undefined) return json(res, 404, { detail: "Not found." })
        return json(res, 200, { uid: session.uid, agent_uid: session.agentUid ?? null, status: "active" })
      }
      m = /^\/api\/v1\/agents\/([^/]+)\/$/.exec(path)
      if (m !== null && req.method === "GET") {
        const agentUid = decodeURIComponent(m[1] ?? "")
        const session = [...sessions.values()].find((s) => s.agentUid === agentUid)
        if (session === undefined) return json(res, 404, { detail: "Not found." })
        return json(res, 200, { uid: agentUid, name: "interop agent", a2a_profile: session.profile ?? null })
      }
      return json(res, 404, { detail: "Not found." })
    })
  })
  const listening = await listen(server)
  return {
    origin: listening.origin,
    requests,
    addSession: (session) => sessions.set(session.uid, session),
    resolves: (uid) => counts.get(uid) ?? 0,
    refreshes: () => refreshes,
    revoke: (token) => valid.delete(token),
    close: listening.close
  }
}
