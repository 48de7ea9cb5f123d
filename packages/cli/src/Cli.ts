/**
 * The `mainsequence` command tree (SPEC §8):
 *
 * ```
 * mainsequence agent session a2a send <agent_session_uid> (--message TEXT | --message-file PATH) …
 * mainsequence agent session a2a task get|wait|cancel <agent_session_uid> <task_id> …
 * mainsequence dev platform [--port N]
 * mainsequence --completions bash|zsh|fish
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
import * as Either from "effect/Either"
import { stripVTControlCharacters } from "node:util"
import type * as A2ACall from "./A2ACall.js"
import type { CliConfigError } from "./CliConfig.js"
import * as DevPlatform from "./commands/devPlatform.js"
import * as Send from "./commands/send.js"
import * as Task from "./commands/task.js"
import * as Completions from "./Completions.js"
import { type ReportOptions, toExitCode } from "./Failure.js"
import * as FlagValues from "./flags/values.js"
import * as GroupHelp from "./GroupHelp.js"
import { Output, type OutputWriteError, printLine, requestedFormat } from "./Output.js"
import { executable } from "./Resume.js"
import { version } from "./version.js"

const config = CliConfig.make({ isCaseSensitive: true, showBuiltIns: false })

interface Group extends GroupHelp.Group {
  /** the names of its subcommands, for the errors that list them */
  readonly subcommands: readonly [string, ...Array<string>]
}

const a2aPath = ["agent", "session", "a2a"]

const groups = {
  root: { path: [], description: "The Main Sequence command line", subcommands: ["agent", "dev"] },
  agent: { path: ["agent"], description: "Main Sequence Agents", subcommands: ["session"] },
  session: { path: ["agent", "session"], description: "Agent sessions", subcommands: ["a2a"] },
  a2a: { path: a2aPath, description: "Talk to an Agent session over A2A", subcommands: ["send", "task"] },
  task: { ...Task.group, path: [...a2aPath, ...Task.group.path], subcommands: ["get", "wait", "cancel"] },
  dev: { path: ["dev"], description: "Tools for local development", subcommands: ["platform"] }
} satisfies Record<string, Group>

// Every group and every runnable command, for the groups' help.
const helpGroups: ReadonlyArray<Group> = Object.values(groups)
const helpLeaves: ReadonlyArray<GroupHelp.Leaf> = [
  ...GroupHelp.under(groups.a2a.path, Send.help),
  ...GroupHelp.under(groups.a2a.path, Task.help),
  ...GroupHelp.under(groups.dev.path, DevPlatform.help)
]

const commandPath = (group: Group): string => [executable, ...group.path].join(" ")

// A group runs only without a subcommand: a usage error that lists its subcommands.
const group = (help: Group) =>
  Command.make(help.path.at(-1) ?? executable, {}, () =>
    Effect.fail(
      ValidationError.missingSubcommand(
        HelpDoc.p(
          `Missing command: ${commandPath(help)} ${help.subcommands.join("|")} (see ${commandPath(help)} --help)`
        )
      )
    )).pipe(Command.withDescription(help.description))

const task = group(groups.task).pipe(Command.withSubcommands(Task.commands))

const a2a = group(groups.a2a).pipe(Command.withSubcommands([Send.command, task]))

const session = group(groups.session).pipe(Command.withSubcommands([a2a]))

const agent = group(groups.agent).pipe(Command.withSubcommands([session]))

const dev = group(groups.dev).pipe(Command.withSubcommands([DevPlatform.command]))

const command = group(groups.root).pipe(Command.withSubcommands([agent, dev]))

// @effect/cli names the root group in the error of an unknown subcommand at any depth: name the deepest group
// the arguments reached instead, with its subcommands.
const unknownSubcommand = (args: ReadonlyArray<string>): ValidationError.ValidationError => {
  const reached = helpGroups.filter((group) => group.path.every((name, i) => args[i] === name))
    .reduce((deepest, group) => group.path.length > deepest.path.length ? group : deepest, groups.root)
  const given = args[reached.path.length]
  const names = reached.subcommands.map((name) => `'${name}'`).join(", ")
  return ValidationError.commandMismatch(HelpDoc.p(
    `Invalid subcommand${given === undefined ? "" : ` '${given}'`} for ${commandPath(reached)} - use ` +
      `${reached.subcommands.length === 1 ? "" : "one of "}${names} (see ${commandPath(reached)} --help)`
  ))
}

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
  | OutputWriteError
  | ValidationError.ValidationError

/**
 * What a run needs.
 *
 * @since 0.1.0
 * @category models
 */
export type CliRequirements = A2ACall.ClientEnvironment | Output | CliApp.CliApp.Environment

const runCommand = Command.run(command, { name: executable, version })

const commandLines = new Map(
  helpLeaves.map((leaf): readonly [GroupHelp.Leaf, FlagValues.CommandLine] => [leaf, {
    flags: FlagValues.indexOf([...GroupHelp.flagsOf(leaf.usage), FlagValues.builtIn]),
    argumentNames: GroupHelp.argumentsOf(leaf.usage)
  }])
)

// The command line of the command the arguments start with; none for a group or an unknown command.
const commandLineOf = (args: ReadonlyArray<string>): FlagValues.CommandLine | undefined => {
  const leaf = GroupHelp.leafNamed(helpLeaves, args)
  return leaf === undefined ? undefined : commandLines.get(leaf)
}

// `--help` is answered here, for groups and commands alike (see GroupHelp.ts): on stdout, where a write that
// fails is reported like any other, without escape codes unless stdout is a terminal and NO_COLOR is not set.
const printHelp = (doc: HelpDoc.HelpDoc) =>
  Effect.flatMap(Output, (output) => {
    const text = HelpDoc.toAnsiText(doc)
    return printLine(output.stdoutColor === true ? text : stripVTControlCharacters(text))
  })

const runOrHelp = (argv: ReadonlyArray<string>) => {
  const args = argv.slice(2)
  const commandLine = commandLineOf(args)
  // `--help`, `--version`, `--completions` and `--wizard` are answered where they stand, never as a flag's value.
  const words = FlagValues.withoutFlagValues(args, commandLine?.flags ?? new Map())
  const group = GroupHelp.requested(helpGroups, words)
  if (group !== undefined) {
    return printHelp(GroupHelp.render({ executable, version, config, group, leaves: helpLeaves }))
  }
  const leaf = GroupHelp.requestedLeaf(helpLeaves, words)
  if (leaf !== undefined) return printHelp(GroupHelp.renderLeaf({ executable, version, config, leaf }))
  const shell = completionsAsked(words)
  if (shell !== undefined) {
    const known = Completions.shells.find((name) => name === shell)
    return known === undefined
      ? Effect.fail(completionsRefused(shell))
      : printLine(Completions.script({ shell: known, executable, groups: helpGroups, leaves: helpLeaves }))
  }
  // @effect/cli's wizard prompts on stdout, where a script reads one JSON document, and waits forever on a stdin
  // that is no terminal: refused like any usage error.
  if (words.includes("--wizard")) return Effect.fail(wizardRefused)
  // One line, and a stdout that fails is reported.
  if (words.includes("--version")) return printLine(version)
  // A group or an unknown command is @effect/cli's to report.
  if (commandLine === undefined) return runCommand(argv)
  return Either.match(FlagValues.checked(args, commandLine, config), {
    onLeft: Effect.fail,
    onRight: (spelled) => runCommand([...argv.slice(0, 2), ...spelled])
  })
}

// The shell `--completions SHELL` (or `--completions=SHELL`) asks for, anywhere as @effect/cli reads it; "" for none.
const completionsAsked = (args: ReadonlyArray<string>): string | undefined => {
  const at = args.findIndex((arg) => arg === "--completions" || arg.startsWith("--completions="))
  if (at < 0) return undefined
  const arg = args[at] ?? ""
  return arg === "--completions" ? args[at + 1] ?? "" : arg.slice("--completions=".length)
}

const completionsRefused = (shell: string) =>
  ValidationError.invalidValue(HelpDoc.p(
    `Invalid --completions${shell === "" ? "" : ` '${shell}'`}: use ${Completions.shells.join(", ")}` +
      ` (see ${executable} --help)`
  ))

const wizardRefused = ValidationError.invalidArgument(
  HelpDoc.p(`Unknown option --wizard: ${executable} has no wizard mode (see ${executable} --help)`)
)

// @effect/cli prints a parse error's help document on the console's error stream. The CLI reports every
// failure itself as one line (see Failure.ts), so that stream is muted.
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
      Effect.mapError((error) =>
        ValidationError.isValidationError(error) && ValidationError.isCommandMismatch(error)
          ? unknownSubcommand(argv.slice(2))
          : error
      ),
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
): Effect.Effect<number, never, CliRequirements> => {
  const args = argv.slice(2)
  const commandLine = commandLineOf(args)
  return toExitCode(run(argv), {
    ...options,
    format: requestedFormat(args, (arg) => commandLine !== undefined && FlagValues.takesValue(commandLine.flags, arg))
  })
}
