/**
 * The help of the command groups (`mainsequence --help`, `mainsequence agent --help`, …), rendered here
 * instead of by @effect/cli. For a group, @effect/cli 0.77.2 lists every command below it, but repeats
 * the parents' names once per level of nesting (`agent agent session a2a`, `agent agent session agent
 * agent session a2a send …`): in `getHelpInternal`'s `Subcommands` case, the usage of a nested group
 * already starts with the names before it (`preceding`), and its children are given `preceding` plus that
 * usage. Our tree is four groups deep (SPEC §8), so the CLI answers `--help` on a group itself: each
 * runnable command below it once, by its full path, with its usage and description.
 *
 * The help of a runnable command (`mainsequence agent session a2a send --help`) is answered here too: @effect/cli
 * shows it as `$ send …` and adds each primitive's generic line ("A user-defined piece of text."). Here it
 * shows the full path, our descriptions only, optional and repeatable flags as such (`[--file PATH]...`), and
 * the exit codes of SPEC §8. Every help names the program once, in its first line (`mainsequence 0.1.0`):
 * @effect/cli's banner above it repeated the name.
 *
 * @since 0.1.0
 */
import type * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"
import * as Arr from "effect/Array"
import * as Option from "effect/Option"
import { stripVTControlCharacters } from "node:util"

/**
 * A group of commands: its path below the executable (`[]` for the executable itself).
 *
 * @since 0.1.0
 * @category models
 */
export interface Group {
  readonly path: ReadonlyArray<string>
  readonly description: string
}

/**
 * A runnable command, as listed in the help of the groups above it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Leaf {
  /** the names of the groups above it, below the executable */
  readonly parents: ReadonlyArray<string>
  /** its own usage (its name, options and arguments), as @effect/cli renders it */
  readonly usage: Usage.Usage
  readonly description: string
  /** its own help document (description, arguments, options), as @effect/cli builds it */
  readonly help: (config: CliConfig.CliConfig) => HelpDoc.HelpDoc
  /** its exit codes, when they are not the A2A commands' ({@link exitCodes}) */
  readonly exitCodes?: ExitCodes | undefined
}

/**
 * Exit codes and what each means.
 *
 * @since 0.2.0
 * @category models
 */
export type ExitCodes = readonly [readonly [string, string], ...Array<readonly [string, string]>]

/**
 * A runnable command, to be placed `under` its groups.
 *
 * @since 0.1.0
 * @category constructors
 */
export const leaf = <Name extends string, R, E, A>(
  command: Command.Command<Name, R, E, A>,
  description: string,
  exitCodes?: ExitCodes
): Leaf => ({
  parents: [],
  usage: Command.getUsage(command),
  description,
  help: (config) => Command.getHelp(command, config),
  exitCodes
})

/**
 * A flag of a command: its names, whether it takes a value (one of `choices`, or any), and whether it may be
 * given any number of times (`--file`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Flag {
  readonly names: ReadonlyArray<string>
  readonly takesValue: boolean
  readonly choices: ReadonlyArray<string>
  readonly repeatable: boolean
}

interface Named {
  readonly usage: Extract<Usage.Usage, { readonly _tag: "Named" }>
  readonly repeated: boolean
}

const named = (usage: Usage.Usage, repeated = false): ReadonlyArray<Named> => {
  switch (usage._tag) {
    case "Empty":
    case "Mixed":
      return []
    case "Named":
      return [{ usage, repeated }]
    case "Optional":
      return named(usage.usage, repeated)
    case "Repeated":
      return named(usage.usage, true)
    case "Alternation":
    case "Concat":
      return [...named(usage.left, repeated), ...named(usage.right, repeated)]
  }
}

/**
 * The flags of a command's usage, in order.
 *
 * @since 0.2.0
 * @category parsing
 */
export const flagsOf = (usage: Usage.Usage): ReadonlyArray<Flag> =>
  named(usage).filter(({ usage }) => usage.names.some((name) => name.startsWith("-"))).map(({ repeated, usage }) => ({
    names: usage.names,
    takesValue: Option.isSome(usage.acceptedValues),
    choices: Option.match(usage.acceptedValues, {
      onNone: () => [],
      onSome: (values) => values.includes(" | ") ? values.split(" | ") : []
    }),
    repeatable: repeated
  }))

/**
 * The names of a command's arguments, in order, as its usage spells them (`<agent_session_uid>`).
 *
 * @since 0.2.0
 * @category parsing
 */
export const argumentsOf = (usage: Usage.Usage): ReadonlyArray<string> =>
  named(usage).flatMap(({ usage }) => usage.names.filter((name) => name.startsWith("<")))

/**
 * The leaves placed below the groups `path`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const under = (path: ReadonlyArray<string>, leaves: ReadonlyArray<Leaf>): ReadonlyArray<Leaf> =>
  leaves.map((entry) => ({ ...entry, parents: [...path, ...entry.parents] }))

/**
 * A group placed below the groups `path`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const underGroup = (path: ReadonlyArray<string>, group: Group): ReadonlyArray<Group> => [
  { ...group, path: [...path, ...group.path] }
]

const isHelpFlag = (arg: string): boolean => arg === "--help" || arg === "-h"

const samePath = (left: ReadonlyArray<string>, right: ReadonlyArray<string>): boolean =>
  left.length === right.length && left.every((name, i) => name === right[i])

/**
 * The group whose help the arguments (after the executable) ask for: the group's path plus `--help` / `-h`,
 * nothing else. `undefined` for any other command line.
 *
 * @since 0.1.0
 * @category parsing
 */
export const requested = (groups: ReadonlyArray<Group>, args: ReadonlyArray<string>): Group | undefined => {
  if (!args.some(isHelpFlag)) return undefined
  const path = args.filter((arg) => !isHelpFlag(arg))
  return groups.find((group) => samePath(group.path, path))
}

/**
 * The runnable command whose help the arguments (after the executable) ask for: its full path, then
 * anything, with `--help` / `-h` somewhere.
 *
 * @since 0.1.0
 * @category parsing
 */
export const requestedLeaf = (leaves: ReadonlyArray<Leaf>, args: ReadonlyArray<string>): Leaf | undefined =>
  args.some(isHelpFlag) ? leafNamed(leaves, args.filter((arg) => !isHelpFlag(arg))) : undefined

/**
 * The runnable command the arguments (after the executable) start with: its full path, then anything.
 *
 * @since 0.2.0
 * @category parsing
 */
export const leafNamed = (leaves: ReadonlyArray<Leaf>, args: ReadonlyArray<string>): Leaf | undefined =>
  leaves.find((entry) => leafPath(entry).every((name, i) => args[i] === name))

const plain = (doc: HelpDoc.HelpDoc): string => stripVTControlCharacters(HelpDoc.toAnsiText(doc)).trim()

/**
 * A command's own name (`send`, `get`, …).
 *
 * @since 0.2.0
 * @category parsing
 */
export const leafName = (entry: Leaf): string | undefined => named(entry.usage)[0]?.usage.names[0]

/**
 * A command's full path below the executable (`agent session a2a send`).
 *
 * @since 0.2.0
 * @category parsing
 */
export const leafPath = (entry: Leaf): ReadonlyArray<string> => [...entry.parents, leafName(entry) ?? ""]

// The usage line as text, with each repeatable flag shown optional and repeatable: `[--file PATH]...`.
const usageText = (entry: Leaf, config: CliConfig.CliConfig): string => {
  const [usage] = Usage.enumerate(entry.usage, config)
  const text = usage === undefined ? "" : plain(HelpDoc.p(usage))
  const repeatable = flagsOf(entry.usage).filter((flag) => flag.repeatable).flatMap((flag) => flag.names)
  return repeatable.reduce(
    (line, flag) => line.replace(new RegExp(`(?<![\\[\\w-])${flag} (\\S+?)\\.\\.\\.`), `[${flag} $1]...`),
    text
  )
}

/**
 * The generic lines @effect/cli adds for each kind of value; the help shows our own descriptions instead.
 */
const genericLine =
  /^(A user-defined piece of text\.|A true or false value\.|An integer\.|A floating point number\.|One of the following: .*|A (file-system )?path.*|An existing file.*|A file.*|A directory.*)$/

const withoutGenericLines = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "Paragraph":
      return genericLine.test(plain(doc)) ? HelpDoc.empty : doc
    case "Sequence": {
      const left = withoutGenericLines(doc.left)
      const right = withoutGenericLines(doc.right)
      return HelpDoc.isEmpty(left) ? right : HelpDoc.isEmpty(right) ? left : HelpDoc.sequence(left, right)
    }
    case "DescriptionList":
      return HelpDoc.mapDescriptionList(doc, (span, help) => [span, withoutGenericLines(help)])
    default:
      return doc
  }
}

/**
 * The exit codes of SPEC §8, as shown in each runnable command's help.
 *
 * @since 0.1.0
 * @category rendering
 */
export const exitCodes: ExitCodes = [
  ["0", "the answer was printed (also a Task that ended FAILED, CANCELED or REJECTED)"],
  ["1", "the call failed otherwise (invalid answer, server error, rate limited, not found, Task mode not supported)"],
  ["2", "usage, bad input or missing configuration; nothing was sent"],
  ["3", "the Agent's runtime cannot take the message now (not ready, unavailable); nothing was sent"],
  ["4", "authentication or permission (not logged in, permission denied, runtime credentials refused)"],
  ["5", "out of time or the platform's Message limit; the message may have reached the Agent"],
  ["6", "the connection failed (refused, TLS certificate, a proxy's refusal)"],
  ["130", "interrupted (Ctrl-C, SIGINT)"],
  ["143", "stopped by SIGTERM (a supervisor, timeout(1), a container stop)"]
]

const exitCodeList = (codes: ExitCodes = exitCodes): HelpDoc.HelpDoc =>
  HelpDoc.descriptionList(
    Arr.map(codes, ([code, meaning]): [Span.Span, HelpDoc.HelpDoc] => [Span.text(code), HelpDoc.p(meaning)])
  )

const rootOptionList = (executable: string): HelpDoc.HelpDoc =>
  HelpDoc.descriptionList([
    [Span.text("--help"), HelpDoc.p("This help; after a group or a command, its own")],
    [Span.text("--version"), HelpDoc.p("The version, one line")],
    [
      Span.text("--completions bash | zsh | fish"),
      HelpDoc.p(`A completion script for the shell: source <(${executable} --completions bash)`)
    ]
  ])

/**
 * The help document of a runnable command: its full path in USAGE, our descriptions only, and the exit codes.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderLeaf = (options: {
  readonly executable: string
  readonly version: string
  readonly config: CliConfig.CliConfig
  readonly leaf: Leaf
}): HelpDoc.HelpDoc => {
  const { config, executable, leaf } = options
  return HelpDoc.blocks([
    HelpDoc.p(`${executable} ${options.version}`),
    HelpDoc.h1("USAGE"),
    HelpDoc.p(`$ ${[executable, ...leaf.parents].join(" ")} ${usageText(leaf, config)}`),
    withoutGenericLines(leaf.help(config)),
    HelpDoc.h1("EXIT CODES"),
    exitCodeList(leaf.exitCodes)
  ])
}

/**
 * The help document of a group, in @effect/cli's layout (banner, version, USAGE, DESCRIPTION, COMMANDS).
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (options: {
  readonly executable: string
  readonly version: string
  readonly config: CliConfig.CliConfig
  readonly group: Group
  readonly leaves: ReadonlyArray<Leaf>
}): HelpDoc.HelpDoc => {
  const { config, executable, group } = options
  const groupPath = [executable, ...group.path].join(" ")
  const below = options.leaves.filter((entry) => samePath(entry.parents.slice(0, group.path.length), group.path))
  // Each command as its own help's usage line shows it: repeatable flags optional, `[--file PATH]...`.
  const commands = below.map((entry): [Span.Span, HelpDoc.HelpDoc] => [
    Span.text(`${[executable, ...entry.parents].join(" ")} ${usageText(entry, config)}`),
    HelpDoc.p(entry.description)
  ])
  return HelpDoc.blocks([
    HelpDoc.p(`${executable} ${options.version}`),
    HelpDoc.h1("USAGE"),
    HelpDoc.p(`$ ${groupPath} <command> …`),
    HelpDoc.h1("DESCRIPTION"),
    HelpDoc.p(group.description),
    ...(Arr.isNonEmptyReadonlyArray(commands) ? [HelpDoc.h1("COMMANDS"), HelpDoc.descriptionList(commands)] : []),
    ...(group.path.length === 0
      ? [HelpDoc.h1("OPTIONS"), rootOptionList(executable), HelpDoc.h1("EXIT CODES"), exitCodeList()]
      : [])
  ])
}
