// SPEC §11, the Node layer's connection policy, over real sockets on 127.0.0.1: by default concurrent calls
// never wait for a connection behind other calls' answers; with a bound (`maxConnectionsPerOrigin`), a call
// whose budget ends while queued was never written. A small platform (the backend's resolve route and a
// runtime's `message:send` on one origin) counts the sockets and the sends in flight, and holds each answer
// as long as the message asks ("hold:<ms>").
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import * as A2AClient from "../src/A2AClient.js"
import * as A2AError from "../src/A2AError.js"
import * as Node from "../src/node.js"

const userToken = "connection-limit-user-token"
const runtimeToken = "connection-limit-runtime-token"

interface Platform {
  readonly url: string
  /** Sockets open now, and the most open at once since the last `resetPeak`. */
  readonly sockets: { open: number; peak: number; total: number }
  readonly resetPeak: () => void
  /** Sends received, answered, and closed by the client before they were answered. */
  readonly sends: { received: number; answered: number; abandoned: number }
  /** Sends received and not yet answered now, and the most at once. */
  readonly inFlight: { now: number; peak: number }
  /** Resolves received, and closed by the client before they were answered. */
  readonly resolves: { received: number; abandoned: number }
}

/** The session whose resolve the platform holds without ever answering. */
const heldSession = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"

const readBody = (req: Http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString()))
    req.on("error", reject)
  })

const json = (res: Http.ServerResponse, status: number, body: unknown, contentType = "application/json") => {
  const bytes = Buffer.from(JSON.stringify(body))
  res.writeHead(status, { "content-type": contentType, "content-length": bytes.length })
  res.end(bytes)
}

const platform = Effect.map(
  Effect.acquireRelease(
    Effect.async<{ readonly server: Http.Server; readonly state: Omit<Platform, "url"> }>((resume) => {
      const sockets = { open: 0, peak: 0, total: 0 }
      const sends = { received: 0, answered: 0, abandoned: 0 }
      const inFlight = { now: 0, peak: 0 }
      const resolves = { received: 0, abandoned: 0 }
      let baseUrl = ""
      const server = Http.createServer((req, res) => {
        void readBody(req).then((body) => {
          const url = req.url ?? ""
          if (url.startsWith("/api/v1/agent-sessions/") && url.endsWith("/resolve-runtime-access/")) {
            if (req.headers.authorization !== `Bearer ${userToken}`) return json(res, 401, { detail: "no" })
            resolves.received++
            res.once("close", () => {
              if (!res.writableEnded) resolves.abandoned++
            })
            if (url.includes(heldSession)) return
            return json(res, 200, {
              coding_agent_service_uid: "3f5c2a1e-8b7d-4c6e-9a0f-1b2c3d4e5f60",
              mode: "token",
              rpc_url: `${baseUrl}/runtime/`,
              token: runtimeToken,
              expires_at: new Date(Date.now() + 3_600_000).toISOString(),
              runtime_paths: { a2a: "/api/a2a/v1" },
              runtime_interaction: {
                state: "ready",
                can_submit: true,
                notice: null,
                operation: null,
                retry_after_ms: null
              },
              runtime_presence: {
                phase: "serving",
                replicas: { desired: 1, actual: 1 },
                detail: "serving",
                observed_at: new Date().toISOString(),
                wake: null
              }
            })
          }
          if (url === "/runtime/api/a2a/v1/message:send" && req.method === "POST") {
            if (req.headers.authorization !== `Bearer ${runtimeToken}`) return json(res, 401, {})
            sends.received++
            inFlight.now++
            if (inFlight.now > inFlight.peak) inFlight.peak = inFlight.now
            res.once("close", () => {
              inFlight.now--
              if (!res.writableEnded) sends.abandoned++
            })
            const message = (JSON.parse(body) as {
              message: { contextId: string; parts: ReadonlyArray<{ text: string }> }
            }).message
            const stall = /^stall-body:(\d+)$/.exec(message.parts[0]?.text ?? "")
            if (stall !== null) {
              // The head and the start of the body, then nothing until the stall ends.
              res.writeHead(200, { "content-type": "application/a2a+json" })
              res.write(`{"message":{"messageId":"reply-stalled","role":"ROLE_AGENT",`)
              return void setTimeout(() => {
                sends.answered++
                res.end(`"contextId":"${message.contextId}","parts":[{"text":"done"}]}}`)
              }, Number(stall[1]))
            }
            const hold = /^hold:(\d+)$/.exec(message.parts[0]?.text ?? "")
            const answer = () => {
              sends.answered++
              json(res, 200, {
                message: {
                  messageId: `reply-${sends.answered}`,
                  role: "ROLE_AGENT",
                  contextId: message.contextId,
                  parts: [{ text: "done" }]
                }
              }, "application/a2a+json")
            }
            return hold === null ? answer() : void setTimeout(answer, Number(hold[1]))
          }
          return json(res, 404, { detail: "Not found." })
        })
      })
      server.on("connection", (socket) => {
        sockets.open++
        sockets.total++
        if (sockets.open > sockets.peak) sockets.peak = sockets.open
        socket.once("close", () => sockets.open--)
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        baseUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
        resume(Effect.succeed({
          server,
          state: {
            sockets,
            sends,
            inFlight,
            resolves,
            resetPeak: () => {
              sockets.peak = sockets.open
            }
          }
        }))
      })
    }),
    ({ server }) =>
      Effect.async<unknown>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ),
  ({ server, state }): Platform => {
    const address = server.address()
    return { url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`, ...state }
  }
)

// The layer lives as long as the test's scope (an `Effect.provide` around the lookup would close its pool at once).
const clientOn = (url: string, maxConnectionsPerOrigin?: number) =>
  Effect.map(
    Layer.build(Node.layer({ backendUrl: url, accessToken: Redacted.make(userToken), maxConnectionsPerOrigin })),
    Context.get(A2AClient.A2AClient)
  )

describe("SPEC §11: concurrent calls never wait behind other calls' answers, by default (real sockets)", () => {
  // All 200 at the runtime at once is the proof that none waited for another's connection; the time bound is
  // a sanity check with room for the calls' own start on a loaded machine (a queue would cost 3 s a round).
  it.scopedLive("200 concurrent sends to one session answered after 3 s all finish within 3 s and a margin, all at the runtime at once", () =>
    Effect.gen(function*() {
      const server = yield* platform
      const a2a = yield* clientOn(server.url)
      const session = randomUUID()
      yield* a2a.sendA2AMessage(session, { message: "warm" })
      const started = Date.now()
      const answers = yield* Effect.forEach(
        Array.from({ length: 200 }, () => "hold:3000"),
        (message) => a2a.sendA2AMessage(session, { message }),
        { concurrency: "unbounded" }
      )
      const elapsed = Date.now() - started
      expect(answers.every((answer) => answer.role === "ROLE_AGENT")).toBe(true)
      expect(server.inFlight.peak).toBe(200)
      expect(elapsed).toBeGreaterThanOrEqual(3000)
      expect(elapsed).toBeLessThan(9000)
    }))
})

describe("SPEC §11: with a bound (maxConnectionsPerOrigin), calls queue for a connection (real sockets)", () => {
  it.scopedLive("limit 4, 40 concurrent sends held 50 ms: never more than 4 sockets open, every send answered", () =>
    Effect.gen(function*() {
      const server = yield* platform
      const a2a = yield* clientOn(server.url, 4)
      const session = randomUUID()
      const answers = yield* Effect.forEach(
        Array.from({ length: 40 }, () => "hold:50"),
        (message) => a2a.sendA2AMessage(session, { message, timeout: [5, 10] }),
        { concurrency: "unbounded" }
      )
      expect(answers).toHaveLength(40)
      expect(answers.every((answer) => answer.role === "ROLE_AGENT" && answer.contextId === session)).toBe(true)
      expect(server.sends.answered).toBe(40)
      // the resolve and the sends share the one origin, and its limit
      expect(server.sockets.peak).toBe(4)
      expect(server.sockets.total).toBe(4)
    }))

  it.scopedLive("many sessions, one origin: 300 concurrent sends to 30 sessions stay within the limit of 8", () =>
    Effect.gen(function*() {
      const server = yield* platform
      const a2a = yield* clientOn(server.url, 8)
      const sessions = Array.from({ length: 30 }, () => randomUUID())
      const answers = yield* Effect.forEach(
        Array.from({ length: 300 }, (_, i) => sessions[i % sessions.length] ?? ""),
        (session) => a2a.sendA2AMessage(session, { message: "hold:5" }),
        { concurrency: "unbounded" }
      )
      expect(answers).toHaveLength(300)
      expect(server.sockets.peak).toBeLessThanOrEqual(8)
      expect(server.sockets.peak).toBeGreaterThan(1)
    }))

  it.scopedLive("a send queued behind a busy connection for longer than `connect` still succeeds: the queue is not the connect phase", () =>
    Effect.gen(function*() {
      const server = yield* platform
      const a2a = yield* clientOn(server.url, 1)
      const session = randomUUID()
      // one budget shape, so one dispatcher (there is one per connect limit in use)
      const timeout = [0.2, 3] as const
      yield* a2a.sendA2AMessage(session, { message: "warm", timeout }) // access cached, one connection open
      const busy = yield* Effect.fork(a2a.sendA2AMessage(session, { message: "hold:600", timeout }))
      yield* Effect.sleep("50 millis")
      const started = Date.now()
      const queued = yield* a2a.sendA2AMessage(session, { message: "queued", timeout })
      const waited = Date.now() - started
      expect(queued.role).toBe("ROLE_AGENT")
      expect(waited).toBeGreaterThanOrEqual(400) // it waited for the busy connection, twice its connect limit
      expect((yield* busy).role).toBe("ROLE_AGENT")
      expect(server.sockets.total).toBe(1)
    }))

  it.scopedLive("a send whose budget ends while queued was never written: not received, messageMayHaveBeenSent false, retry-safe; the pool goes on", () =>
    Effect.gen(function*() {
      const server = yield* platform
      const a2a = yield* clientOn(server.url, 1)
      const session = randomUUID()
      // Each budget shape against a connection kept busy by a send of the same shape (one dispatcher per
      // connect limit in use): a total of 0.3 s, and [0.2, 0.2] (total 0.4 s).
      const shapes = [{ busy: 10, queued: 0.3, seconds: 0.3 }, {
        busy: [0.2, 3] as const,
        queued: [0.2, 0.2] as const,
        seconds: 0.4
      }]
      const results = yield* Effect.forEach(shapes, ({ busy, queued, seconds }) =>
        Effect.gen(function*() {
          yield* a2a.sendA2AMessage(session, { message: "warm", timeout: busy })
          const held = yield* Effect.fork(a2a.sendA2AMessage(session, { message: "hold:1000", timeout: busy }))
          yield* Effect.sleep("50 millis")
          const started = Date.now()
          const exit = yield* Effect.exit(a2a.sendA2AMessage(session, { message: "queued", timeout: queued }))
          const elapsed = Date.now() - started
          expect((yield* held).role).toBe("ROLE_AGENT")
          const after = yield* a2a.sendA2AMessage(session, { message: "after", timeout: busy })
          return { exit, elapsed, seconds, after }
        }), { concurrency: "unbounded" })
      for (const { after, elapsed, exit, seconds } of results) {
        expect(exit).toMatchObject({
          _tag: "Failure",
          cause: {
            _tag: "Fail",
            error: {
              _tag: "A2ATimeoutError",
              limit: "total",
              seconds,
              step: "send-message",
              messageMayHaveBeenSent: false
            }
          }
        })
        const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
        expect(Option.map(error, A2AError.isRetrySafe)).toEqual(Option.some(true))
        expect(elapsed).toBeGreaterThanOrEqual(seconds * 1000 - 20)
        expect(elapsed).toBeLessThan(seconds * 1000 + 250)
        // the pool goes on after the abandoned request
        expect(after.role).toBe("ROLE_AGENT")
      }
      // the queued requests were abandoned before they were written: the runtime saw warm, held and after
      expect(server.sends.received).toBe(6)
    }))

  it.scopedLive("a send the runtime holds past its budget, or whose caller interrupts it, has its request aborted at once", () =>
    Effect.gen(function*() {
      const server = yield* platform
      const a2a = yield* clientOn(server.url)
      const session = randomUUID()
      yield* a2a.sendA2AMessage(session, { message: "warm" })
      const abandoned = (n: number) =>
        Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => server.sends.abandoned >= n, times: 100 }))
      const timedOut = yield* Effect.flip(a2a.sendA2AMessage(session, { message: "hold:5000", timeout: 0.2 }))
      expect(timedOut).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", step: "send-message" })
      yield* abandoned(1)
      expect(server.sends.abandoned).toBe(1)
      const headLimit = yield* Effect.flip(a2a.sendA2AMessage(session, { message: "hold:5000", timeout: [1, 0.2] }))
      expect(headLimit).toMatchObject({ _tag: "A2ATimeoutError", limit: "read", step: "send-message" })
      yield* abandoned(2)
      expect(server.sends.abandoned).toBe(2)
      const caller = yield* Effect.fork(a2a.sendA2AMessage(session, { message: "hold:5000" }))
      yield* Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => server.sends.received === 4, times: 100 }))
      yield* Fiber.interrupt(caller)
      yield* abandoned(3)
      expect(server.sends).toEqual({ received: 4, answered: 1, abandoned: 3 })
    }))

  it.scopedLive("a send whose answer stalls mid-body past its read limit ends with it and has its request aborted at once", () =>
    Effect.gen(function*() {
      const server = yield* platform
      const a2a = yield* clientOn(server.url)
      const session = randomUUID()
      yield* a2a.sendA2AMessage(session, { message: "warm" })
      const stalled = yield* Effect.flip(a2a.sendA2AMessage(session, { message: "stall-body:5000", timeout: [1, 0.2] }))
      expect(stalled).toMatchObject({
        _tag: "A2ATimeoutError",
        limit: "read",
        step: "read-response",
        messageMayHaveBeenSent: true
      })
      yield* Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => server.sends.abandoned >= 1, times: 100 }))
      expect(server.sends).toEqual({ received: 2, answered: 1, abandoned: 1 })
    }))

  it.scopedLive("a resolve the backend holds is aborted once nobody waits: by its own phase limit, or when its last call's budget ends", () =>
    Effect.gen(function*() {
      const server = yield* platform
      const a2a = yield* clientOn(server.url)
      const abandoned = (n: number) =>
        Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => server.resolves.abandoned >= n, times: 100 }))
      const phased = yield* Effect.flip(a2a.sendA2AMessage(heldSession, { message: "hi", timeout: [1, 0.2] }))
      expect(phased).toMatchObject({ _tag: "A2ATimeoutError", limit: "read", step: "resolve-runtime-access" })
      yield* abandoned(1)
      expect(server.resolves.abandoned).toBe(1)
      const total = yield* Effect.flip(a2a.sendA2AMessage(heldSession, { message: "hi", timeout: 0.3 }))
      expect(total).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", step: "resolve-runtime-access" })
      yield* abandoned(2)
      expect(server.resolves).toEqual({ received: 2, abandoned: 2 })
    }))

  it.scoped("a limit that is not a positive integer is a defect when the layer is built", () =>
    Effect.gen(function*() {
      for (const bad of [0, -1, 1.5, Number.NaN]) {
        const exit = yield* Effect.exit(clientOn("http://127.0.0.1:9", bad))
        expect(exit).toMatchObject({
          _tag: "Failure",
          cause: { _tag: "Die", defect: { _tag: "A2AInputError", field: "maxConnectionsPerOrigin" } }
        })
      }
    }))
})
