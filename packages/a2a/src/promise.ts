/**
 * A Promise face of the SDK for callers who do not use Effect (Node.js only).
 *
 * This is a thin layer over the Effect API: {@link makeA2AClient} builds the `A2AClient` of
 * `@mainsequence/a2a/node` once, in a `ManagedRuntime`, and every method runs the matching Effect
 * method on it. The behaviour (pipeline, budget, cache, errors) is the Effect API's.
 *
 * - A failure rejects with the SDK's own error, so `instanceof A2AError.ServerError` and
 *   `error._tag === "A2AMessageLimitExceededError"` both work. An unexpected defect rejects with an `Error`.
 * - Every call takes an optional `AbortSignal`; aborting interrupts the call and rejects with the signal's
 *   reason.
 * - `dispose()` closes the connections and the runtime; call it once you are done (or make the client with
 *   `await using`). A call still in flight then rejects as interrupted ("the client was disposed"), a Task
 *   wait at its next poll; a later call rejects with an `Error` saying so.
 * - Make one client and keep it for the program's life: the runtime-access cache and the connection pool
 *   live as long as the client, so a client made (or an `Effect.provide(layer)` done) per call starts cold
 *   every time — a new resolve and new connections.
 *
 * @example
 * import { A2AError, A2AProtocol } from "@mainsequence/a2a"
 * import { makeA2AClient } from "@mainsequence/a2a/promise"
 *
 * // one client for the program's life (one access cache, one connection pool); `dispose()` at shutdown
 * export const client = makeA2AClient({ backendUrl: "https://api.main-sequence.app", accessToken: "…" })
 *
 * export async function ask(agentSessionUid: string, question: string): Promise<string | undefined> {
 *   try {
 *     const answer = await client.sendA2AMessage(agentSessionUid, { message: question })
 *     return A2AProtocol.textOf(answer).join("\n")
 *   } catch (error) {
 *     if (error instanceof A2AError.A2AMessageLimitExceededError) return undefined // too long: use a Task
 *     throw error
 *   }
 * }
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as A2AClient from "./A2AClient.js"
import * as A2AError from "./A2AError.js"
import type * as A2AProtocol from "./A2AProtocol.js"
import { optionsObjectReason } from "./internal/describeValue.js"
import * as A2ANode from "./node.js"

/**
 * Where the client connects and as whom, and how it reaches them: the Node layer's options
 * (`A2ANode.LayerOptions`). Tokens may be plain strings or `Redacted` values.
 *
 * @since 0.1.0
 * @category models
 */
export interface MakeA2AClientOptions extends A2ANode.LayerOptions {}

/**
 * Per-call options of the Promise client.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** Aborting it interrupts the call; the Promise rejects with `signal.reason`. */
  readonly signal?: AbortSignal | undefined
}

/**
 * Per-call options of the Task methods.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskCallOptions extends A2AClient.TaskCallOptions, CallOptions {}

/**
 * The Promise client. Each method mirrors the `A2AClient` method of the same name.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseA2AClient {
  readonly sendA2AMessage: {
    (
      agentSessionUid: string,
      input: A2AClient.SendA2AMessageInput & { readonly responseKind: "task" },
      options?: CallOptions
    ): Promise<A2AProtocol.Task>
    (
      agentSessionUid: string,
      input: A2AClient.SendA2AMessageInput & {
        readonly responseKind?: "message" | undefined
        readonly taskId?: undefined
      },
      options?: CallOptions
    ): Promise<A2AProtocol.Message>
    (
      agentSessionUid: string,
      input: A2AClient.SendA2AMessageInput,
      options?: CallOptions
    ): Promise<A2AProtocol.Message | A2AProtocol.Task>
  }
  readonly getA2ATask: (agentSessionUid: string, taskId: string, options?: TaskCallOptions) => Promise<A2AProtocol.Task>
  readonly waitForA2ATask: (
    agentSessionUid: string,
    taskId: string,
    options?: TaskCallOptions
  ) => Promise<A2AProtocol.Task>
  readonly cancelA2ATask: (
    agentSessionUid: string,
    taskId: string,
    options?: TaskCallOptions
  ) => Promise<A2AProtocol.Task>
  /** Closes the connections and the runtime. Calls made afterwards reject. */
  readonly dispose: () => Promise<void>
  /** `dispose()`, so that `await using client = makeA2AClient()` disposes of the client at the end of its block. */
  readonly [Symbol.asyncDispose]: () => Promise<void>
}

// Each kind of per-call options: its fields, and how a refusal shows it.
const callOptionsShape = {
  fields: Object.keys({ signal: null } satisfies Record<keyof CallOptions, null>),
  example: "{ signal }"
}
const taskCallOptionsShape = {
  fields: Object.keys({ signal: null, timeout: null } satisfies Record<keyof TaskCallOptions, null>),
  example: "{ timeout: 30, signal }"
}

// A value of another type is passed on as it is: the client reports it (never quoting a token).
const redacted = <A>(token: A): A | Redacted.Redacted<string> =>
  typeof token === "string" ? Redacted.make(token) : token

// Options that are no object (an untyped caller's `null`) are read as none: each call says what is missing.
const toLayerOptions = (given: MakeA2AClientOptions): A2ANode.LayerOptions => {
  const options: MakeA2AClientOptions = typeof given === "object" && given !== null
    ? given
    : { backendUrl: "", accessToken: "" }
  return {
    ...options,
    accessToken: redacted(options.accessToken),
    refreshToken: redacted(options.refreshToken),
    proxy: options.proxy === undefined || options.proxy === "environment" || options.proxy === "none"
      ? options.proxy
      : redacted(options.proxy)
  }
}

const interruptedReason = (signal: AbortSignal | undefined, disposed: boolean): unknown =>
  signal?.aborted === true
    ? signal.reason
    : new Error(disposed ? "The call was interrupted: the client was disposed" : "The call was interrupted")

/** The typed failure when there is one, else the abort reason, else the defect as an `Error`. */
const rejection = <E>(cause: Cause.Cause<E>, signal: AbortSignal | undefined, disposed: boolean): unknown => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    // the SDK's errors are `Error`s; a configuration failure (no options, a variable missing) is not
    return failure.value instanceof Error ? failure.value : new Error(String(failure.value), { cause: failure.value })
  }
  if (Cause.isInterruptedOnly(cause)) return interruptedReason(signal, disposed)
  const defect = Cause.squash(cause)
  return defect instanceof Error ? defect : new Error(Cause.pretty(cause))
}

// The Node layer refuses a proxy option as configuration; here it is an option like the others.
const proxyOptionError = (error: ConfigError.ConfigError): ConfigError.ConfigError | A2AError.A2AInputError => {
  if (!ConfigError.isInvalidData(error)) return error
  const field = error.path[0]
  return field === "proxy" || field === "noProxy"
    ? new A2AError.A2AInputError({ field, reason: error.message.replace(`The ${field} option `, "") })
    : error
}

/**
 * Builds a Promise client on undici with an in-memory access cache. Without options it reads
 * `MAINSEQUENCE_ENDPOINT`, `MAINSEQUENCE_ACCESS_TOKEN` and the optional `MAINSEQUENCE_REFRESH_TOKEN`,
 * `MAINSEQUENCE_USERNAME` and `MAINSEQUENCE_MAX_RESPONSE_BYTES` from the environment (a missing or unusable
 * variable rejects every call of the client). Requests go
 * through the proxy of the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`) unless `proxy` says otherwise.
 *
 * @example
 * import { makeA2AClient } from "@mainsequence/a2a/promise"
 *
 * // a long job as a Task; `signal` lets the caller give up
 * export async function runJob(agentSessionUid: string, job: string, signal?: AbortSignal) {
 *   const client = makeA2AClient() // options from the environment
 *   try {
 *     const task = await client.sendA2AMessage(agentSessionUid, { message: job, responseKind: "task" }, { signal })
 *     return await client.waitForA2ATask(agentSessionUid, task.id, { timeout: 3600, signal })
 *   } finally {
 *     await client.dispose()
 *   }
 * }
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeA2AClient = (options?: MakeA2AClientOptions): PromiseA2AClient => {
  const layer: Layer.Layer<A2AClient.A2AClient, ConfigError.ConfigError | A2AError.A2AInputError> =
    options === undefined
      ? A2ANode.layerConfig()
      : Layer.mapError(A2ANode.layer(toLayerOptions(options)), proxyOptionError)
  const runtime = ManagedRuntime.make(layer)
  let disposed = false

  const run = async <A, E>(
    call: (client: A2AClient.Service) => Effect.Effect<A, E>,
    options: CallOptions | undefined,
    shape: { readonly fields: ReadonlyArray<string>; readonly example: string }
  ): Promise<A> => {
    const problem = options === undefined ? undefined : optionsObjectReason(options, shape.fields, shape.example)
    if (problem !== undefined) throw new A2AError.A2AInputError({ field: "options", reason: problem })
    const signal = options?.signal
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw new A2AError.A2AInputError({ field: "signal", reason: "must be an AbortSignal" })
    }
    if (disposed) throw new Error("The client was disposed: make a new one for more calls")
    const exit = await runtime.runPromiseExit(
      Effect.flatMap(A2AClient.A2AClient, call),
      signal === undefined ? undefined : { signal }
    )
    if (Exit.isSuccess(exit)) return exit.value
    throw rejection(exit.cause, signal, disposed)
  }

  function sendA2AMessage(
    agentSessionUid: string,
    input: A2AClient.SendA2AMessageInput & { readonly responseKind: "task" },
    options?: CallOptions
  ): Promise<A2AProtocol.Task>
  function sendA2AMessage(
    agentSessionUid: string,
    input: A2AClient.SendA2AMessageInput & {
      readonly responseKind?: "message" | undefined
      readonly taskId?: undefined
    },
    options?: CallOptions
  ): Promise<A2AProtocol.Message>
  function sendA2AMessage(
    agentSessionUid: string,
    input: A2AClient.SendA2AMessageInput,
    options?: CallOptions
  ): Promise<A2AProtocol.Message | A2AProtocol.Task>
  function sendA2AMessage(
    agentSessionUid: string,
    input: A2AClient.SendA2AMessageInput,
    options?: CallOptions
  ): Promise<A2AProtocol.Message | A2AProtocol.Task> {
    return run((client) => client.sendA2AMessage(agentSessionUid, input), options, callOptionsShape)
  }

  const dispose = (): Promise<void> => {
    disposed = true
    return runtime.dispose()
  }

  const taskOptions = (options: TaskCallOptions | undefined): A2AClient.TaskCallOptions =>
    options?.timeout === undefined ? {} : { timeout: options.timeout }

  return {
    sendA2AMessage,
    getA2ATask: (agentSessionUid, taskId, options) =>
      run((client) => client.getA2ATask(agentSessionUid, taskId, taskOptions(options)), options, taskCallOptionsShape),
    waitForA2ATask: (agentSessionUid, taskId, options) =>
      run(
        (client) => client.waitForA2ATask(agentSessionUid, taskId, taskOptions(options)),
        options,
        taskCallOptionsShape
      ),
    cancelA2ATask: (agentSessionUid, taskId, options) =>
      run(
        (client) => client.cancelA2ATask(agentSessionUid, taskId, taskOptions(options)),
        options,
        taskCallOptionsShape
      ),
    dispose,
    [Symbol.asyncDispose]: dispose
  }
}
