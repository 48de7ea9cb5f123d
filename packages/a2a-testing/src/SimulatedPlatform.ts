/**
 * The simulated Main Sequence platform as a service: the Django backend
 * (runtime access, Agent discovery, token refresh), the Agent runtimes
 * speaking A2A v1 over HTTP+JSON, and a small deterministic Agent, all on one
 * origin.
 *
 * It is a state machine behind `handle(request)`; its HTTP faces
 * (`SimulatedHttpClient`, and `serveReferencePlatform` in `./node`) only
 * translate requests and responses. Inside, a dispatcher
 * (`internal/dispatch.ts`) logs each request (`internal/requestLog.ts`) and
 * routes it to the backend (`internal/backend.ts`) or the runtime
 * (`internal/runtime.ts`), which call the domain operations of the state
 * (`internal/access.ts`, `internal/tasks.ts`). Every delay is an `Effect.sleep`, so a
 * `TestClock` drives cold starts, slow Agents, trickled bodies and Tasks.
 *
 * Routes (base URL `B`):
 * - `POST B/api/v1/agent-sessions/{uid}/resolve-runtime-access/` (user bearer token)
 * - `GET  B/api/v1/agent-sessions/{uid}/`, `GET B/api/v1/agents/{agent_uid}/`
 * - `POST B/auth/jwt-token/token/refresh/` `{"refresh"}` → `{"access","refresh"}`
 * - `POST B/runtimes/{service_uid}/api/a2a/v1/message:send` (runtime bearer token)
 * - `GET  B/runtimes/{service_uid}/api/a2a/v1/tasks/{id}`
 * - `POST B/runtimes/{service_uid}/api/a2a/v1/tasks/{id}:cancel`
 *
 * The `rpc_url` handed out is `B/runtimes/{service_uid}/`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Random from "effect/Random"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { rpcUrlOf } from "./internal/context.js"
import { dispatch, type Platform } from "./internal/dispatch.js"
import type * as Model from "./internal/model.js"
import { snapshotEntry } from "./internal/requestLog.js"
import { PlatformState } from "./internal/state.js"
import { renderTask, taskStateAt } from "./internal/tasks.js"
import * as SessionScenario from "./SessionScenario.js"

// ---------------------------------------------------------------------------
// requests and responses
// ---------------------------------------------------------------------------

/**
 * An HTTP request as the simulation sees it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SimRequest extends Model.SimRequest {}

/**
 * An HTTP response of the simulation. The head is available when `handle`
 * succeeds (a slow Agent is a sleep before that); the body is a stream, so a
 * trickle or a stall is a sleep between chunks.
 *
 * @since 0.1.0
 * @category models
 */
export interface SimResponse extends Model.SimResponse {}

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * The connection failed: the host is not the platform's (a client derived a
 * host instead of using `rpc_url`, or the host is a session's external
 * runtime, which the in-memory face cannot reach), or the scenario drops the
 * connection.
 *
 * @since 0.1.0
 * @category errors
 */
export class SimulatedConnectionError extends Schema.TaggedError<SimulatedConnectionError>()(
  "SimulatedConnectionError",
  {
    url: Schema.String,
    reason: Schema.String,
    /** The Node.js error code a real connection would fail with: `ENOTFOUND`, `ECONNREFUSED`, `ECONNRESET`. */
    code: Schema.optional(Schema.String)
  }
) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Connection to ${this.url} failed: ${this.reason}`
  }
}

/**
 * No session with that uid is simulated.
 *
 * @since 0.1.0
 * @category errors
 */
export class SimulatedSessionNotFoundError extends Schema.TaggedError<SimulatedSessionNotFoundError>()(
  "SimulatedSessionNotFoundError",
  { sessionUid: Schema.String }
) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `No simulated session ${this.sessionUid}`
  }
}

// ---------------------------------------------------------------------------
// observation
// ---------------------------------------------------------------------------

/**
 * Which side of the platform a request reached.
 *
 * @since 0.1.0
 * @category models
 */
export type Target = Model.Target

/**
 * The route a request matched (`unknown` when none).
 *
 * @since 0.1.0
 * @category models
 */
export type Route = Model.Route

/**
 * One request as the platform received it. No secret is in it: token values
 * in headers, URL and body are replaced by their labels (`user-token#1`,
 * `refresh-token#1`, `runtime-token#2`, or `unknown-token`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestLogEntry extends Model.RequestLogEntry {}

/**
 * Counters of platform calls. Per-session records hold every known session
 * (0 until called).
 *
 * @since 0.1.0
 * @category models
 */
export interface Counters {
  /** resolve-runtime-access calls per session uid */
  readonly resolveCalls: Readonly<Record<string, number>>
  /** `message:send` requests per session uid (whatever their answer) */
  readonly sends: Readonly<Record<string, number>>
  /** session detail GETs per session uid */
  readonly sessionDetailCalls: Readonly<Record<string, number>>
  /** agent detail GETs per agent uid */
  readonly agentDetailCalls: Readonly<Record<string, number>>
  /** session detail + agent detail GETs */
  readonly discoveryCalls: number
  readonly taskGets: number
  readonly taskCancels: number
  /** user-token refresh calls */
  readonly refreshes: number
  readonly runtimeTokensIssued: number
}

/**
 * A Task held by a simulated runtime, as it is now.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskSnapshot {
  readonly id: string
  readonly sessionUid: string
  readonly state: string
  readonly createdAtMs: number
  /** the Task JSON a `GET …/tasks/{id}` would answer now */
  readonly task: unknown
}

// ---------------------------------------------------------------------------
// the service
// ---------------------------------------------------------------------------

/**
 * The base URL used when none is given.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl = "https://platform.sim.mainsequence.test"

/**
 * The user access token accepted when `userAccessTokens` is not given.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultUserAccessToken: Redacted.Redacted<string> = Redacted.make(
  "msim-user-access-default-5f0c1e7a9b2d4c68a1e3f5b7d9c0e2a4"
)

/**
 * The refresh token accepted when `refreshTokens` is not given.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultRefreshToken: Redacted.Redacted<string> = Redacted.make(
  "msim-user-refresh-default-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"
)

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** default {@link defaultBaseUrl}; a trailing slash is ignored */
  readonly baseUrl?: string | undefined
  /** user access tokens the backend accepts (default: {@link defaultUserAccessToken}) */
  readonly userAccessTokens?: ReadonlyArray<Redacted.Redacted<string>> | undefined
  /** refresh tokens the refresh route accepts (default: {@link defaultRefreshToken}) */
  readonly refreshTokens?: ReadonlyArray<Redacted.Redacted<string>> | undefined
  /** the initial user access tokens have expired: the backend answers 401 until a refresh */
  readonly userTokensExpired?: boolean | undefined
  /** a refresh also returns a new refresh token and invalidates the old one (default true) */
  readonly rotateRefreshTokens?: boolean | undefined
  /** the platform's Message limit (default 90) */
  readonly messageLimitSeconds?: number | undefined
  readonly sessions?: ReadonlyArray<SessionScenario.SessionScenarioInput> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** the base URL, without a trailing slash */
  readonly baseUrl: string
  /**
   * the `rpc_url` of a runtime the simulation serves:
   * `{baseUrl}/runtimes/{serviceUid}/` (a session with an external `rpcUrl`
   * is handed that URL instead)
   */
  readonly rpcUrl: (serviceUid: string) => string
  /** answers one request */
  readonly handle: (request: SimRequest) => Effect.Effect<SimResponse, SimulatedConnectionError>
  /** adds a session, or replaces the one with the same uid (its state starts afresh) */
  readonly addSession: (
    scenario: SessionScenario.SessionScenarioInput
  ) => Effect.Effect<SessionScenario.SessionScenario, SessionScenario.InvalidScenarioError>
  /**
   * changes a session's scenario, keeping its state (tokens, counters); a
   * changed `access` restarts the wake, a changed `agent.script` restarts the script
   */
  readonly updateSession: (
    sessionUid: string,
    update: (current: SessionScenario.SessionScenario) => SessionScenario.SessionScenarioInput
  ) => Effect.Effect<
    SessionScenario.SessionScenario,
    SessionScenario.InvalidScenarioError | SimulatedSessionNotFoundError
  >
  readonly removeSession: (sessionUid: string) => Effect.Effect<void, SimulatedSessionNotFoundError>
  readonly session: (
    sessionUid: string
  ) => Effect.Effect<SessionScenario.SessionScenario, SimulatedSessionNotFoundError>
  readonly sessions: Effect.Effect<ReadonlyArray<SessionScenario.SessionScenario>>
  /**
   * issues a new runtime token for the session; the old one is rejected from
   * now on (with the scenario's `staleTokenStatus`). Returns the new token's label.
   */
  readonly rotateRuntimeToken: (sessionUid: string) => Effect.Effect<string, SimulatedSessionNotFoundError>
  /** makes every user access token invalid (the backend answers 401 until a refresh) */
  readonly expireUserTokens: Effect.Effect<void>
  readonly requestLog: Effect.Effect<ReadonlyArray<RequestLogEntry>>
  readonly clearRequestLog: Effect.Effect<void>
  readonly counters: Effect.Effect<Counters>
  readonly tasks: Effect.Effect<ReadonlyArray<TaskSnapshot>>
}

/**
 * The simulated platform service.
 *
 * @since 0.1.0
 * @category tags
 */
export class SimulatedPlatform extends Context.Tag("@mainsequence/a2a-testing/SimulatedPlatform")<
  SimulatedPlatform,
  Service
>() {}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

const isHttpUrl = (text: string): boolean => URL.canParse(text) && ["http:", "https:"].includes(new URL(text).protocol)

// Checked as the scenarios are: a misspelt option would leave its default in silence.
const OptionsFields = Schema.Struct(
  {
    baseUrl: Schema.optional(Schema.String.pipe(Schema.filter(isHttpUrl, { message: () => "an http(s) URL" }))),
    userAccessTokens: Schema.optional(Schema.Array(Schema.RedactedFromSelf(Schema.String))),
    refreshTokens: Schema.optional(Schema.Array(Schema.RedactedFromSelf(Schema.String))),
    userTokensExpired: Schema.optional(Schema.Boolean),
    rotateRefreshTokens: Schema.optional(Schema.Boolean),
    messageLimitSeconds: Schema.optional(Schema.Number.pipe(Schema.finite(), Schema.positive())),
    sessions: Schema.optional(Schema.Array(Schema.Unknown))
  } satisfies Record<keyof Options, Schema.Struct.Field>
)

const checkOptions = (options: Options): Effect.Effect<void, SessionScenario.InvalidScenarioError> =>
  Schema.decodeUnknown(OptionsFields, { onExcessProperty: "error" })(options).pipe(
    Effect.mapError((error) =>
      new SessionScenario.InvalidScenarioError({
        issue: ParseResult.ArrayFormatter.formatErrorSync(error)
          // an optional value may be undefined: that alternative tells nothing
          .filter(({ message }) => !message.startsWith("Expected undefined"))
          .map(({ message, path }) => `the platform's option ${path.map(String).join(".")}: ${message}`)
          .join("; ")
      })
    ),
    Effect.asVoid
  )

/**
 * Creates a simulated platform.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Service, SessionScenario.InvalidScenarioError> =>
  Effect.gen(function*() {
    yield* checkOptions(options)
    const baseUrl = (options.baseUrl ?? defaultBaseUrl).replace(/\/+$/, "")
    const origin = new URL(baseUrl).origin
    const basePath = new URL(baseUrl).pathname.replace(/\/+$/, "")
    const messageLimitSeconds = options.messageLimitSeconds ?? 90
    const rotateRefreshTokens = options.rotateRefreshTokens ?? true
    const state = new PlatformState(yield* Random.nextIntBetween(1, 2 ** 31))

    for (const token of options.userAccessTokens ?? [defaultUserAccessToken]) {
      state.addUserToken(Redacted.value(token)).valid = options.userTokensExpired !== true
    }
    for (const token of options.refreshTokens ?? [defaultRefreshToken]) state.addRefreshToken(Redacted.value(token))

    /** decodes a scenario; an external `rpcUrl` must lie outside the platform's origin */
    const decodeScenario = (input: unknown) =>
      Effect.flatMap(
        SessionScenario.decode(input),
        (scenario) =>
          scenario.rpcUrl !== undefined && new URL(scenario.rpcUrl).origin === origin
            ? Effect.fail(
              new SessionScenario.InvalidScenarioError({
                issue: `rpcUrl ${scenario.rpcUrl} is on the simulated platform's own origin ${origin}; ` +
                  "an external runtime must be served elsewhere (omit rpcUrl to use the simulated runtime)"
              })
            )
            : Effect.succeed(scenario)
      )

    const startedAt = yield* Clock.currentTimeMillis
    for (const input of options.sessions ?? []) {
      const scenario = yield* decodeScenario(input)
      if (state.sessions.has(scenario.sessionUid)) {
        return yield* new SessionScenario.InvalidScenarioError({
          issue: `two sessions have the uid ${scenario.sessionUid}; give each session once`
        })
      }
      state.putSession(scenario, startedAt)
    }

    const platform: Platform = { state, baseUrl, origin, basePath, messageLimitSeconds, rotateRefreshTokens }

    const findSession = (sessionUid: string) =>
      Effect.suspend(() => {
        const session = state.sessions.get(sessionUid)
        return session === undefined
          ? Effect.fail(new SimulatedSessionNotFoundError({ sessionUid }))
          : Effect.succeed(session)
      })

    const service: Service = {
      baseUrl,
      rpcUrl: (serviceUid) => rpcUrlOf(baseUrl, serviceUid),
      handle: (request) =>
        Effect.mapError(dispatch(platform, request), (failure) => new SimulatedConnectionError(failure)),
      addSession: (input) =>
        Effect.gen(function*() {
          const scenario = yield* decodeScenario(input)
          state.putSession(scenario, yield* Clock.currentTimeMillis)
          return scenario
        }),
      updateSession: (sessionUid, update) =>
        Effect.gen(function*() {
          const session = yield* findSession(sessionUid)
          const next = yield* decodeScenario(update(session.scenario))
          if (next.sessionUid !== sessionUid) {
            return yield* new SessionScenario.InvalidScenarioError({ issue: "updateSession cannot change sessionUid" })
          }
          const current = state.sessions.get(sessionUid)
          if (current === undefined) return yield* new SimulatedSessionNotFoundError({ sessionUid })
          if (!sameJson(current.scenario.access, next.access)) {
            current.wakeStartedAtMs = null
            current.wakeOperationUid = null
          }
          if (!sameJson(current.scenario.agent.script, next.agent.script)) current.scriptIndex = 0
          if (!sameJson(current.scenario.token, next.token)) current.rejectedFirstSends = 0
          current.scenario = next
          return next
        }),
      removeSession: (sessionUid) =>
        Effect.flatMap(findSession(sessionUid), (session) =>
          Effect.sync(() => {
            if (session.currentToken !== null) session.currentToken.revoked = true
            state.sessions.delete(sessionUid)
          })),
      session: (sessionUid) => Effect.map(findSession(sessionUid), (session) => session.scenario),
      sessions: Effect.sync(() => [...state.sessions.values()].map((session) => session.scenario)),
      rotateRuntimeToken: (sessionUid) =>
        Effect.gen(function*() {
          const session = yield* findSession(sessionUid)
          const nowMs = yield* Clock.currentTimeMillis
          if (session.currentToken !== null) session.currentToken.revoked = true
          return state.mintRuntimeToken(session, nowMs).label
        }),
      expireUserTokens: Effect.sync(() => {
        for (const token of state.userTokens) token.valid = false
      }),
      requestLog: Effect.sync(() => state.log.map(snapshotEntry)),
      clearRequestLog: Effect.sync(() => {
        state.log.length = 0
      }),
      counters: Effect.sync((): Counters => ({
        resolveCalls: { ...state.counters.resolveCalls },
        sends: { ...state.counters.sends },
        sessionDetailCalls: { ...state.counters.sessionDetailCalls },
        agentDetailCalls: { ...state.counters.agentDetailCalls },
        discoveryCalls: state.counters.discoveryCalls,
        taskGets: state.counters.taskGets,
        taskCancels: state.counters.taskCancels,
        refreshes: state.counters.refreshes,
        runtimeTokensIssued: state.counters.runtimeTokensIssued
      })),
      tasks: Effect.map(Clock.currentTimeMillis, (nowMs) =>
        [...state.tasks.values()].map((task): TaskSnapshot => ({
          id: task.id,
          sessionUid: task.sessionUid,
          state: taskStateAt(task, nowMs).state,
          createdAtMs: task.createdAtMs,
          task: renderTask(task, nowMs)
        })))
    }
    return service
  })

/**
 * A layer with a simulated platform.
 *
 * @example
 * import { SimulatedHttpClient, SimulatedPlatform } from "@mainsequence/a2a-testing"
 * import { Effect, Layer } from "effect"
 *
 * // A session whose runtime wakes over 3 s of (test) clock time; meanwhile a resolve answers `waking`, retry in 1 s.
 * const platform = SimulatedPlatform.layer({
 *   sessions: [{
 *     sessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
 *     agentUid: "5a1c7d0e-3b4f-4e2a-9c8d-7f6e5d4c3b2a",
 *     serviceUid: "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f",
 *     access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 1000, durationMs: 3000 }] }
 *   }]
 * })
 *
 * // With the in-memory HttpClient on top (what `layerTest` is), for code that sends over HTTP.
 * export const layer = SimulatedHttpClient.layer.pipe(Layer.provideMerge(platform))
 *
 * // After the code under test ran: the message:send bodies that broke the A2A v1 schema (none, hopefully).
 * export const nonConformantSends = Effect.map(
 *   Effect.flatMap(SimulatedPlatform.SimulatedPlatform, (service) => service.requestLog),
 *   (log) => log.filter((entry) => entry.schemaViolation !== null)
 * )
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<SimulatedPlatform, SessionScenario.InvalidScenarioError> =>
  Layer.effect(SimulatedPlatform, make(options))
