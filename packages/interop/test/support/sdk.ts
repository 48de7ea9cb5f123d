/**
 * Running the SDK (`A2AClient` on the Node layer) against the harness servers, recording everything it
 * prints, logs and traces, and every error rendering, into a {@link Captured}.
 */
import { A2AClient } from "@mainsequence/a2a"
import * as A2ANode from "@mainsequence/a2a/node"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { makeRecorder, spanExitLines, spanLines, textOf } from "./recording.js"
import { type Captured, secrets } from "./secrets.js"

export interface SdkOptions {
  readonly backendUrl: string
  readonly accessToken?: string
  readonly refreshToken?: string
  readonly username?: string
  readonly maxResponseBytes?: number
  /** The Node layer's proxy option (default: from the environment). */
  readonly proxy?: A2ANode.ProxyOption
  readonly noProxy?: string
}

export interface SdkRun<A, E> {
  readonly exit: Exit.Exit<A, E>
  readonly ms: number
  /** The typed failure, if the run failed with one. */
  readonly error: E | undefined
}

/** Errors inside a success value (a test that flipped its failures), one or two levels deep. */
const errorsIn = (value: unknown, depth = 2): ReadonlyArray<Error> => {
  if (value instanceof Error) return [value]
  if (depth === 0 || typeof value !== "object" || value === null) return []
  const children: ReadonlyArray<unknown> = Array.isArray(value) ? value : Object.values(value)
  return children.flatMap((child) => errorsIn(child, depth - 1))
}

/** Renders a failure every way a caller might, into `captured`. */
export const captureFailure = (captured: Captured, label: string, cause: Cause.Cause<unknown>): void => {
  captured.add(`error:Cause.pretty ${label}`, Cause.pretty(cause, { renderErrorCause: true }))
  const error = Cause.squash(cause)
  captured.add(`error:String ${label}`, String(error))
  captured.add(`error:JSON ${label}`, JSON.stringify(error) ?? "")
  captured.add(`error:message ${label}`, error instanceof Error ? error.message : "")
  captured.add(`error:inspect ${label}`, textOf(error))
}

/**
 * Runs `use(client)` with a fresh Node client (fresh in-memory cache) under a recording Logger and Tracer, and
 * logs its answer or failure as an application would. Logs, span attributes/events/exits, the success value and
 * every rendering of a failure go to `captured`.
 */
export const runSdk = async <A, E>(
  captured: Captured,
  label: string,
  options: SdkOptions,
  use: (client: A2AClient.Service) => Effect.Effect<A, E>
): Promise<SdkRun<A, E>> => {
  const recorder = makeRecorder()
  const layer = A2ANode.layer({
    backendUrl: options.backendUrl,
    accessToken: Redacted.make(options.accessToken ?? secrets.userAccess),
    ...(options.refreshToken === undefined ? {} : { refreshToken: Redacted.make(options.refreshToken) }),
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
    ...(options.proxy === undefined ? {} : { proxy: options.proxy }),
    ...(options.noProxy === undefined ? {} : { noProxy: options.noProxy })
  }).pipe(Layer.orDie)
  const program = Effect.flatMap(A2AClient.A2AClient, use).pipe(
    // What an application logs of a call: its answer, or its failure with the whole cause.
    Effect.tapErrorCause((cause) => Effect.logError("the call failed", cause)),
    Effect.tap((value) => Effect.logDebug("the call's answer", value)),
    Effect.provide(layer),
    recorder.provide
  )
  const started = performance.now()
  const exit = await Effect.runPromiseExit(program)
  const ms = performance.now() - started
  for (const line of recorder.lines) captured.add(`log ${label}`, line)
  for (const line of spanLines(recorder.spans)) captured.add(`span ${label}`, line)
  for (const line of spanExitLines(recorder.spans)) captured.add(`span-exit ${label}`, line)
  let error: E | undefined
  if (Exit.isFailure(exit)) {
    captureFailure(captured, label, exit.cause)
    error = Option.getOrUndefined(Cause.failureOption(exit.cause))
  } else {
    captured.add(`result ${label}`, textOf(exit.value))
    // Failures a test flipped into values are rendered like any failure.
    for (const flipped of errorsIn(exit.value)) captureFailure(captured, label, Cause.fail(flipped))
  }
  return { exit, ms, error }
}

/** The success value of a run, or a thrown error with the pretty cause. */
export const successOf = <A, E>(run: SdkRun<A, E>): A => {
  if (Exit.isSuccess(run.exit)) return run.exit.value
  throw new Error(`expected success, got:\n${Cause.pretty(run.exit.cause)}`)
}

/** The typed failure of a run, or a thrown error. */
export const failureOf = <A, E>(run: SdkRun<A, E>): E => {
  if (Exit.isFailure(run.exit) && run.error !== undefined) return run.error
  throw new Error(
    `expected a typed failure, got: ${Exit.isSuccess(run.exit) ? textOf(run.exit.value) : Cause.pretty(run.exit.cause)}`
  )
}
