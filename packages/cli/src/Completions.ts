/**
 * `--completions bash` (or `zsh`): a completion script for the command tree, made from the same groups and
 * commands as `--help`. @effect/cli 0.77.2 writes one too, but its bash script completes only the first level
 * of nested groups (`mainsequence agent <TAB>` works, `mainsequence agent session a2a <TAB>` offers `session`
 * again), and offers `--response-kind`'s choices as the one word `message,task`. zsh runs the bash script
 * through `bashcompinit`.
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
export const shells = ["bash", "zsh"] as const

/**
 * @since 0.2.0
 * @category models
 */
export type Shell = typeof shells[number]

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
  readonly groups: ReadonlyArray<{ readonly path: ReadonlyArray<string>; readonly subcommands: ReadonlyArray<string> }>
  readonly leaves: ReadonlyArray<GroupHelp.Leaf>
}): string => {
  const leaves = options.leaves.map((leaf) => ({
    path: [...leaf.parents, GroupHelp.leafName(leaf) ?? ""],
    flags: GroupHelp.flagsOf(leaf.usage)
  }))
  const places = [
    ...options.groups.map((group) => ({ path: group.path, words: [...group.subcommands, "--help", "--version"] })),
    ...leaves.map((leaf) => ({ path: leaf.path, words: [...leaf.flags.flatMap((flag) => flag.names), "--help"] }))
  ]
  const flags = leaves.flatMap((leaf) => leaf.flags)
  const withChoices = new Map(
    flags.filter((flag) => flag.choices.length > 0).map((flag) => [flag.names.join("|"), flag.choices])
  )
  const takingValues = [...new Set(flags.filter((flag) => flag.takesValue).flatMap((flag) => flag.names))].join("|")
  const key = (path: ReadonlyArray<string>) => path.map((name) => `/${name}`).join("")
  const offer = (words: ReadonlyArray<string>) => `COMPREPLY=($(compgen -W "${words.join(" ")}" -- "$cur"))`
  const fn = `_${options.executable.replace(/\W/g, "_")}_completions`
  return [
    ...(options.shell === "zsh" ? ["autoload -U +X bashcompinit && bashcompinit"] : []),
    `${fn}() {`,
    "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" path=\"\" next i",
    // The deepest group or command the words before name (a flag or a value names none).
    "  for ((i = 1; i < COMP_CWORD; i++)); do",
    "    next=\"$path/${COMP_WORDS[i]}\"",
    "    case \"$next\" in",
    `      ${
      places.filter((place) => place.path.length > 0).map((place) => key(place.path)).join("|")
    }) path="$next" ;;`,
    "    esac",
    "  done",
    "  case \"$prev\" in",
    ...Array.from(withChoices, ([names, choices]) => `    ${names}) ${offer(choices)}; return ;;`),
    `    ${takingValues}) return ;;`,
    "  esac",
    "  case \"$path\" in",
    ...places.map((place) => `    "${key(place.path)}") ${offer(place.words)} ;;`),
    "  esac",
    "}",
    `complete -o default -F ${fn} ${options.executable}`
  ].join("\n")
}
