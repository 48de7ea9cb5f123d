/**
 * The simulated platform over real HTTP (Node), with the real clock: a
 * reference platform for the CLI, demos and manual testing.
 *
 * `serveReferencePlatform` listens on `host:port` (127.0.0.1, any free port
 * by default) and serves the same state machine as the in-memory face, with
 * a few ready-made demo sessions and a small admin API:
 *
 * - `POST /__sim/sessions` — a `SessionScenario` JSON; creates or replaces the session
 * - `GET  /__sim/sessions` — the scenarios
 * - `POST /__sim/sessions/{uid}/rotate-token` — `{"label"}` of the new runtime token
 * - `GET  /__sim/log` — the request log (secrets replaced by labels; body as text and base64)
 * - `POST /__sim/log/clear`
 * - `GET  /__sim/counters`, `GET /__sim/tasks`
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { createServer } from "node:http"
import * as DemoSessions from "./DemoSessions.js"
import * as SessionScenario from "./SessionScenario.js"
import * as SimulatedPlatform from "./SimulatedPlatform.js"

// ---------------------------------------------------------------------------
// demo sessions (defined in ./DemoSessions, re-exported here)
// ---------------------------------------------------------------------------

/**
 * The uids of the demo sessions a reference platform serves out of the box
 * (see `DemoSessions.demoSessionUids`).
 *
 * @since 0.1.0
 * @category demo
 */
export const demoSessionUids: typeof DemoSessions.demoSessionUids = DemoSessions.demoSessionUids

/**
 * The question the `inputRequired` demo Agent asks.
 *
 * @since 0.1.0
 * @category demo
 */
export const demoInputRequiredQuestion: string = DemoSessions.demoInputRequiredQuestion

/**
 * The user access token a reference platform accepts (unless other tokens are given).
 *
 * @since 0.1.0
 * @category demo
 */
export const demoUserAccessToken: Redacted.Redacted<string> = DemoSessions.demoUserAccessToken

/**
 * The refresh token a reference platform accepts (unless other tokens are given).
 *
 * @since 0.1.0
 * @category demo
 */
export const demoRefreshToken: Redacted.Redacted<string> = DemoSessions.demoRefreshToken

/**
 * The length of the demo sessions' long job for a Message limit (see
 * `DemoSessions.demoLongJobMs`).
 *
 * @since 0.1.0
 * @category demo
 */
export const demoLongJobMs: (messageLimitSeconds: number) => number = DemoSessions.demoLongJobMs

/**
 * The demo session scenarios for a Message limit (see `DemoSessions.demoSessionsFor`).
 *
 * @since 0.1.0
 * @category demo
 */
export const demoSessionsFor: (
  messageLimitSeconds: number
) => ReadonlyArray<SessionScenario.SessionScenarioInput> = DemoSessions.demoSessionsFor

/**
 * The demo session scenarios for the default 90 s Message limit.
 *
 * @since 0.1.0
 * @category demo
 */
export const demoSessions: ReadonlyArray<SessionScenario.SessionScenarioInput> = DemoSessions.demoSessions

// ---------------------------------------------------------------------------
// serving
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface ServeOptions extends Omit<SimulatedPlatform.Options, "baseUrl" | "sessions"> {
  /** default 0: any free port */
  readonly port?: number | undefined
  /** default `127.0.0.1` */
  readonly host?: string | undefined
  /** added after the demo sessions (a session with a demo uid replaces it) */
  readonly sessions?: ReadonlyArray<SessionScenario.SessionScenarioInput> | undefined
  /**
   * serve the demo sessions (default true); their long jobs follow
   * `messageLimitSeconds` (see {@link demoSessionsFor})
   */
  readonly demoSessions?: boolean | undefined
}

/**
 * A running reference platform.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReferencePlatform {
  /** the base URL, e.g. `http://127.0.0.1:53211` (backend URL for clients) */
  readonly url: string
  /** the state machine behind it (its Effects use the real clock) */
  readonly platform: SimulatedPlatform.Service
}

const json = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status })

const logEntryJson = (entry: SimulatedPlatform.RequestLogEntry) => {
  const { body, ...rest } = entry
  return { ...rest, bodyBase64: Encoding.encodeBase64(body) }
}

/** Runs every Effect of the service with the given clock. */
const withClock = (service: SimulatedPlatform.Service, clock: Clock.Clock): SimulatedPlatform.Service => ({
  baseUrl: service.baseUrl,
  rpcUrl: service.rpcUrl,
  handle: (request) => Effect.withClock(service.handle(request), clock),
  addSession: (scenario) => Effect.withClock(service.addSession(scenario), clock),
  updateSession: (uid, update) => Effect.withClock(service.updateSession(uid, update), clock),
  removeSession: (uid) => Effect.withClock(service.removeSession(uid), clock),
  session: (uid) => Effect.withClock(service.session(uid), clock),
  sessions: Effect.withClock(service.sessions, clock),
  rotateRuntimeToken: (uid) => Effect.withClock(service.rotateRuntimeToken(uid), clock),
  expireUserTokens: Effect.withClock(service.expireUserTokens, clock),
  requestLog: Effect.withClock(service.requestLog, clock),
  clearRequestLog: Effect.withClock(service.clearRequestLog, clock),
  counters: Effect.withClock(service.counters, clock),
  tasks: Effect.withClock(service.tasks, clock)
})

const readJson = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(request.text, (text) =>
    Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: () => "the body is not JSON"
    }))

const adminRouter = (platform: SimulatedPlatform.Service) =>
  HttpRouter.empty.pipe(
    HttpRouter.post(
      "/__sim/sessions",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = yield* readJson(request).pipe(Effect.either)
        if (body._tag === "Left") return json(400, { error: "the body is not JSON" })
        const added = yield* SessionScenario.decode(body.right).pipe(
          Effect.flatMap(platform.addSession),
          Effect.either
        )
        return added._tag === "Left"
          ? json(400, { error: added.left.message })
          : json(201, Schema.encodeSync(SessionScenario.SessionScenario)(added.right))
      })
    ),
    HttpRouter.get(
      "/__sim/sessions",
      Effect.map(platform.sessions, (sessions) =>
        json(200, sessions.map((scenario) => Schema.encodeSync(SessionScenario.SessionScenario)(scenario))))
    ),
    HttpRouter.post(
      "/__sim/sessions/:uid/rotate-token",
      Effect.gen(function*() {
        const { uid } = yield* HttpRouter.params
        const rotated = yield* platform.rotateRuntimeToken(uid ?? "").pipe(Effect.either)
        return rotated._tag === "Left"
          ? json(404, { error: rotated.left.message })
          : json(200, { label: rotated.right })
      })
    ),
    HttpRouter.get(
      "/__sim/log",
      Effect.map(platform.requestLog, (log) =>
        json(200, log.map(logEntryJson)))
    ),
    HttpRouter.post("/__sim/log/clear", Effect.as(platform.clearRequestLog, HttpServerResponse.empty({ status: 204 }))),
    HttpRouter.get("/__sim/counters", Effect.map(platform.counters, (counters) => json(200, counters))),
    HttpRouter.get(
      "/__sim/tasks",
      Effect.map(platform.tasks, (tasks) => json(200, tasks))
    )
  )

const forward = (platform: SimulatedPlatform.Service) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = new Uint8Array(yield* request.arrayBuffer)
    const result = yield* platform.handle({
      method: request.method,
      url: `${platform.baseUrl}${request.url}`,
      headers: request.headers,
      body
    }).pipe(Effect.either)
    if (result._tag === "Left") {
      // the scenario drops the connection: no answer at all
      NodeHttpServerRequest.toIncomingMessage(request).socket.destroy()
      return HttpServerResponse.empty({ status: 502 })
    }
    const response = result.right
    return HttpServerResponse.stream(response.body, { status: response.status, headers: response.headers })
  })

/**
 * Serves a simulated platform over HTTP until the scope closes, which closes the connections still open (an
 * answer under way is cut). The server and the platform use the real clock, whatever clock the caller runs with.
 *
 * @example
 * import { NodeRuntime } from "@effect/platform-node"
 * import { demoSessionUids, demoUserAccessToken, serveReferencePlatform } from "@mainsequence/a2a-testing/node"
 * import { Console, Effect, Redacted } from "effect"
 *
 * // Listens on 127.0.0.1 (any free port) until interrupted, with the demo sessions and one of our own.
 * export const main = Effect.gen(function*() {
 *   const { url } = yield* serveReferencePlatform({
 *     sessions: [{
 *       sessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
 *       agentUid: "5a1c7d0e-3b4f-4e2a-9c8d-7f6e5d4c3b2a",
 *       serviceUid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
 *       agent: { workMs: 2000 }
 *     }],
 *     messageLimitSeconds: 5
 *   })
 *   yield* Console.log(`export MAINSEQUENCE_ENDPOINT=${url}`)
 *   yield* Console.log(`export MAINSEQUENCE_ACCESS_TOKEN=${Redacted.value(demoUserAccessToken)}`)
 *   yield* Console.log(`a ready session: ${demoSessionUids.ready}`)
 *   return yield* Effect.never
 * }).pipe(Effect.scoped)
 *
 * // In a script: `NodeRuntime.runMain(main)` (Ctrl-C stops the server).
 * export const run = () => NodeRuntime.runMain(main)
 *
 * @since 0.1.0
 * @category constructors
 */
export const serveReferencePlatform = (
  options: ServeOptions = {}
): Effect.Effect<
  ReferencePlatform,
  HttpServerError.ServeError | SessionScenario.InvalidScenarioError,
  Scope.Scope
> => {
  const clock = Clock.make()
  return Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const http = createServer()
    const server = yield* NodeHttpServer.make(() => http, { port: options.port ?? 0, host })
    // Before the server closes, which waits for every connection: a stalled answer would hold it for ever.
    yield* Effect.addFinalizer(() => Effect.sync(() => http.closeAllConnections()))
    const address = server.address
    const port = address._tag === "TcpAddress" ? address.port : 0
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
    const { demoSessions: withDemos = true, host: _host, port: _port, sessions = [], ...platformOptions } = options
    const platform = withClock(
      yield* SimulatedPlatform.make({
        ...platformOptions,
        baseUrl: url,
        sessions: [...(withDemos ? demoSessionsFor(platformOptions.messageLimitSeconds ?? 90) : []), ...sessions]
      }),
      clock
    )
    const app = adminRouter(platform).pipe(
      HttpRouter.all("*", forward(platform)),
      HttpRouter.catchAll(() => Effect.succeed(json(500, { error: "the simulated platform failed" })))
    )
    yield* HttpServer.serveEffect(app).pipe(Effect.provideService(HttpServer.HttpServer, server))
    return { url, platform }
  }).pipe(Effect.withClock(clock))
}
