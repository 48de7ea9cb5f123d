/**
 * The `mainsequence` command tree (SPEC §8):
 *
 * ```
 * mainsequence agent session a2a send <agent_session_uid> (--message TEXT | --message-file PATH) …
 * mainsequence agent session a2a task get|wait|cancel <agent_session_uid> <task_id> …
 * mainsequence dev platform [--port N]
 * ```
 *
 * No resolve, attach, prewarm, status or readiness command exists: `send` is all a caller needs.
 *
 * @since 0.1.0
 */
import type * as CliApp from "@effect/cli/CliApp"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import type { A2AError } from "@mainsequence/a2a"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as A2ACall from "./A2ACall.js"
import type { CliConfigError } from "./CliConfig.js"
import * as DevPlatform from "./commands/devPlatform.js"
import * as Send from "./commands/send.js"
import * as Task from "./commands/task.js"
import type { Output } from "./Output.js"
import { version } from "./version.js"

const group = <Name extends string>(
  name: Name,
  path: string,
  description: string,
  subcommands: readonly [string, ...Array<string>]
) =>
  Command.make(name, {}, () =>
    Effect.fail(
      ValidationError.missingSubcommand(
        HelpDoc.p(`Missing command: ${path} ${subcommands.join("|")} (see ${path} --help)`)
      )
    )).pipe(Command.withDescription(description))

const a2a = group("a2a", "mainsequence agent session a2a", "Talk to an Agent session over A2A", ["send", "task"]).pipe(
  Command.withSubcommands([Send.command, Task.command])
)

const session = group("session", "mainsequence agent session", "Agent sessions", ["a2a"]).pipe(
  Command.withSubcommands([a2a])
)

const agent = group("agent", "mainsequence agent", "Main Sequence Agents", ["session"]).pipe(
  Command.withSubcommands([session])
)

const dev = group("dev", "mainsequence dev", "Tools for local development", ["platform"]).pipe(
  Command.withSubcommands([DevPlatform.command])
)

const command = group("mainsequence", "mainsequence", "The Main Sequence command line", ["agent", "dev"])
  .pipe(Command.withSubcommands([agent, dev]))

/**
 * Every failure of a run.
 *
 * @since 0.1.0
 * @category models
 */
export type CliError =
  | A2AError.A2AError
  | CliConfigError
  | DevPlatform.DevPlatformError
  | ValidationError.ValidationError

/**
 * What a run needs.
 *
 * @since 0.1.0
 * @category models
 */
export type CliRequirements = A2ACall.ClientEnvironment | Output | CliApp.CliApp.Environment

const runCommand = Command.run(command, { name: "mainsequence", version })

// @effect/cli prints a parse error's help document on the console's error stream. The CLI reports every
// failure itself as one line (see Failure.ts), so that stream is muted; `--help` (the log stream) stays.
const withoutCliErrorPrinting = Effect.flatMap(
  Console.consoleWith(Effect.succeed),
  (console) => Effect.succeed<Console.Console>({ ...console, error: () => Effect.void })
)

/**
 * Runs the command line (`process.argv`-shaped: runtime, script, then the arguments).
 *
 * @since 0.1.0
 * @category running
 */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<void, CliError, CliRequirements> =>
  Effect.flatMap(withoutCliErrorPrinting, (console) =>
    runCommand(argv).pipe(
      Effect.withConsole(console),
      Effect.provide(CliConfig.layer({ isCaseSensitive: true, showBuiltIns: false }))
    ))
