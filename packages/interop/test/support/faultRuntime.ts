/**
 * A raw `node:http` runtime that plays one fault per request to `…/message:send` (or any path), counting
 * requests on the server side: a request counts as soon as its head arrived, whatever happens next.
 */
import * as Http from "node:http"
import { flattenHeaders, listen, type RecordedRequest, sleep } from "./wire.js"

export type Fault =
  | "reset-before-head"
  | "reset-mid-response-body"
  | "reset-mid-request-body"
  | "head-never-comes"
  | "trickle"
  | "answer-50mb"
  | "invalid-json"
  | "empty-200"
  | "html-502"
  | "html-503"
  | "html-504"
  | "limit-504-extra-details"
  | "unauthorized"
  | "ok"

export interface FaultRuntime {
  readonly origin: string
  readonly rpcUrl: string
  readonly requests: Array<RecordedRequest>
  /** Requests to `…/message:send` (counted when their head arrived). */
  readonly sends: () => number
  /** Bytes of the response written so far, per request index (for the trickle and the 50 MB answer). */
  readonly written: Array<number>
  readonly close: () => Promise<void>
}

const html = (status: number, title: string): string =>
  `<!DOCTYPE html>\n<html><head><title>${status} ${title}</title></head><body><center><h1>${status} ${title}</h1></center><hr><center>nginx</center></body></html>\n`

export const limitBodyWithExtraDetails = {
  error: {
    code: 504,
    status: "DEADLINE_EXCEEDED",
    message: "The Agent did not answer the Message within 90 seconds. Use Task mode for longer work.",
    details: [
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "0s" },
      { "@type": "type.googleapis.com/google.rpc.DebugInfo", stackEntries: ["a", "b"], detail: "unknown to clients" },
      { "@type": "type.example.com/an.unknown.Detail", whatever: { nested: [1, 2, 3] } },
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED",
        domain: "mainsequence.ai",
        metadata: { limitSeconds: "90", turnId: "turn-1", extra: "x" }
      }
    ],
    an_unknown_field: true
  }
}

/**
 * `plan(n)` picks the fault of the n-th request (from 0). `validMessage(contextId)` builds the `ok` answer.
 */
export const startFaultRuntime = async (
  plan: (n: number) => Fault,
  options: { readonly contextId?: string; readonly trickleBytes?: number } = {}
): Promise<FaultRuntime> => {
  const requests: Array<RecordedRequest> = []
  const written: Array<number> = []
  let closing = false
  let n = 0

  const server = Http.createServer((req, res) => {
    const index = n++
    written[index] = 0
    const record: RecordedRequest = {
      server: "fault-runtime",
      method: req.method ?? "",
      path: req.url ?? "",
      headers: flattenHeaders(req.headers),
      body: Buffer.alloc(0),
      complete: false,
      at: performance.now()
    }
    requests.push(record)
    const fault = plan(index)
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => {
      chunks.push(chunk)
      record.body = Buffer.concat(chunks)
      if (fault === "reset-mid-request-body" && record.body.length >= 64 * 1024) req.socket.resetAndDestroy()
    })
    req.on("error", () => undefined)
    req.on("end", () => {
      record.complete = true
      void respond(fault, index, res, req).catch(() => undefined)
    })
  })

  const write = (res: Http.ServerResponse, index: number, chunk: string | Buffer): Promise<void> =>
    new Promise((resolve) => {
      written[index] = (written[index] ?? 0) + chunk.length
      if (res.write(chunk)) resolve()
      else res.once("drain", () => resolve())
    })

  const respond = async (fault: Fault, index: number, res: Http.ServerResponse, req: Http.IncomingMessage) => {
    const a2a = { "content-type": "application/a2a+json" }
    switch (fault) {
      case "reset-before-head":
      case "reset-mid-request-body":
        req.socket.resetAndDestroy()
        return
      case "reset-mid-response-body": {
        res.writeHead(200, { ...a2a, "content-length": "4000" })
        await write(
          res,
          index,
          `{"message":{"messageId":"agent-1","role":"ROLE_AGENT","parts":[{"text":"` + "y".repeat(500)
        )
        await sleep(50)
        req.socket.resetAndDestroy()
        return
      }
      case "head-never-comes":
        return
      case "trickle": {
        const total = options.trickleBytes ?? 200
        res.writeHead(200, { ...a2a, "content-length": String(total) })
        for (let i = 0; i < total && !closing && !res.destroyed; i++) {
          await write(res, index, "x")
          await sleep(1_000)
        }
        return
      }
      case "answer-50mb": {
        const total = 50 * 1024 * 1024
        res.writeHead(200, { ...a2a, "content-length": String(total) })
        const chunk = Buffer.alloc(64 * 1024, "z")
        for (let sent = 0; sent < total && !closing && !res.destroyed; sent += chunk.length) {
          await write(res, index, chunk)
        }
        res.end()
        return
      }
      case "invalid-json":
        res.writeHead(200, a2a)
        res.end(`{"message": {"messageId": "agent-1", "role": "ROLE_AGENT", "parts": [`)
        return
      case "empty-200":
        res.writeHead(200, { ...a2a, "content-length": "0" })
        res.end()
        return
      case "html-502":
      case "html-503":
      case "html-504": {
        const status = Number(fault.slice(5))
        const title = status === 502
          ? "Bad Gateway"
          : status === 503
          ? "Service Temporarily Unavailable"
          : "Gateway Time-out"
        res.writeHead(status, { "content-type": "text/html" })
        res.end(html(status, title))
        return
      }
      case "limit-504-extra-details":
        res.writeHead(504, { "content-type": "application/a2a+json; charset=utf-8" })
        res.end(JSON.stringify(limitBodyWithExtraDetails))
        return
      case "unauthorized":
        res.writeHead(401, { "content-type": "application/a2a+json", "www-authenticate": "Bearer" })
        res.end(JSON.stringify({ error: { code: 401, status: "UNAUTHENTICATED", message: "bad token", details: [] } }))
        return
      case "ok":
        res.writeHead(200, a2a)
        res.end(JSON.stringify({
          message: {
            messageId: "agent-ok",
            role: "ROLE_AGENT",
            contextId: options.contextId ?? "",
            parts: [{ text: "ok" }]
          }
        }))
        return
    }
  }

  const listening = await listen(server)
  return {
    origin: listening.origin,
    rpcUrl: `${listening.origin}/runtimes/fault/`,
    requests,
    sends: () => requests.filter((r) => r.path.endsWith("/message:send")).length,
    written,
    close: async () => {
      closing = true
      await listening.close()
    }
  }
}
