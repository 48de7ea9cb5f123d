/**
 * Runs one SDK call the CLI way: the `A2AClient` built from the environment for this call (only after the
 * command line was checked, so bad input is reported even without configuration), progress on stderr, and
 * the message id the SDK prepared recorded for the run's report (see `RunRecord`), also when interrupted.
 *
 * The client's layer is a service (`ClientEnvironment`): `bin.ts` provides the real one (environment, undici
 * HTTP, file cache); tests provide a fake.
 *
 * @since 0.1.0
 */
import { A2AClient, A2AProgress } from "@mainsequence/a2a"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { CliConfigError } from "./CliConfig.js"
import type { Output } from "./Output.js"
import * as Progress from "./Progress.js"
import * as RunRecord from "./RunRecord.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Environment {
  /** The client's layer; with `debug`, it writes each HTTP exchange to stderr (see `HttpDebug.ts`). */
  readonly layer: (settings: ClientSettings) => Layer.Layer<A2AClient.A2AClient, CliConfigError, Output>
}

/**
 * @since 0.2.0
 * @category models
 */
export interface ClientSettings {
  readonly debug: boolean
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ClientEnvironment extends Context.Tag("@mainsequence/cli/ClientEnvironment")<
  ClientEnvironment,
  Environment
>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** The message id given on the command line, if any. */
  readonly messageId?: string | undefined
  /** `--debug`: write each HTTP exchange to stderr. */
  readonly debug?: boolean | undefined
}

/**
 * Runs `f` with the client.
 *
 * @since 0.1.0
 * @category running
 */
export const run = <A, E, R>(
  f: (client: A2AClient.Service) => Effect.Effect<A, E, R>,
  options?: CallOptions
): Effect.Effect<
  A,
  E | CliConfigError,
  Exclude<Exclude<R, A2AClient.A2AClient>, A2AProgress.A2AProgress> | ClientEnvironment | Output
> =>
  Effect.gen(function*() {
    const environment = yield* ClientEnvironment
    const progress = yield* Progress.make
    yield* RunRecord.record({ messageId: options?.messageId })
    return yield* Effect.flatMap(A2AClient.A2AClient, f).pipe(
      Effect.provide(environment.layer({ debug: options?.debug === true })),
      Effect.provideService(A2AProgress.A2AProgress, progress.service),
      Effect.ensuring(progress.clear),
      Effect.ensuring(
        Effect.flatMap(
          Effect.all([progress.messageId, progress.messageSending]),
          ([prepared, messageSending]) =>
            RunRecord.record({ messageId: Option.getOrUndefined(prepared), messageSending })
        )
      )
    )
  })
