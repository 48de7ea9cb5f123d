/**
 * The help of the command groups (`mainsequence --help`, `mainsequence agent --help`, …), rendered here
 * instead of by @effect/cli. For a group, @effect/cli 0.77.2 lists every command below it, but repeats
 * the parents' names once per level of nesting (`agent agent session a2a`, `agent agent session agent
 * agent session a2a send …`): in `getHelpInternal`'s `Subcommands` case, the usage of a nested group
 * already starts with the names before it (`preceding`), and its children are given `preceding` plus that
 * usage. Our tree is four groups deep (SPEC §8), so the CLI answers `--help` on a group itself: each
 * runnable command below it once, by its full path, with its usage and description. The help of a runnable
 * command (`mainsequence agent session a2a send --help`) stays @effect/cli's, which is correct.
 *
 * @since 0.1.0
 */
import type * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"
import * as Arr from "effect/Array"

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
}

/**
 * A runnable command, to be placed `under` its groups.
 *
 * @since 0.1.0
 * @category constructors
 */
export const leaf = <Name extends string, R, E, A>(
  command: Command.Command<Name, R, E, A>,
  description: string
): Leaf => ({ parents: [], usage: Command.getUsage(command), description })

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
  const commands = below.flatMap((entry) =>
    Usage.enumerate(entry.usage, config).map((usage): [Span.Span, HelpDoc.HelpDoc] => [
      Span.spans([Span.text([executable, ...entry.parents].join(" ")), Span.space, usage]),
      HelpDoc.p(entry.description)
    ])
  )
  return HelpDoc.blocks([
    HelpDoc.h1(Span.code(executable)),
    HelpDoc.p(`${executable} ${options.version}`),
    HelpDoc.h1("USAGE"),
    HelpDoc.p(`$ ${groupPath} <command> …`),
    HelpDoc.h1("DESCRIPTION"),
    HelpDoc.p(group.description),
    ...(Arr.isNonEmptyReadonlyArray(commands) ? [HelpDoc.h1("COMMANDS"), HelpDoc.descriptionList(commands)] : [])
  ])
}
