/**
 * `mainsequence dev platform [--port N]`: serves the reference platform (the simulation of
 * `@mainsequence/a2a-testing`, real HTTP, real clock) on 127.0.0.1, prints where it is and how to point the
 * CLI at it, and runs until interrupted (Ctrl-C).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { A2AError } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { parseInteger } from "../flags/number.js"
import { validatedBy } from "../flags/validated.js"
import * as GroupHelp from "../GroupHelp.js"
import { type Output, type OutputWriteError, printLine } from "../Output.js"

/**
 * The reference platform could not be started.
 *
 * @since 0.1.0
 * @category errors
 */
export class DevPlatformError extends Schema.TaggedError<DevPlatformError>()("DevPlatformError", {
  reason: Schema.String
}) {
  override get message(): string {
    return `Cannot start the reference platform: ${this.reason}`
  }
}

const flags = {
  port: Options.text("port").pipe(
    Options.withPseudoName("N"),
    validatedBy((text: string) =>
      Effect.filterOrFail(
        parseInteger("port", text),
        (port) => port >= 0 && port <= 65535,
        (port) => new A2AError.A2AInputError({ field: "port", reason: `must be between 0 and 65535 (got ${port})` })
      )
    ),
    Options.withDescription("The port on 127.0.0.1 (default 0: any free port)"),
    Options.withDefault(0)
  )
} as const

/**
 * The lines printed once the platform listens.
 *
 * @since 0.1.0
 * @category rendering
 */
export const banner = (
  url: string,
  accessToken: string,
  sessions: ReadonlyArray<{ readonly sessionUid: string; readonly name?: string | undefined }>
): ReadonlyArray<string> => [
  `Main Sequence reference platform (simulated) listening on ${url} — Ctrl-C to stop`,
  "",
  `export MAINSEQUENCE_ENDPOINT=${url}`,
  `export MAINSEQUENCE_ACCESS_TOKEN=${accessToken}`,
  "",
  "Demo sessions:",
  ...sessions.map((session) => `  ${session.sessionUid}  ${session.name ?? ""}`.trimEnd()),
  "",
  `Try: mainsequence agent session a2a send ${sessions[0]?.sessionUid ?? "<agent_session_uid>"} --message "Hello"`
]

const reasonOf = (error: { readonly message: string; readonly cause?: unknown }, port: number): string => {
  const code = Predicate.hasProperty(error.cause, "code") ? error.cause.code : undefined
  return code === "EADDRINUSE"
    ? `port ${port} on 127.0.0.1 is in use (choose another with --port N, or leave --port out for a free one)`
    : code === "EACCES"
    ? `port ${port} needs privileges this user does not have (choose one above 1023 with --port N)`
    : error.message !== ""
    ? error.message
    : Predicate.hasProperty(error.cause, "message") && Predicate.isString(error.cause.message)
    ? error.cause.message
    : "the server could not listen"
}

/**
 * Serves the reference platform until interrupted.
 *
 * @since 0.1.0
 * @category handlers
 */
export const runDevPlatform = (
  flags: { readonly port: number }
): Effect.Effect<void, DevPlatformError | OutputWriteError, Output> =>
  Effect.gen(function*() {
    // Loaded on demand: the HTTP server and the simulation are not needed by any other command.
    const Reference = yield* Effect.promise(() => import("@mainsequence/a2a-testing/node"))
    const reference = yield* Reference.serveReferencePlatform({ port: flags.port, host: "127.0.0.1" }).pipe(
      Effect.mapError((error) => new DevPlatformError({ reason: reasonOf(error, flags.port) }))
    )
    const sessions = yield* reference.platform.sessions
    const lines = banner(reference.url, Redacted.value(Reference.demoUserAccessToken), sessions)
    yield* Effect.forEach(lines, printLine, { discard: true })
    return yield* Effect.never
  }).pipe(Effect.scoped)

const description = "Serve the local reference platform (backend + runtime + demo Agents) until Ctrl-C"

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("platform", flags, runDevPlatform).pipe(Command.withDescription(description))

/**
 * The command as listed in the help of the groups above it.
 *
 * @since 0.1.0
 * @category commands
 */
export const help: ReadonlyArray<GroupHelp.Leaf> = [
  GroupHelp.leaf(command, description, [
    ["1", "the platform could not start (its port is in use or needs privileges)"],
    ["2", "usage: an unknown flag or a bad value"],
    ["130", "stopped by Ctrl-C (SIGINT), as it runs until then"],
    ["143", "stopped by SIGTERM"]
  ])
]
