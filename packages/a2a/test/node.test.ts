import * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import { demoSessionUids, demoUserAccessToken, serveReferencePlatform } from "@mainsequence/a2a-testing/node"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import type * as Http from "node:http"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as A2AClient from "../src/A2AClient.js"
import * as Attachment from "../src/Attachment.js"
import * as Node from "../src/node.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import { clientOf, readyAccessForTests, recordSpans } from "./fixtures.js"
import { serve } from "./recordingServer.js"

const onReferencePlatform = <A, E>(
  f: (a2a: A2AClient.Service, url: string) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const { url } = yield* serveReferencePlatform({ port: 0 })
    const a2a = yield* clientOf(Node.layer({ backendUrl: url, accessToken: demoUserAccessToken }))
    return yield* f(a2a, url)
  })

/** A session whose runtime accepts the message and never answers (`id`: the last hex digit of its uids). */
const stalledSession = (id: string) => ({
  sessionUid: `0b2701a1-e777-4cfe-8437-b94025f000a${id}`,
  agentUid: `5c1d7e2a-3b4f-4a6c-9d8e-1f2a3b4c5da${id}`,
  serviceUid: `7bd86be3-d11a-4ad1-8fe2-9260ccdbcaa${id}`,
  agent: { behaviour: { _tag: "Stall" as const } }
})

describe("node layer over real HTTP (reference platform, real clock)", () => {
  it.scopedLive("sends a message through undici", () =>
    onReferencePlatform((a2a) =>
      Effect.gen(function*() {
        const answer = yield* a2a.sendA2AMessage(demoSessionUids.ready, { message: "hello over HTTP" })
        expect(answer.role).toBe("ROLE_AGENT")
        expect(answer.contextId).toBe(demoSessionUids.ready)
      })
    ))

  // Each call its own root fiber, all arriving at once at a cold session (the way a Promise caller sends).
  it.scopedLive("50 first calls to a cold session, each from its own runPromise, share one resolve", () =>
    Effect.gen(function*() {
      const { url } = yield* serveReferencePlatform({ port: 0 })
      const runtime = ManagedRuntime.make(Node.layer({ backendUrl: url, accessToken: demoUserAccessToken }))
      yield* Effect.addFinalizer(() => Effect.promise(() => runtime.dispose()))
      const a2a = yield* Effect.promise(() => runtime.runPromise(A2AClient.A2AClient))
      const answers = yield* Effect.promise(() =>
        Promise.all(
          Array.from(
            { length: 50 },
            () => runtime.runPromise(a2a.sendA2AMessage(demoSessionUids.ready, { message: "hi" }))
          )
        )
      )
      expect(answers).toHaveLength(50)
      const counters = yield* Effect.promise(() => fetch(`${url}/__sim/counters`).then((r) => r.json()))
      expect(counters).toMatchObject({ resolveCalls: { [demoSessionUids.ready]: 1 } })
    }))

  it.scopedLive("a trickled body with [connect, read] gaps above read fails with the read limit", () =>
    onReferencePlatform((a2a) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          a2a.sendA2AMessage(demoSessionUids.trickle, { message: "x", timeout: [2, 0.1] })
        )
        expect(error).toMatchObject({ _tag: "A2ATimeoutError", limit: "read", step: "read-response" })
        const ok = yield* a2a.sendA2AMessage(demoSessionUids.trickle, { message: "x", timeout: [2, 1] })
        expect(ok.role).toBe("ROLE_AGENT")
      })
    ))

  it.scopedLive("[2, 0.4]: a runtime that accepts the message and never answers ends the call with the read limit", () =>
    Effect.gen(function*() {
      const stalled = stalledSession("a")
      const { url } = yield* serveReferencePlatform({ port: 0, sessions: [stalled] })
      const a2a = yield* clientOf(Node.layer({ backendUrl: url, accessToken: demoUserAccessToken }))
      const error = yield* Effect.flip(
        a2a.sendA2AMessage(stalled.sessionUid, { message: "x", timeout: [2, 0.4] })
      )
      // before the fix: the head could take connect + read, and the 2.4 s total ended the call
      expect(error).toMatchObject({
        _tag: "A2ATimeoutError",
        limit: "read",
        seconds: 0.4,
        step: "send-message",
        messageMayHaveBeenSent: true
      })
    }))

  it.scopedLive("the Node client, wrapped by the user or not, sees the connect phase: read counts from the connection", () =>
    Effect.gen(function*() {
      const stalled = stalledSession("b")
      const { url } = yield* serveReferencePlatform({ port: 0, sessions: [stalled] })
      const options = { backendUrl: url, accessToken: demoUserAccessToken }
      // A client the user wraps is a new one: the phase reaches the Node client under it all the same.
      const wrapped = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, HttpClient.mapRequest(identity))
      )
      const clients = {
        direct: Node.layer(options),
        wrapped: A2AClient.layer(options).pipe(
          Layer.provide(Layer.merge(Layer.provide(wrapped, Node.layerHttpClient()), RuntimeAccessCache.layerMemory))
        )
      }
      for (const [name, layer] of Object.entries(clients)) {
        const a2a = yield* clientOf(layer)
        const { spans, tracer } = yield* recordSpans
        const error = yield* Effect.flip(
          a2a.sendA2AMessage(stalled.sessionUid, { message: "x", timeout: [2, 0.4] }).pipe(Effect.withTracer(tracer))
        )
        expect({ name, error }).toMatchObject({
          name,
          error: { _tag: "A2ATimeoutError", limit: "read", seconds: 0.4, step: "send-message" }
        })
        // The exchanges' own spans only: the platform's span is off for their requests either way.
        const http = spans.filter((span) => span.kind === "client" && span.name !== "SendMessage")
        expect({ name, http: http.map((span) => `${span.name} ${span.attributes.get("a2a.client.step")}`) }).toEqual({
          name,
          http: ["POST resolve-runtime-access", "POST send-message"]
        })
      }
    }))

  it.scopedLive("a refused connection is an A2ATransportError without request text", () =>
    Effect.gen(function*() {
      const a2a = yield* clientOf(Node.layer({ backendUrl: "http://127.0.0.1:9", accessToken: demoUserAccessToken }))
      const error = yield* Effect.flip(a2a.sendA2AMessage(demoSessionUids.ready, { message: "x", timeout: [1, 1] }))
      expect(error).toMatchObject({ _tag: "A2ATransportError", messageMayHaveBeenSent: false })
      expect(error.message).not.toContain(Redacted.value(demoUserAccessToken))
      expect(error.message).toContain("resolve-runtime-access")
      expect(error.message).toContain("(Transport ECONNREFUSED at 127.0.0.1:9)")
    }))

  it.scopedLive("a server that answers no HTTP is an A2ATransportError that says so", () =>
    Effect.gen(function*() {
      const port = yield* Effect.acquireRelease(
        Effect.async<Net.Server>((resume) => {
          const server = Net.createServer((socket) => {
            socket.on("error", () => {})
            socket.once("data", () => socket.end("SSH-2.0-OpenSSH_9.6\r\n\r\n"))
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.sync(() => server.close())
      ).pipe(Effect.map((server) => (server.address() as Net.AddressInfo).port))
      const a2a = yield* clientOf(
        Node.layer({ backendUrl: `http://127.0.0.1:${port}`, accessToken: demoUserAccessToken })
      )
      const error = yield* Effect.flip(a2a.sendA2AMessage(demoSessionUids.ready, { message: "x", timeout: [2, 2] }))
      expect(error).toMatchObject({ _tag: "A2ATransportError", step: "resolve-runtime-access" })
      expect(error.message).toContain(
        "(Transport the answer is not valid HTTP/1.1: Response does not match the HTTP/1.1 protocol"
      )
    }))

  it.scopedLive("through a proxy that refuses connections, the error names the proxy's address, not its password", () =>
    Effect.gen(function*() {
      // a port nothing listens on any more: its server closed with its scope
      const port = new URL((yield* Effect.scoped(serve((_req, res) => res.end()))).url).port
      const a2a = yield* clientOf(Node.layer({
        backendUrl: "http://backend.invalid:8080",
        accessToken: demoUserAccessToken,
        proxy: `http://user:proxy-password@127.0.0.1:${port}`
      }))
      const error = yield* Effect.flip(a2a.sendA2AMessage(demoSessionUids.ready, { message: "x", timeout: [1, 1] }))
      expect(error).toMatchObject({
        _tag: "A2ATransportError",
        url: `http://backend.invalid:8080/api/v1/agent-sessions/${demoSessionUids.ready}/resolve-runtime-access/`,
        cause: `Transport ECONNREFUSED at 127.0.0.1:${port}`,
        messageMayHaveBeenSent: false
      })
      expect(error.message).not.toContain("proxy-password")
    }))

  it.scopedLive("a redirect is never followed: no request, and so no token, reaches the place it points to", () =>
    Effect.gen(function*() {
      const elsewhere = yield* serve((_req, res) => res.end("{}"))
      const redirect = (status: number) => (_req: Http.IncomingMessage, res: Http.ServerResponse) => {
        res.writeHead(status, { location: `${elsewhere.url}/stolen` })
        res.end()
      }
      const movedBackend = yield* serve(redirect(307))
      const fromBackend = yield* clientOf(Node.layer({ backendUrl: movedBackend.url, accessToken: "user-token" }))
      const backendError = yield* Effect.flip(fromBackend.sendA2AMessage(demoSessionUids.ready, { message: "hi" }))

      const movedRuntime = yield* serve(redirect(308))
      const backend = yield* serve((_req, res) => {
        res.setHeader("content-type", "application/json")
        res.end(JSON.stringify({ ...readyAccessForTests, rpc_url: `${movedRuntime.url}/` }))
      })
      const fromRuntime = yield* clientOf(Node.layer({ backendUrl: backend.url, accessToken: "user-token" }))
      const runtimeError = yield* Effect.flip(fromRuntime.sendA2AMessage(demoSessionUids.ready, { message: "hi" }))

      expect([backendError._tag, runtimeError._tag]).toEqual(["BackendContractError", "A2ARequestError"])
      expect(backendError.message).toContain("unexpected status 307")
      expect(runtimeError.message).toContain("answered with a redirect (308), which is never followed")
      expect([movedBackend.seen.length, movedRuntime.seen.length]).toEqual([1, 1])
      expect(movedRuntime.seen[0]?.headers.authorization).toBe("Bearer runtime-token")
      expect(elsewhere.seen).toEqual([])
    }))

  it.scopedLive("an informational head (103 Early Hints) before the answer is passed over, backend and runtime", () =>
    Effect.gen(function*() {
      const hinted = (body: unknown) => (_req: Http.IncomingMessage, res: Http.ServerResponse) => {
        res.writeEarlyHints({ link: "</style.css>; rel=preload; as=style" })
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(body))
      }
      const runtime = yield* serve(hinted({
        message: {
          messageId: "a-1",
          role: "ROLE_AGENT",
          contextId: demoSessionUids.ready,
          parts: [{ text: "hi back" }]
        }
      }))
      const backend = yield* serve(hinted({ ...readyAccessForTests, rpc_url: `${runtime.url}/` }))
      const a2a = yield* clientOf(Node.layer({ backendUrl: backend.url, accessToken: "user-token" }))
      const answer = yield* a2a.sendA2AMessage(demoSessionUids.ready, { message: "hi" })
      expect(answer.parts).toEqual([{ text: "hi back" }])
      expect([backend.seen.length, runtime.seen.length]).toEqual([1, 1])
    }))

  it.scoped("a field the Node layer's options do not have is a defect when the layer is built, named", () =>
    Effect.gen(function*() {
      const clientFields = "backendUrl, accessToken, refreshToken, username, maxResponseBytes"
      const httpFields = "proxy, noProxy, maxConnectionsPerOrigin"
      const untyped = <A>(options: Record<string, unknown>) => options as A
      const cases: ReadonlyArray<readonly [Layer.Layer<never, unknown>, string]> = [
        [
          Node.layer(untyped({ backendUrl: "https://h", accessToken: "t", maxConnections: 8 })),
          `has an unknown field "maxConnections" (the fields are ${clientFields}, ${httpFields})`
        ],
        [
          Node.layer(untyped({ backendUrl: "https://h", accessToken: "t", noproxy: ".internal" })),
          `has an unknown field "noproxy" (did you mean "noProxy"?)`
        ],
        [
          Node.layerConfig(undefined, untyped({ backendUrl: "https://h" })),
          `has an unknown field "backendUrl" (the fields are ${httpFields})`
        ],
        [
          Node.layerHttpClient(untyped({ proxi: "none" })),
          `has an unknown field "proxi" (did you mean "proxy"?)`
        ]
      ]
      for (const [layer, reason] of cases) {
        const exit = yield* Effect.exit(Layer.build(layer))
        expect([reason, exit]).toMatchObject([
          reason,
          { _tag: "Failure", cause: { _tag: "Die", defect: { _tag: "A2AInputError", field: "options", reason } } }
        ])
      }
      // A field set to undefined is no unknown field.
      const built = yield* Effect.exit(Layer.build(Node.layerHttpClient(untyped({ proxy: "none", extra: undefined }))))
      expect(built._tag).toBe("Success")
    }))

  it.scopedLive("layerConfig reads MAINSEQUENCE_* from the environment", () =>
    Effect.gen(function*() {
      const { url } = yield* serveReferencePlatform({ port: 0 })
      const provider = ConfigProvider.fromMap(
        new Map([["MAINSEQUENCE_ENDPOINT", url], ["MAINSEQUENCE_ACCESS_TOKEN", Redacted.value(demoUserAccessToken)]])
      )
      const a2a = yield* clientOf(Node.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(provider))))
      const answer = yield* a2a.sendA2AMessage(demoSessionUids.ready, { message: "hi" })
      expect(answer.role).toBe("ROLE_AGENT")
    }))

  it.scopedLive("a plain-string accessToken works (redacted at once) and never shows in errors", () =>
    Effect.gen(function*() {
      const { url } = yield* serveReferencePlatform({ port: 0 })
      const token = Redacted.value(demoUserAccessToken)
      const a2a = yield* clientOf(Node.layer({ backendUrl: url, accessToken: token }))
      const answer = yield* a2a.sendA2AMessage(demoSessionUids.ready, { message: "hi" })
      expect(answer.role).toBe("ROLE_AGENT")
      const refused = yield* clientOf(Node.layer({ backendUrl: url, accessToken: "not-the-token" }))
      const error = yield* Effect.flip(refused.sendA2AMessage(demoSessionUids.ready, { message: "hi" }))
      expect(error._tag).toBe("NotLoggedInError")
      expect(error.message).not.toContain("not-the-token")
    }))

  it.scopedLive("the Node layer provides the FileSystem that Attachment.fromPath reads with", () =>
    Effect.gen(function*() {
      const { url } = yield* serveReferencePlatform({ port: 0 })
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "a2a-node-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
      const file = Path.join(dir, "report.pdf")
      Fs.writeFileSync(file, "%PDF-1.4 tiny")
      const answer = yield* Effect.gen(function*() {
        const a2a = yield* A2AClient.A2AClient
        const attachment = yield* Attachment.fromPath(file)
        expect([attachment.filename, attachment.bytes.byteLength]).toEqual(["report.pdf", 13])
        return yield* a2a.sendA2AMessage(demoSessionUids.ready, { message: "read this", attachments: [attachment] })
      }).pipe(Effect.provide(Node.layer({ backendUrl: url, accessToken: demoUserAccessToken })))
      expect(answer.role).toBe("ROLE_AGENT")
    }))
})
