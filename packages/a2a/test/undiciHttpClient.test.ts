import * as Undici from "@effect/platform-node/Undici"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as UrlParams from "@effect/platform/UrlParams"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as FsSync from "node:fs"
import * as Fs from "node:fs/promises"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as V8 from "node:v8"
import * as Vm from "node:vm"
import { type ConnectPhase, currentConnectPhase } from "../src/internal/connectPhase.js"
import { direct, ProxyRefused } from "../src/internal/proxy.js"
import * as UndiciHttpClient from "../src/internal/undiciHttpClient.js"
import * as Node from "../src/node.js"
import { recordSpans } from "./fixtures.js"
import { serve } from "./recordingServer.js"

// The Node layer's own HttpClient as any user of `layerHttpClient` sees it: a complete HttpClientResponse over
// real sockets on 127.0.0.1 (the SDK itself reads bodies chunk by chunk; these are the other readers).

const client = HttpClient.HttpClient

describe("the Node layer's HttpClient (real sockets)", () => {
  it.scopedLive("status, headers, cookies, and a body read whole: text and json cached, arrayBuffer the same bytes", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((_req, res) => {
        res.setHeader("content-type", "application/json")
        res.setHeader("set-cookie", ["a=1", "b=2"])
        res.setHeader("x-multi", ["one", "two"])
        res.statusCode = 201
        res.end(JSON.stringify({ ok: true, text: "héllo" }))
      })
      const http = yield* client
      const response = yield* http.get(`${url}/path?q=1`)
      expect(response.status).toBe(201)
      expect(response.headers["content-type"]).toBe("application/json")
      expect(response.headers["x-multi"]).toBe("one, two")
      expect(response.cookies.cookies).toHaveProperty("a")
      expect(response.cookies.cookies).toHaveProperty("b")
      expect(yield* response.json).toEqual({ ok: true, text: "héllo" })
      expect(yield* response.text).toBe(JSON.stringify({ ok: true, text: "héllo" }))
      const bytes = new Uint8Array(yield* response.arrayBuffer)
      expect(new TextDecoder().decode(bytes)).toBe(JSON.stringify({ ok: true, text: "héllo" }))
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("sends the exact request: method, path, query, headers and body bytes", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve((_req, res) => res.end("ok"))
      const http = yield* client
      const body = new TextEncoder().encode("{\"exact\":\"bytes ✓\"}")
      const response = yield* http.execute(
        HttpClientRequest.post(`${url}/api/a2a/v1/message:send`).pipe(
          HttpClientRequest.setUrlParams(UrlParams.fromInput({ a: "1" })),
          HttpClientRequest.setHeader("a2a-version", "1.0"),
          HttpClientRequest.bodyUint8Array(body, "application/a2a+json")
        )
      )
      expect(yield* response.text).toBe("ok")
      expect(seen).toHaveLength(1)
      expect({ ...seen[0], body: seen[0]?.body.toString() }).toMatchObject({
        method: "POST",
        url: "/api/a2a/v1/message:send?a=1",
        body: "{\"exact\":\"bytes ✓\"}"
      })
      expect(seen[0]?.headers["a2a-version"]).toBe("1.0")
      expect(seen[0]?.headers["content-type"]).toBe("application/a2a+json")
      expect(seen[0]?.headers["content-length"]).toBe(String(body.byteLength))
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("a chunked body as a stream: every chunk, in order; a refused connection is a Transport RequestError", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((_req, res) => {
        res.write("one,")
        setTimeout(() => {
          res.write("two,")
          setTimeout(() => res.end("three"), 10)
        }, 10)
      })
      const http = yield* client
      const response = yield* http.get(url)
      const chunks = yield* Stream.runCollect(response.stream)
      expect(Chunk.toReadonlyArray(chunks).map((c) => new TextDecoder().decode(c)).join("")).toBe("one,two,three")
      const refused = yield* Effect.flip(http.get("http://127.0.0.1:1/"))
      expect(refused).toMatchObject({ _tag: "RequestError", reason: "Transport" })
    }).pipe(Effect.provide(Node.layerHttpClient())))
})

// The Node layer's HttpClient (`internal/undiciHttpClient.ts`): what happens to a request around its body.
// - Undici driven by hand (the handler undici would call, with a controller that behaves as undici's:
//   `resume` only acts when paused, `abort` once), since over a socket the size of each chunk and the moment
//   a request starts are undici's choice: back-pressure at its exact thresholds, the connect phase reported
//   (queued when dispatched, connected when undici starts the request), aborts of interrupted waits.
// - Over real sockets on 127.0.0.1 (`Node.layerHttpClient`): a request interrupted while it waits for a
//   connection is never sent, a response dropped unread is aborted once it is garbage collected, and the
//   response's other readers (`formData` of a body that is none, `cookies`, `remoteAddress`, `toJSON`, a
//   copy from `arrayBuffer`).

/** Records what the client asks of undici; `resume` and `abort` act as undici's own controller's do. */
class RecordingController implements Undici.Dispatcher.DispatchController {
  readonly calls: Array<string> = []
  private isPaused = false
  private abortReason: Error | null = null
  get paused() {
    return this.isPaused
  }
  get aborted() {
    return this.abortReason !== null
  }
  get reason() {
    return this.abortReason
  }
  pause() {
    this.isPaused = true
    this.calls.push("pause")
  }
  resume() {
    if (!this.isPaused) return
    this.isPaused = false
    this.calls.push("resume")
  }
  abort(reason: Error) {
    if (this.abortReason !== null) return
    this.abortReason = reason
    this.calls.push(`abort: ${reason.message}`)
  }
}

/** A dispatcher that only keeps each request's handler, for the test to play undici's part. */
const byHand = () => {
  const handlers: Array<Undici.Dispatcher.DispatchHandler> = []
  const dispatcher = {
    dispatch: (_options: Undici.Dispatcher.DispatchOptions, handler: Undici.Dispatcher.DispatchHandler) => {
      handlers.push(handler)
      return true
    }
  } as unknown as Undici.Dispatcher
  return { dispatcher, handlers }
}

const waitFor = (condition: () => boolean) => Effect.yieldNow().pipe(Effect.repeat({ until: () => condition() }))

const waitSuspended = (fiber: Fiber.RuntimeFiber<unknown, unknown>) =>
  Fiber.status(fiber).pipe(
    Effect.zipLeft(Effect.yieldNow()),
    Effect.repeat({ until: (status) => status._tag === "Suspended" })
  )

const bytes = (size: number) => Buffer.alloc(size, 1)

/** A phase that records what the client reports of the connect phase. */
const recordingPhase = (limit: Option.Option<Duration.Duration> = Option.none()) => {
  const reported: Array<string> = []
  const phase: ConnectPhase = {
    limit,
    onQueued: () => reported.push("queued"),
    onConnected: () => reported.push("connected")
  }
  return { phase, reported }
}

/**
 * A request on `byHand`'s dispatcher answered with a head; the response's body pulled chunk by chunk (`next`:
 * the size of the next chunk, `None` at the end) and its undici side.
 */
const answered = Effect.gen(function*() {
  const { dispatcher, handlers } = byHand()
  const http = yield* UndiciHttpClient.make(dispatcher, direct)
  const fiber = yield* Effect.fork(http.get("http://127.0.0.1:9/body"))
  yield* waitFor(() => handlers.length === 1)
  const handler = handlers[0] ?? {}
  const controller = new RecordingController()
  handler.onRequestStart?.(controller, {})
  handler.onResponseStart?.(controller, 200, {}, "OK")
  const response = yield* Fiber.join(fiber)
  const pull = yield* Stream.toPull(response.stream)
  const next = Effect.catchAll(
    Effect.map(pull, (chunk) => Option.some(Chunk.reduce(chunk, 0, (size, c) => size + c.byteLength))),
    Option.match({ onNone: () => Effect.succeedNone, onSome: Effect.fail })
  )
  return { handler, controller, response, next }
})

describe("the Node HttpClient's back-pressure (undici played by hand)", () => {
  it.scoped("undici is paused once more than 64 KiB wait unread, and resumed once 64 KiB or less do", () =>
    Effect.gen(function*() {
      const { controller, handler, next } = yield* answered
      handler.onResponseData?.(controller, bytes(64 * 1024))
      expect(controller.calls).toEqual([])
      handler.onResponseData?.(controller, bytes(1))
      expect(controller.calls).toEqual(["pause"])
      // 64 KiB + 1 byte buffered: reading the 64 KiB leaves 1 byte
      expect(yield* next).toEqual(Option.some(64 * 1024))
      expect(controller.calls).toEqual(["pause", "resume"])
      expect(yield* next).toEqual(Option.some(1))
      handler.onResponseEnd?.(controller, {})
      expect(yield* next).toEqual(Option.none())
      expect(controller.calls).toEqual(["pause", "resume"])
    }))

  it.scoped("resumed when a read leaves exactly 64 KiB, not while more than that still waits", () =>
    Effect.gen(function*() {
      const { controller, handler, next } = yield* answered
      handler.onResponseData?.(controller, bytes(1))
      handler.onResponseData?.(controller, bytes(1))
      handler.onResponseData?.(controller, bytes(64 * 1024))
      expect(controller.calls).toEqual(["pause"])
      // 1 + 1 + 64 KiB: after the first byte, 64 KiB + 1 still wait (stay paused); after the second, 64 KiB
      expect(yield* next).toEqual(Option.some(1))
      expect(controller.calls).toEqual(["pause"])
      expect(yield* next).toEqual(Option.some(1))
      expect(controller.calls).toEqual(["pause", "resume"])
      expect(yield* next).toEqual(Option.some(64 * 1024))
      handler.onResponseEnd?.(controller, {})
      expect(yield* next).toEqual(Option.none())
      expect(controller.calls).toEqual(["pause", "resume"])
    }))
})

describe("the Node HttpClient's connect phase (undici played by hand)", () => {
  it.scoped("a request is reported queued when dispatched, connected only when undici starts it", () =>
    Effect.gen(function*() {
      const { dispatcher, handlers } = byHand()
      const http = yield* UndiciHttpClient.make(dispatcher, direct)
      const { phase, reported } = recordingPhase()
      const fiber = yield* Effect.fork(
        Effect.locally(http.get("http://127.0.0.1:9/queued"), currentConnectPhase, phase)
      )
      yield* waitFor(() => handlers.length === 1)
      expect(reported).toEqual(["queued"])
      const controller = new RecordingController()
      handlers[0]?.onRequestStart?.(controller, {})
      expect(reported).toEqual(["queued", "connected"])
      handlers[0]?.onResponseStart?.(controller, 204, {}, "No Content")
      expect((yield* Fiber.join(fiber)).status).toBe(204)
      expect(controller.calls).toEqual([])
    }))

  it.scoped("a request interrupted while queued is aborted when undici starts it, before it is written or connected", () =>
    Effect.gen(function*() {
      const { dispatcher, handlers } = byHand()
      const http = yield* UndiciHttpClient.make(dispatcher, direct)
      const { phase, reported } = recordingPhase()
      const fiber = yield* Effect.fork(
        Effect.locally(http.get("http://127.0.0.1:9/queued"), currentConnectPhase, phase)
      )
      yield* waitFor(() => handlers.length === 1)
      yield* Fiber.interrupt(fiber)
      const controller = new RecordingController()
      handlers[0]?.onRequestStart?.(controller, {})
      expect(controller.calls).toEqual(["abort: The request was aborted"])
      expect(reported).toEqual(["queued"])
    }))

  it.scoped("a request interrupted while it waits for its head is aborted at once", () =>
    Effect.gen(function*() {
      const { dispatcher, handlers } = byHand()
      const http = yield* UndiciHttpClient.make(dispatcher, direct)
      const fiber = yield* Effect.fork(http.get("http://127.0.0.1:9/head"))
      yield* waitFor(() => handlers.length === 1)
      const controller = new RecordingController()
      handlers[0]?.onRequestStart?.(controller, {})
      yield* Fiber.interrupt(fiber)
      expect(controller.calls).toEqual(["abort: The request was aborted"])
    }))
})

describe("the Node HttpClient's body failures and interruptions (undici played by hand)", () => {
  it.scoped("a body that fails after its head is a Decode ResponseError, failed before or during the read", () =>
    Effect.gen(function*() {
      const reset = new Error("socket reset")
      const before = yield* answered
      before.handler.onResponseData?.(before.controller, bytes(3))
      before.handler.onResponseError?.(before.controller, reset)
      expect(yield* before.next).toEqual(Option.some(3))
      expect(yield* Effect.flip(before.next)).toMatchObject({ _tag: "ResponseError", reason: "Decode", cause: reset })
      const during = yield* answered
      const reading = yield* Effect.fork(Effect.flip(during.next))
      yield* waitSuspended(reading)
      during.handler.onResponseError?.(during.controller, reset)
      expect(yield* Fiber.join(reading)).toMatchObject({ _tag: "ResponseError", reason: "Decode", cause: reset })
    }))

  it.scoped("a read interrupted while it waits for a chunk aborts the exchange; a body read to its end is not", () =>
    Effect.gen(function*() {
      const { controller, next } = yield* answered
      const reading = yield* Effect.fork(next)
      yield* waitSuspended(reading)
      yield* Fiber.interrupt(reading)
      expect(controller.calls).toEqual(["abort: The request was aborted"])
      for (const read of ["text", "stream"] as const) {
        const whole = yield* answered
        const body = yield* Effect.fork(
          read === "text"
            ? whole.response.text
            : Effect.map(Stream.runCollect(Stream.decodeText(whole.response.stream)), Chunk.join(""))
        )
        whole.handler.onResponseData?.(whole.controller, Buffer.from("all "))
        whole.handler.onResponseData?.(whole.controller, Buffer.from("of it"))
        whole.handler.onResponseEnd?.(whole.controller, {})
        expect(yield* Fiber.join(body)).toBe("all of it")
        expect(whole.controller.calls).toEqual([])
      }
    }))

  it.scoped("a dispatcher that throws: a Transport RequestError with its error", () =>
    Effect.gen(function*() {
      const broken = new Error("dispatcher closed")
      const dispatcher = {
        dispatch: () => {
          throw broken
        }
      } as unknown as Undici.Dispatcher
      const http = yield* UndiciHttpClient.make(dispatcher, direct)
      const failure = yield* Effect.flip(http.get("http://127.0.0.1:9/"))
      expect(failure).toMatchObject({ _tag: "RequestError", reason: "Transport", cause: broken })
    }))
})

describe("the Node HttpClient's exchange over real sockets", () => {
  it.scopedLive("a request interrupted while it waits for the one connection is never sent", () =>
    Effect.gen(function*() {
      const held = yield* Deferred.make<Http.ServerResponse>()
      const { seen, url } = yield* serve((req, res) => {
        if (req.url === "/held") Deferred.unsafeDone(held, Effect.succeed(res))
        else res.end("ok")
      })
      const http = yield* HttpClient.HttpClient
      const first = yield* Effect.fork(Effect.flatMap(http.get(`${url}/held`), (response) => response.text))
      const heldResponse = yield* Deferred.await(held)
      // the one connection is busy: this request is queued in undici (dispatched, not started) when interrupted
      const queued = yield* Effect.fork(http.get(`${url}/queued`))
      yield* waitSuspended(queued)
      yield* Fiber.interrupt(queued)
      heldResponse.end("held")
      expect(yield* Fiber.join(first)).toBe("held")
      expect(yield* Effect.flatMap(http.get(`${url}/after`), (response) => response.text)).toBe("ok")
      expect(seen.map((request) => request.url)).toEqual(["/held", "/after"])
    }).pipe(Effect.provide(Node.layerHttpClient({ maxConnectionsPerOrigin: 1 }))))

  it.scopedLive("a response dropped unread is aborted once it is garbage collected", () =>
    Effect.gen(function*() {
      const closed = new Map<string, Deferred.Deferred<boolean>>()
      const { url } = yield* serve((req, res) => {
        const done = Deferred.unsafeMake<boolean>(FiberId.none)
        closed.set(req.url ?? "", done)
        res.on("close", () => Deferred.unsafeDone(done, Effect.succeed(res.writableFinished)))
        res.write("a first chunk, and the body never ends")
      })
      const http = yield* HttpClient.HttpClient
      // nothing refers to the response once its request is done
      yield* Effect.asVoid(http.get(`${url}/unread`))
      const gc = collectGarbage()
      for (const path of ["/unread"]) {
        const done = closed.get(path) ?? Deferred.unsafeMake<boolean>(FiberId.none)
        // collect until the registry's callback has aborted the exchange (the server sees the connection close)
        yield* Effect.sync(gc).pipe(
          Effect.zipRight(Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))),
          Effect.forever,
          Effect.race(Deferred.await(done)),
          Effect.timeout("5 seconds"),
          Effect.ignore
        )
        // the server never finished the body: the client aborted it
        expect(yield* Deferred.await(done).pipe(Effect.timeout("1 second"))).toBe(false)
      }
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("a FormData body whose file can no longer be read is an Encode RequestError; nothing sent", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve((_req, res) => res.end("ok"))
      const http = yield* HttpClient.HttpClient
      const dir = yield* Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "a2a-form-")))
      yield* Effect.addFinalizer(() => Effect.promise(() => Fs.rm(dir, { recursive: true, force: true })))
      const file = Path.join(dir, "gone.txt")
      yield* Effect.promise(() => Fs.writeFile(file, "soon gone"))
      const blob = yield* Effect.promise(() => FsSync.openAsBlob(file))
      yield* Effect.promise(() => Fs.rm(file))
      const form = new FormData()
      form.append("file", blob, "gone.txt")
      const failure = yield* Effect.flip(
        http.execute(HttpClientRequest.bodyFormData(HttpClientRequest.post(url), form))
      )
      expect(failure).toMatchObject({ _tag: "RequestError", reason: "Encode" })
      expect(failure.cause).toMatchObject({ name: "NotReadableError" })
      expect(seen).toEqual([])
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("formData of a body that is none, cookies without a header, remoteAddress, toJSON, arrayBuffer a copy", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((_req, res) => {
        res.setHeader("content-type", "text/plain")
        res.end("not a form")
      })
      const http = yield* HttpClient.HttpClient
      const response = yield* http.get(`${url}/plain`)
      const failure = yield* Effect.flip(response.formData)
      expect(failure).toMatchObject({ _tag: "ResponseError", reason: "Decode", response: { status: 200 } })
      expect(failure.cause).toBeInstanceOf(TypeError)
      expect(response.cookies.cookies).toEqual({})
      expect(response.remoteAddress).toEqual(Option.none())
      const buffer = yield* response.arrayBuffer
      new Uint8Array(buffer).fill(0)
      expect(yield* response.text).toBe("not a form")
      expect(response.toJSON()).toEqual({
        _id: "@effect/platform/HttpClientResponse",
        request: response.request.toJSON(),
        status: 200,
        headers: expect.objectContaining({ "content-type": "text/plain" }),
        remoteAddress: Option.none().toJSON(),
        body: "not a form"
      })
    }).pipe(Effect.provide(Node.layerHttpClient())))
})

/** `global.gc` without `--expose-gc`: the flag set at run time, the function taken from a new context. */
const collectGarbage = (): () => void => {
  V8.setFlagsFromString("--expose-gc")
  return Vm.runInNewContext("gc") as () => void
}

/**
 * A forward proxy on 127.0.0.1: absolute-form requests are answered "via proxy" (`/slow…` after 300 ms); a
 * CONNECT is refused with 403, or (`hang`) never answered. Records `METHOD target` of each.
 */
const proxyServer = (connect: "refuse" | "hang") =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: Http.Server; readonly seen: Array<string>; readonly sockets: Array<Net.Socket> }>(
      (resume) => {
        const seen: Array<string> = []
        const sockets: Array<Net.Socket> = []
        const server = Http.createServer((req, res) => {
          seen.push(`${req.method} ${req.url}`)
          if (req.url?.includes("/slow") === true) setTimeout(() => res.end("via proxy"), 300)
          else res.end("via proxy")
        })
        server.on("connect", (req: Http.IncomingMessage, socket: Net.Socket) => {
          seen.push(`CONNECT ${req.url}`)
          sockets.push(socket)
          if (connect === "refuse") socket.end("HTTP/1.1 403 Forbidden\r\n\r\n")
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, seen, sockets })))
      }
    ),
    ({ server, sockets }) =>
      Effect.async<unknown>((resume) => {
        for (const socket of sockets) socket.destroy()
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(
    Effect.map(({ seen, server }) => ({ seen, url: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}` }))
  )

/** A TCP server that accepts and never says anything: a TLS handshake with it never ends. */
const silentServer = Effect.acquireRelease(
  Effect.async<{ readonly server: Net.Server; readonly sockets: Array<Net.Socket> }>((resume) => {
    const sockets: Array<Net.Socket> = []
    const server = Net.createServer((socket) => sockets.push(socket))
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, sockets })))
  }),
  ({ server, sockets }) =>
    Effect.async<unknown>((resume) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resume(Effect.void))
    })
).pipe(Effect.map(({ server }) => (server.address() as Net.AddressInfo).port))

const withConnectLimit = (millis: number) =>
  Effect.locally(currentConnectPhase, recordingPhase(Option.some(Duration.millis(millis))).phase)

const agent = Effect.acquireRelease(
  Effect.sync(() => new Undici.Agent()),
  (dispatcher) => Effect.promise(() => dispatcher.destroy())
)

const isConnectTimeout = (error: unknown) =>
  error instanceof HttpClientError.RequestError && error.reason === "Transport" &&
  error.cause instanceof Undici.errors.ConnectTimeoutError

describe("the Node HttpClient through a proxy, and its connect limit (real sockets)", () => {
  it.scopedLive("an http target goes to the http proxy in absolute form; an https one direct when only http has a proxy", () =>
    Effect.gen(function*() {
      const proxy = yield* proxyServer("refuse")
      const http = yield* UndiciHttpClient.make(yield* agent, {
        http: Option.some(Redacted.make(proxy.url)),
        https: Option.none(),
        noProxy: ""
      })
      const text = yield* Effect.flatMap(http.get("http://target.invalid/x?y=1"), (response) => response.text)
      expect(text).toBe("via proxy")
      // with a connect limit: the direct call and the proxied one each get a dispatcher of their own for it
      const refused = yield* Effect.flip(http.get("https://127.0.0.1:1/direct")).pipe(withConnectLimit(5_000))
      expect(refused).toMatchObject({ _tag: "RequestError", reason: "Transport", cause: { code: "ECONNREFUSED" } })
      const limited = yield* Effect.flatMap(http.get("http://target.invalid/limited"), (response) => response.text)
        .pipe(withConnectLimit(5_000))
      expect(limited).toBe("via proxy")
      // a scheme that is neither http nor https has no proxy: not sent to the http one
      yield* Effect.flip(http.get("ftp://target.invalid/f"))
      expect(proxy.seen).toEqual(["GET http://target.invalid/x?y=1", "GET http://target.invalid/limited"])
    }))

  it.scopedLive("an https target through the https proxy's CONNECT; a refusal names the proxy and its status", () =>
    Effect.gen(function*() {
      const proxy = yield* proxyServer("refuse")
      const http = yield* UndiciHttpClient.make(yield* agent, {
        http: Option.none(),
        https: Option.some(Redacted.make(proxy.url)),
        noProxy: ""
      })
      const refused = yield* Effect.flip(http.get("https://target.invalid/y"))
      expect(refused).toMatchObject({ _tag: "RequestError", reason: "Transport" })
      expect(refused.cause).toBeInstanceOf(ProxyRefused)
      expect(refused.cause).toMatchObject({ proxy: proxy.url, status: 403 })
      // an http target with no http proxy goes direct
      const direct = yield* Effect.flip(http.get("http://127.0.0.1:1/direct"))
      expect(direct).toMatchObject({ _tag: "RequestError", reason: "Transport", cause: { code: "ECONNREFUSED" } })
      expect(proxy.seen).toEqual(["CONNECT target.invalid:443"])
      // a proxy that cannot be reached is not a refusal: the connect error itself
      const unreachable = yield* UndiciHttpClient.make(yield* agent, {
        http: Option.none(),
        https: Option.some(Redacted.make("http://127.0.0.1:1")),
        noProxy: ""
      })
      const failure = yield* Effect.flip(unreachable.get("https://target.invalid/z"))
      expect(failure).toMatchObject({ _tag: "RequestError", reason: "Transport", cause: { code: "ECONNREFUSED" } })
    }))

  it.scopedLive("through a proxy the connect limit ends a CONNECT never answered, not a request that started", () =>
    Effect.gen(function*() {
      const proxy = yield* proxyServer("hang")
      const http = yield* UndiciHttpClient.make(yield* agent, {
        http: Option.some(Redacted.make(proxy.url)),
        https: Option.some(Redacted.make(proxy.url)),
        noProxy: ""
      })
      const hung = yield* Effect.flip(http.get("https://target.invalid/hung")).pipe(
        withConnectLimit(100),
        Effect.timeout("5 seconds")
      )
      expect(isConnectTimeout(hung)).toBe(true)
      // connected at once, its head after 300 ms: past the connect limit, but no longer connecting
      const slow = yield* Effect.flatMap(http.get("http://target.invalid/slow"), (response) => response.text).pipe(
        withConnectLimit(100)
      )
      expect(slow).toBe("via proxy")
    }))

  it.scopedLive("direct, the connect limit is undici's connect timeout, one per limit", () =>
    Effect.gen(function*() {
      const port = yield* silentServer
      const http = yield* UndiciHttpClient.make(yield* agent, direct)
      // a call with a long limit first: the short limit of the next one is its own
      const long = yield* Effect.fork(http.get(`https://127.0.0.1:${port}/long`).pipe(withConnectLimit(60_000)))
      const short = yield* Effect.flip(http.get(`https://127.0.0.1:${port}/short`)).pipe(
        withConnectLimit(100),
        Effect.timeout("5 seconds")
      )
      expect(isConnectTimeout(short)).toBe(true)
      yield* Fiber.interrupt(long)
    }))

  it.scopedLive("a dispatcher per connect limit, the last 8 kept and reused: older ones close, their calls end", () =>
    Effect.gen(function*() {
      // A server that holds the answer to /slow until told, and counts the connections open to it.
      const release = yield* Deferred.make<boolean>()
      let open = 0
      let made = 0
      const server = Http.createServer((req, res) => {
        if (req.url !== "/slow") return void res.end("ok")
        Effect.runFork(Effect.andThen(Deferred.await(release), Effect.sync(() => res.end("slow ok"))))
      })
      server.on("connection", (socket) => {
        made++
        open++
        socket.on("close", () => open--)
      })
      yield* Effect.acquireRelease(
        Effect.async<Http.Server>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))),
        (listening) =>
          Effect.async<Http.Server>((resume) =>
            void listening.close(() => resume(Effect.succeed(listening))).closeAllConnections()
          )
      )
      const address = server.address()
      const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
      const http = yield* UndiciHttpClient.make(yield* agent, direct)
      const get = (path: string, limit: number) =>
        Effect.flatMap(http.get(`${url}${path}`), (response) => response.text).pipe(withConnectLimit(limit))
      const slow = yield* Effect.fork(get("/slow", 60_000))
      while (open < 1) yield* Effect.sleep("5 millis")
      // 20 more limits, each its own dispatcher with a keep-alive connection: the one of /slow is among the closed
      const answers = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => 61_000 + i),
        (limit) => get("/", limit)
      )
      expect(answers).toEqual(Array(20).fill("ok"))
      for (let tries = 0; tries < 200 && open > 8 + 1; tries++) yield* Effect.sleep("10 millis")
      expect(open).toBeLessThanOrEqual(8 + 1)
      // the last 8 limits are still kept: each call reuses its dispatcher's connection
      const before = made
      yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => 61_012 + i), (limit) => get("/", limit))
      expect(made).toBe(before)
      yield* Deferred.succeed(release, true)
      expect(yield* Fiber.join(slow)).toBe("slow ok")
    }))

  it.scopedLive("the connect phase is read from the fiber: the client applies its limit and says it connected", () =>
    Effect.gen(function*() {
      const port = yield* silentServer
      const { url } = yield* serve((_req, res) => res.end("ok"))
      const http = yield* UndiciHttpClient.make(yield* agent, direct)
      const ok = recordingPhase(Option.some(Duration.seconds(60)))
      const answered = yield* Effect.flatMap(http.get(`${url}/ok`), (r) => r.text).pipe(
        Effect.locally(currentConnectPhase, ok.phase)
      )
      expect(answered).toBe("ok")
      expect(ok.reported).toEqual(["queued", "connected"])
      const never = recordingPhase(Option.some(Duration.millis(100)))
      const stalled = yield* Effect.flip(http.get(`https://127.0.0.1:${port}/never`)).pipe(
        Effect.locally(currentConnectPhase, never.phase),
        Effect.timeout("5 seconds")
      )
      expect(isConnectTimeout(stalled)).toBe(true)
      expect(never.reported).toEqual(["queued"])
    }))
})

// The Node layer's own HttpClient (`Node.layerHttpClient()`) over real sockets on 127.0.0.1: every request
// body kind reaches the server as the exact bytes, a body larger than its buffer is read whole (undici
// paused and resumed), a reader that stops ends the exchange, and the platform's client span only while
// tracing is on for the request.

const ok = (_req: Http.IncomingMessage, res: Http.ServerResponse) => res.end("ok")

describe("rules: the Node HttpClient's request bodies (real sockets)", () => {
  it.scopedLive("text, raw string, raw bytes, a stream and form data arrive as their exact bytes", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve(ok)
      const http = yield* HttpClient.HttpClient
      const post = HttpClientRequest.post(`${url}/in`)
      const send = (request: HttpClientRequest.HttpClientRequest) =>
        Effect.flatMap(http.execute(request), (response) => response.text)
      yield* send(HttpClientRequest.bodyText(post, "plain ✓", "text/plain"))
      yield* send(HttpClientRequest.setBody(post, HttpBody.raw("raw text")))
      yield* send(HttpClientRequest.setBody(post, HttpBody.raw(new Uint8Array([1, 2, 3]))))
      yield* send(
        HttpClientRequest.bodyStream(post, Stream.make(new Uint8Array([104, 105]), new Uint8Array([33])), {
          contentType: "application/octet-stream"
        })
      )
      const form = new FormData()
      form.append("field", "value")
      yield* send(HttpClientRequest.bodyFormData(post, form))
      yield* send(HttpClientRequest.get(`${url}/empty`))
      expect(seen.map((s) => s.body.toString("latin1"))).toEqual([
        Buffer.from("plain ✓").toString("latin1"),
        "raw text",
        "\u0001\u0002\u0003",
        "hi!",
        expect.stringContaining("name=\"field\"\r\n\r\nvalue\r\n"),
        ""
      ])
      expect(seen.map((s) => s.headers["content-type"])).toEqual([
        "text/plain",
        undefined,
        undefined,
        "application/octet-stream",
        expect.stringMatching(/^multipart\/form-data; boundary=/),
        undefined
      ])
      expect(seen.map((s) => s.method)).toEqual(["POST", "POST", "POST", "POST", "POST", "GET"])
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("a raw body of another kind is an Encode RequestError; an invalid URL an InvalidUrl one; nothing sent", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve(ok)
      const http = yield* HttpClient.HttpClient
      const raw = yield* Effect.flip(
        http.execute(HttpClientRequest.setBody(HttpClientRequest.post(url), HttpBody.raw({ an: "object" })))
      )
      expect(raw).toMatchObject({ _tag: "RequestError", reason: "Encode", description: "unsupported raw body" })
      const invalid = yield* Effect.flip(http.execute(HttpClientRequest.get("http://")))
      expect(invalid).toMatchObject({ _tag: "RequestError", reason: "InvalidUrl" })
      expect(seen).toEqual([])
    }).pipe(Effect.provide(Node.layerHttpClient())))
})

describe("rules: the Node HttpClient's response bodies (real sockets)", () => {
  it.scopedLive("a body far above the 64 KiB buffer, read after a pause, arrives whole and in order", () =>
    Effect.gen(function*() {
      const size = 4 * 1024 * 1024
      const payload = Buffer.alloc(size)
      for (let i = 0; i < size; i++) payload[i] = (i * 31) % 251
      const { url } = yield* serve((_req, res) => {
        res.setHeader("content-type", "application/octet-stream")
        res.end(payload)
      })
      const http = yield* HttpClient.HttpClient
      const response = yield* http.get(url)
      // let undici fill the buffer (and pause) before anything is read
      yield* Effect.sleep("150 millis")
      const chunks = yield* Stream.runCollect(response.stream)
      const bytes = Buffer.concat(Chunk.toReadonlyArray(chunks))
      expect(bytes.byteLength).toBe(size)
      expect(bytes.equals(payload)).toBe(true)
      // and whole, through arrayBuffer, on a second request
      const again = yield* http.get(url)
      yield* Effect.sleep("150 millis")
      expect(Buffer.from(yield* again.arrayBuffer).equals(payload)).toBe(true)
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("a reader that stops after the first chunk ends the exchange: the server sees the connection close", () =>
    Effect.gen(function*() {
      const closed = yield* Deferred.make<boolean>()
      const { url } = yield* serve((_req, res) => {
        res.on("close", () => Deferred.unsafeDone(closed, Effect.succeed(res.writableFinished)))
        res.write("first chunk")
      })
      const http = yield* HttpClient.HttpClient
      const response = yield* http.get(url)
      const first = yield* Stream.runCollect(Stream.take(response.stream, 1))
      expect(Chunk.toReadonlyArray(first).map((c) => new TextDecoder().decode(c))).toEqual(["first chunk"])
      // the response was never finished by the server: the client closed it
      expect(yield* Deferred.await(closed).pipe(Effect.timeout("5 seconds"))).toBe(false)
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("a request interrupted before its head ends the exchange too", () =>
    Effect.gen(function*() {
      const closed = yield* Deferred.make<boolean>()
      const { url } = yield* serve((_req, res) => {
        res.on("close", () => Deferred.unsafeDone(closed, Effect.succeed(true)))
      })
      const http = yield* HttpClient.HttpClient
      const outcome = yield* http.get(url).pipe(Effect.timeout("200 millis"), Effect.either)
      expect(outcome._tag).toBe("Left")
      yield* Deferred.await(closed).pipe(Effect.timeout("5 seconds"))
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("json of an empty body is null; of a broken one a Decode ResponseError; urlParams and formData", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((req, res) => {
        if (req.url === "/form") {
          res.setHeader("content-type", "application/x-www-form-urlencoded")
          return res.end("a=1&b=two")
        }
        res.end(req.url === "/empty" ? "" : "{broken")
      })
      const http = yield* HttpClient.HttpClient
      expect(yield* Effect.flatMap(http.get(`${url}/empty`), (r) => r.json)).toBeNull()
      const broken = yield* Effect.flip(Effect.flatMap(http.get(`${url}/broken`), (r) => r.json))
      expect(broken).toMatchObject({ _tag: "ResponseError", reason: "Decode" })
      const params = yield* Effect.flatMap(http.get(`${url}/form`), (r) => r.urlParamsBody)
      expect(params).toEqual([["a", "1"], ["b", "two"]])
      const form = yield* Effect.flatMap(http.get(`${url}/form`), (r) => r.formData)
      expect([form.get("a"), form.get("b")]).toEqual(["1", "two"])
    }).pipe(Effect.provide(Node.layerHttpClient())))
})

describe("rules: the Node HttpClient's client span (real sockets)", () => {
  it.scopedLive("with tracing on: the platform's client span (method, URL, status; credentials redacted), its traceparent sent", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve(ok)
      const http = yield* HttpClient.HttpClient
      const { spans, tracer } = yield* recordSpans
      const token = "a-bearer-token-never-in-a-span"
      yield* Effect.flatMap(
        http.execute(HttpClientRequest.get(`${url}/traced?x=1`).pipe(HttpClientRequest.bearerToken(token))),
        (r) => r.text
      ).pipe(Effect.withTracer(tracer))
      const [span, ...more] = spans
      expect(more).toEqual([])
      expect(span?.kind).toBe("client")
      expect(span?.name).toBe("http.client GET")
      const attributes = Object.fromEntries(span?.attributes ?? [])
      expect(attributes).toMatchObject({
        "http.request.method": "GET",
        "server.address": url,
        "url.full": `${url}/traced?x=1`,
        "url.path": "/traced",
        "http.response.status_code": 200
      })
      expect(JSON.stringify(attributes)).not.toContain(token)
      expect(seen[0]?.headers["authorization"]).toBe(`Bearer ${token}`)
      expect(seen[0]?.headers["traceparent"]).toBe(`00-${span?.traceId}-${span?.spanId}-01`)
    }).pipe(Effect.provide(Node.layerHttpClient())))

  it.scopedLive("with the span disabled for the request, or propagation off: no span, or no traceparent", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve(ok)
      const http = yield* HttpClient.HttpClient
      const { spans, tracer } = yield* recordSpans
      yield* Effect.flatMap(http.get(url), (r) => r.text).pipe(
        Effect.locally(HttpClient.currentTracerDisabledWhen, () => true),
        Effect.withTracer(tracer)
      )
      expect(spans).toEqual([])
      expect(seen[0]?.headers["traceparent"]).toBeUndefined()
      yield* Effect.flatMap(http.get(url), (r) => r.text).pipe(
        Effect.locally(HttpClient.currentTracerPropagation, false),
        Effect.withTracer(tracer)
      )
      expect(spans).toHaveLength(1)
      expect(seen[1]?.headers["traceparent"]).toBeUndefined()
    }).pipe(Effect.provide(Node.layerHttpClient())))
})
