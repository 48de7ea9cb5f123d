/**
 * `--completions bash` (or `zsh`, `fish`): a completion script for the command tree, made from the same groups and
 * commands as `--help`. @effect/cli 0.77.2 writes one too, but its bash script completes only the first level
 * of nested groups (`mainsequence agent <TAB>` works, `mainsequence agent session a2a <TAB>` offers `session`
 * again), and offers `--response-kind`'s choices as the one word `message,task`. zsh runs the bash script
 * through `bashcompinit`; fish has a script of its own.
 *
 * @since 0.2.0
 */
import * as GroupHelp from "./GroupHelp.js"

/**
 * The shells `--completions` writes a script for.
 *
 * @since 0.2.0
 * @category constants
 */
export const shells = ["bash", "zsh", "fish"] as const

/**
 * @since 0.2.0
 * @category models
 */
export type Shell = typeof shells[number]

/** A command group, by its path below the executable, with the names of its commands. */
interface Group {
  readonly path: ReadonlyArray<string>
  readonly subcommands: ReadonlyArray<string>
}

/** A group or a command, by its path below the executable, with the words completed there. */
interface Place {
  readonly path: ReadonlyArray<string>
  readonly commands: ReadonlyArray<string>
  readonly flags: ReadonlyArray<GroupHelp.Flag>
}

const placesOf = (groups: ReadonlyArray<Group>, leaves: ReadonlyArray<GroupHelp.Leaf>): ReadonlyArray<Place> => {
  const flag = (name: string): GroupHelp.Flag => ({ names: [name], takesValue: false, choices: [], repeatable: false })
  return [
    ...groups.map((group) => ({
      path: group.path,
      commands: group.subcommands,
      flags: [flag("--help"), flag("--version")]
    })),
    ...leaves.map((leaf) => ({
      path: GroupHelp.leafPath(leaf),
      commands: [],
      flags: [...GroupHelp.flagsOf(leaf.usage), flag("--help")]
    }))
  ]
}

// A path as the scripts spell it: `/agent/session`, and "" for the executable itself.
const key = (path: ReadonlyArray<string>) => path.map((name) => `/${name}`).join("")

// Every place's path but the executable's own.
const below = (places: ReadonlyArray<Place>): ReadonlyArray<string> =>
  places.filter((place) => place.path.length > 0).map((place) => key(place.path))

/**
 * The completion script of `shell` for `executable`: at each group its commands, at each command its flags,
 * and after a flag with choices those choices. Other values (a path, a text) get the shell's default completion.
 *
 * @since 0.2.0
 * @category rendering
 */
export const script = (options: {
  readonly shell: Shell
  readonly executable: string
  readonly groups: ReadonlyArray<Group>
  readonly leaves: ReadonlyArray<GroupHelp.Leaf>
}): string => {
  const places = placesOf(options.groups, options.leaves)
  const fn = `_${options.executable.replace(/\W/g, "_")}_completions`
  switch (options.shell) {
    case "bash":
      return bashScript(options.executable, fn, places)
    case "zsh":
      return `autoload -U +X bashcompinit && bashcompinit\n${bashScript(options.executable, fn, places)}`
    case "fish":
      return fishScript(options.executable, fn, places)
  }
}

const bashScript = (executable: string, fn: string, places: ReadonlyArray<Place>): string => {
  const flags = places.flatMap((place) => place.flags)
  const withChoices = new Map(
    flags.filter((flag) => flag.choices.length > 0).map((flag) => [flag.names.join("|"), flag.choices])
  )
  const takingValues = [...new Set(flags.filter((flag) => flag.takesValue).flatMap((flag) => flag.names))].join("|")
  const offer = (words: ReadonlyArray<string>) => `COMPREPLY=($(compgen -W "${words.join(" ")}" -- "$cur"))`
  return [
    `${fn}() {`,
    "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" path=\"\" next i",
    // The deepest group or command the words before name (a flag or a value names none).
    "  for ((i = 1; i < COMP_CWORD; i++)); do",
    "    next=\"$path/${COMP_WORDS[i]}\"",
    "    case \"$next\" in",
    `      ${below(places).join("|")}) path="$next" ;;`,
    "    esac",
    "  done",
    "  case \"$prev\" in",
    ...Array.from(withChoices, ([names, choices]) => `    ${names}) ${offer(choices)}; return ;;`),
    `    ${takingValues}) return ;;`,
    "  esac",
    "  case \"$path\" in",
    ...places.map((place) =>
      `    "${key(place.path)}") ${offer([...place.commands, ...place.flags.flatMap((flag) => flag.names)])} ;;`
    ),
    "  esac",
    "}",
    `complete -o default -F ${fn} ${executable}`
  ].join("\n")
}

const fishScript = (executable: string, fn: string, places: ReadonlyArray<Place>): string => {
  const fishFlag = (flag: GroupHelp.Flag): string =>
    [
      ...flag.names.map((name) => name.startsWith("--") ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`),
      ...(flag.choices.length > 0 ? [`-x -a '${flag.choices.join(" ")}'`] : flag.takesValue ? ["-r"] : [])
    ].join(" ")
  return [
    // Whether the words before name the group or command `place` (a flag or a value names none).
    `function ${fn}_at --argument-names place`,
    "    set -l path \"\"",
    "    for word in (commandline -opc)[2..-1]",
    "        switch \"$path/$word\"",
    `            case ${below(places).join(" ")}`,
    "                set path \"$path/$word\"",
    "        end",
    "    end",
    "    test \"$path\" = \"$place\"",
    "end",
    ...places.flatMap((place) => {
      const at = `complete -c ${executable} -n '${fn}_at "${key(place.path)}"'`
      return [
        ...(place.commands.length > 0 ? [`${at} -f -a '${place.commands.join(" ")}'`] : []),
        ...place.flags.map((flag) => `${at} ${fishFlag(flag)}`)
      ]
    })
  ].join("\n")
}
