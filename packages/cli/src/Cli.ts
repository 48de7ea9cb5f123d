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
import { stripVTControlCharacters } from "node:util"
import type * as A2ACall from "./A2ACall.js"
import type { CliConfigError } from "./CliConfig.js"
import * as DevPlatform from "./commands/devPlatform.js"
import * as Send from "./commands/send.js"
import * as Task from "./commands/task.js"
import { type ReportOptions, toExitCode } from "./Failure.js"
import * as GroupHelp from "./GroupHelp.js"
import { Output, requestedFormat } from "./Output.js"
import { executable } from "./Resume.js"
import { version } from "./version.js"

const config = CliConfig.make({ isCaseSensitive: true, showBuiltIns: false })

const groups = {
  root: { path: [], description: "The Main Sequence command line" },
  agent: { path: ["agent"], description: "Main Sequence Agents" },
  session: { path: ["agent", "session"], description: "Agent sessions" },
  a2a: { path: ["agent", "session", "a2a"], description: "Talk to an Agent session over A2A" },
  dev: { path: ["dev"], description: "Tools for local development" }
} satisfies Record<string, GroupHelp.Group>

// Every group (the tree above, plus `task` of Task.ts) and every runnable command, for the groups' help.
const helpGroups: ReadonlyArray<GroupHelp.Group> = [
  ...Object.values(groups),
  ...GroupHelp.underGroup(groups.a2a.path, Task.group)
]
const helpLeaves: ReadonlyArray<GroupHelp.Leaf> = [
  ...GroupHelp.under(groups.a2a.path, Send.help),
  ...GroupHelp.under(groups.a2a.path, Task.help),
  ...GroupHelp.under(groups.dev.path, DevPlatform.help)
]

const group = <Name extends string>(
  name: Name,
  help: GroupHelp.Group,
  subcommands: readonly [string, ...Array<string>]
) => {
  const path = [executable, ...help.path].join(" ")
  return Command.make(name, {}, () =>
    Effect.fail(
      ValidationError.missingSubcommand(
        HelpDoc.p(`Missing command: ${path} ${subcommands.join("|")} (see ${path} --help)`)
      )
    )).pipe(Command.withDescription(help.description))
}

const a2a = group("a2a", groups.a2a, ["send", "task"]).pipe(
  Command.withSubcommands([Send.command, Task.command])
)

const session = group("session", groups.session, ["a2a"]).pipe(Command.withSubcommands([a2a]))

const agent = group("agent", groups.agent, ["session"]).pipe(Command.withSubcommands([session]))

const dev = group("dev", groups.dev, ["platform"]).pipe(Command.withSubcommands([DevPlatform.command]))

const command = group(executable, groups.root, ["agent", "dev"]).pipe(Command.withSubcommands([agent, dev]))

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

const runCommand = Command.run(command, { name: executable, version })

// `--help` is answered here, for groups and commands alike (see GroupHelp.ts); on the log stream, like
// @effect/cli's own help, and without escape codes unless stdout is a terminal and NO_COLOR is not set.
const printHelp = (doc: HelpDoc.HelpDoc) =>
  Effect.flatMap(Output, (output) => {
    const text = HelpDoc.toAnsiText(doc)
    return Console.log(output.stdoutColor === true ? text : stripVTControlCharacters(text))
  })

const runOrHelp = (argv: ReadonlyArray<string>) => {
  const args = argv.slice(2)
  const group = GroupHelp.requested(helpGroups, args)
  if (group !== undefined) {
    return printHelp(GroupHelp.render({ executable, version, config, group, leaves: helpLeaves }))
  }
  const leaf = GroupHelp.requestedLeaf(helpLeaves, args)
  return leaf === undefined ? runCommand(argv) : printHelp(GroupHelp.renderLeaf({ executable, version, config, leaf }))
}

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
    runOrHelp(argv).pipe(
      Effect.withConsole(console),
      Effect.provide(CliConfig.layer(config))
    ))

/**
 * Runs the command line to its exit code, reporting a failure on stderr and, in the output format the
 * arguments ask for (see `Output.requestedFormat`), as one JSON document on stdout.
 *
 * @since 0.2.0
 * @category running
 */
export const main = (
  argv: ReadonlyArray<string>,
  options: Omit<ReportOptions, "format"> = {}
): Effect.Effect<number, never, CliRequirements> =>
  toExitCode(run(argv), { ...options, format: requestedFormat(argv.slice(2)) })
