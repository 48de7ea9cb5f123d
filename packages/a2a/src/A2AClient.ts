/**
 * The `A2AClient` service: send a message to an existing Main Sequence `AgentSession.uid`, and follow a
 * Task through get / wait / cancel.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as A2AError from "./A2AError.js"
import type * as A2AProtocol from "./A2AProtocol.js"
import { bearerTokenProblem } from "./internal/bearerToken.js"
import { makeClientEnv, maxResponseBytesProblem } from "./internal/clientEnv.js"
import { backendUrlProblem } from "./internal/httpUrl.js"
import type * as Options from "./internal/options.js"
import * as pipeline from "./internal/pipeline.js"
import * as tasks from "./internal/tasks.js"
import type * as RuntimeAccessCache from "./RuntimeAccessCache.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SendA2AMessageInput extends Options.SendA2AMessageInput {}

/**
 * @since 0.1.0
 * @category models
 */
export interface TaskCallOptions extends Options.TaskCallOptions {}

/**
 * @since 0.1.0
 * @category models
 */
export interface A2AClientOptions extends Options.A2AClientOptions {}

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
 * `MAINSEQUENCE_REFRESH_TOKEN`, `MAINSEQUENCE_USERNAME` and `MAINSEQUENCE_MAX_RESPONSE_BYTES` (an empty one is
 * not set). An endpoint that is not an `http:` or `https:` base URL is `InvalidData`, and so are an access token
 * (trimmed) that an HTTP header cannot carry and a byte limit that is not a positive integer.
 *
 * @since 0.1.0
 * @category config
 */
export const config: Config.Config<A2AClientOptions> = Config.all({
  backendUrl: Config.nonEmptyString("MAINSEQUENCE_ENDPOINT").pipe(Config.mapOrFail((url) => {
    const problem = backendUrlProblem(url.trim())
    return problem === undefined ? Either.right(url) : Either.left(ConfigError.InvalidData([], problem))
  })),
  accessToken: Config.nonEmptyString("MAINSEQUENCE_ACCESS_TOKEN").pipe(Config.mapOrFail((token) => {
    const problem = bearerTokenProblem(token.trim())
    return problem === undefined
      ? Either.right(Redacted.make(token.trim()))
      : Either.left(ConfigError.InvalidData([], problem))
  })),
  refreshToken: Config.option(Config.redacted(Config.nonEmptyString("MAINSEQUENCE_REFRESH_TOKEN"))),
  username: Config.option(Config.nonEmptyString("MAINSEQUENCE_USERNAME")),
  maxResponseBytes: Config.option(
    Config.nonEmptyString("MAINSEQUENCE_MAX_RESPONSE_BYTES").pipe(Config.mapOrFail((text) => {
      const bytes = Number(text.trim())
      const problem = maxResponseBytesProblem(/^\d+$/.test(text.trim()) ? bytes : text)
      return problem === undefined ? Either.right(bytes) : Either.left(ConfigError.InvalidData([], problem))
    }))
  )
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
