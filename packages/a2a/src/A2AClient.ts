/**
 * The `A2AClient` service: send a message to an existing Main Sequence `AgentSession.uid`, and follow a
 * Task through get / wait / cancel.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as A2AError from "./A2AError.js"
import type * as A2AProtocol from "./A2AProtocol.js"
import type * as Attachment from "./Attachment.js"
import { makeClientEnv } from "./internal/clientEnv.js"
import * as pipeline from "./internal/pipeline.js"
import * as tasks from "./internal/tasks.js"
import type * as RuntimeAccessCache from "./RuntimeAccessCache.js"
import type * as Timeout from "./Timeout.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SendA2AMessageInput {
  /** The text of the message; blank is an error. */
  readonly message: string
  /** The caller's message id (trimmed, `^[A-Za-z0-9._:-]{1,128}$`); default `msg-<uuid v4>`. */
  readonly messageId?: string | undefined
  /** Ask for a strict JSON dictionary answer. */
  readonly strictDictionary?: boolean | undefined
  /** With `strictDictionary`: how often the platform may repair invalid JSON (integer ≥ 1, default 3). */
  readonly jsonRepairAttempts?: number | undefined
  readonly attachments?: ReadonlyArray<Attachment.Attachment> | undefined
  /**
   * `"message"` (default) or `"task"` (only for Agents that advertise Task support). A follow-up turn
   * (`taskId`) must say `"task"`: a `taskId` without it is an `A2AInputError`, nothing sent.
   */
  readonly responseKind?: A2AProtocol.ResponseKind | undefined
  /**
   * A follow-up turn (SPEC §7): the id of an interrupted Task (`INPUT_REQUIRED` / `AUTH_REQUIRED`) this
   * message answers, sent as `message.taskId`. Task mode only (`responseKind: "task"`); the answer must be
   * that same Task (same `id`), else `InvalidA2AResponseError` with rule `task-id`. Trimmed; blank is an error.
   */
  readonly taskId?: string | undefined
  /** Ids of other Tasks this message refers to, sent as `message.referenceTaskIds` as given (non-blank). */
  readonly referenceTaskIds?: ReadonlyArray<string> | undefined
  /** Task mode: the Agent's A2A profile, when the caller has it (skips discovery). */
  readonly agentProfile?: A2AProtocol.A2AProfile | undefined
  /** The call's budget; default `[5, 900]`. */
  readonly timeout?: Timeout.Timeout | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface TaskCallOptions {
  readonly timeout?: Timeout.Timeout | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface A2AClientOptions {
  /** The backend base URL, e.g. `https://api.main-sequence.app`. */
  readonly backendUrl: string
  /** The user's access token for the backend; a plain string is wrapped in `Redacted` at once. */
  readonly accessToken: string | Redacted.Redacted<string>
  /** Used once to refresh the access token when the backend answers 401; a plain string is redacted at once. */
  readonly refreshToken?: string | Redacted.Redacted<string> | undefined
  /** Scopes the access cache; without it, a hash of the access token does. */
  readonly username?: string | undefined
  /**
   * The largest answer (backend or runtime) the client reads, in bytes; default {@link defaultMaxResponseBytes}.
   * A larger one is refused from its `Content-Length`, or once its body passes the limit.
   */
  readonly maxResponseBytes?: number | undefined
}

/**
 * The default `maxResponseBytes`: 64 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxResponseBytes = 64 * 1024 * 1024

/**
 * `sendA2AMessage`: a Task for `responseKind: "task"` (a follow-up turn with `taskId` is one), else a Message.
 *
 * @since 0.1.0
 * @category models
 */
export interface SendA2AMessage {
  (
    agentSessionUid: string,
    input: SendA2AMessageInput & { readonly responseKind: "task" }
  ): Effect.Effect<A2AProtocol.Task, A2AError.SendError>
  (
    agentSessionUid: string,
    input: SendA2AMessageInput & { readonly responseKind?: "message" | undefined; readonly taskId?: undefined }
  ): Effect.Effect<A2AProtocol.Message, A2AError.SendError>
  (
    agentSessionUid: string,
    input: SendA2AMessageInput
  ): Effect.Effect<A2AProtocol.Message | A2AProtocol.Task, A2AError.SendError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly sendA2AMessage: SendA2AMessage
  readonly getA2ATask: (
    agentSessionUid: string,
    taskId: string,
    options?: TaskCallOptions
  ) => Effect.Effect<A2AProtocol.Task, A2AError.TaskError>
  readonly waitForA2ATask: (
    agentSessionUid: string,
    taskId: string,
    options?: TaskCallOptions
  ) => Effect.Effect<A2AProtocol.Task, A2AError.TaskError>
  readonly cancelA2ATask: (
    agentSessionUid: string,
    taskId: string,
    options?: TaskCallOptions
  ) => Effect.Effect<A2AProtocol.Task, A2AError.TaskError>
}

/**
 * The client service. Get it from the context; a layer (`layerConfig`, or `layerConfig` of
 * `@mainsequence/a2a/node`) provides it. Failures are tagged errors of `A2AError`.
 *
 * @example
 * import { A2AClient, A2AProtocol } from "@mainsequence/a2a"
 * import * as Effect from "effect/Effect"
 *
 * // ask an Agent session a question; a Message-limit answer becomes a hint to use Task mode
 * export const ask = (agentSessionUid: string, question: string) =>
 *   Effect.gen(function*() {
 *     const client = yield* A2AClient.A2AClient
 *     const answer = yield* client.sendA2AMessage(agentSessionUid, { message: question, timeout: [5, 120] })
 *     return A2AProtocol.textOf(answer).join("\n")
 *   }).pipe(
 *     Effect.catchTag("A2AMessageLimitExceededError", () => Effect.succeed("Too long for a Message: use a Task"))
 *   )
 *
 * @since 0.1.0
 * @category tags
 */
export class A2AClient extends Context.Tag("@mainsequence/a2a/A2AClient")<A2AClient, Service>() {}

/**
 * Builds the client on the `HttpClient` and `RuntimeAccessCache` in context. The scope is the client's own:
 * a session's resolution (and transient wait) runs in it, for the calls that wait for it, and ends with it.
 * Unusable options (a blank backend URL or access token) make every call fail with `A2AInputError` before
 * any request.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  clientOptions: A2AClientOptions
): Effect.Effect<Service, never, HttpClient.HttpClient | RuntimeAccessCache.RuntimeAccessCache | Scope.Scope> =>
  Effect.gen(function*() {
    const env = yield* makeClientEnv(clientOptions, defaultMaxResponseBytes)

    // The answer checks (internal/answers.ts) admit only a schema-valid Task in Task mode and only a Message
    // otherwise, and a `taskId` without Task mode fails before sending: the overloads state that rule.
    const sendA2AMessage = ((agentSessionUid: string, input: SendA2AMessageInput) =>
      pipeline.sendMessage(env, agentSessionUid, input)) as SendA2AMessage

    return A2AClient.of({
      sendA2AMessage,
      getA2ATask: (agentSessionUid, taskId, options) =>
        tasks.getTask(env, agentSessionUid, taskId, options),
      waitForA2ATask: (agentSessionUid, taskId, options) => tasks.waitForTask(env, agentSessionUid, taskId, options),
      cancelA2ATask: (agentSessionUid, taskId, options) => tasks.cancelTask(env, agentSessionUid, taskId, options)
    })
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: A2AClientOptions
): Layer.Layer<A2AClient, never, HttpClient.HttpClient | RuntimeAccessCache.RuntimeAccessCache> =>
  Layer.scoped(A2AClient, make(options))

/**
 * The options from the environment: `MAINSEQUENCE_ENDPOINT`, `MAINSEQUENCE_ACCESS_TOKEN`, and the optional
 * `MAINSEQUENCE_REFRESH_TOKEN`, `MAINSEQUENCE_USERNAME` and `MAINSEQUENCE_MAX_RESPONSE_BYTES`.
 *
 * @since 0.1.0
 * @category config
 */
export const config: Config.Config<A2AClientOptions> = Config.all({
  backendUrl: Config.nonEmptyString("MAINSEQUENCE_ENDPOINT"),
  accessToken: Config.redacted(Config.nonEmptyString("MAINSEQUENCE_ACCESS_TOKEN")),
  refreshToken: Config.option(Config.redacted(Config.nonEmptyString("MAINSEQUENCE_REFRESH_TOKEN"))),
  username: Config.option(Config.nonEmptyString("MAINSEQUENCE_USERNAME")),
  maxResponseBytes: Config.option(Config.integer("MAINSEQUENCE_MAX_RESPONSE_BYTES"))
}).pipe(Config.map(({ accessToken, backendUrl, maxResponseBytes, refreshToken, username }): A2AClientOptions => ({
  backendUrl,
  accessToken,
  refreshToken: Option.getOrUndefined(refreshToken),
  username: Option.getOrUndefined(username),
  maxResponseBytes: Option.getOrUndefined(maxResponseBytes)
})))

/**
 * The client with its options from a `Config` (default {@link config}: the `MAINSEQUENCE_*` environment).
 * It needs an `HttpClient` and a `RuntimeAccessCache`.
 *
 * @example
 * import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
 * import { A2AClient, RuntimeAccessCache } from "@mainsequence/a2a"
 * import * as Layer from "effect/Layer"
 *
 * // nothing is read or connected until the layer is built
 * export const A2AClientLive = A2AClient.layerConfig().pipe(
 *   Layer.provide(Layer.merge(NodeHttpClient.layerUndici, RuntimeAccessCache.layerMemory))
 * )
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Config.Config<A2AClientOptions> = config
): Layer.Layer<A2AClient, ConfigError.ConfigError, HttpClient.HttpClient | RuntimeAccessCache.RuntimeAccessCache> =>
  Layer.scoped(A2AClient, Effect.flatMap(options, make))
