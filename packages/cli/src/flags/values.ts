/**
 * Every flag that takes a value is given one, checked before @effect/cli 0.77.2 parses the command line. Without
 * its value, @effect/cli names some other argument as unknown (`-o text --message` names `-o`), and drops a
 * repeatable flag's missing or empty value without a word: `--file "$path"` with an empty `$path` would send the
 * message without its file. It also trims a repeatable flag's values, reads a flag's name as that flag wherever
 * it stands, and does not read `--file=PATH`: a value it would change or misread is refused, and `--file=PATH`
 * reaches it as `--file PATH`.
 *
 * @since 0.2.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Either from "effect/Either"
import type * as GroupHelp from "../GroupHelp.js"

/**
 * What the check knows of the command tree's flags, by name (`--file`, `-o`).
 *
 * @since 0.2.0
 * @category models
 */
export interface FlagKinds {
  readonly isFlag: (arg: string) => boolean
  readonly takesValue: (flag: string) => boolean
  readonly repeatable: (flag: string) => boolean
}

/**
 * The kinds of the given flags (every command's, as `GroupHelp.flagsOf` reads them).
 *
 * @since 0.2.0
 * @category constructors
 */
export const kindsOf = (flags: ReadonlyArray<GroupHelp.Flag>): FlagKinds => {
  const names = (which: ReadonlyArray<GroupHelp.Flag>) => new Set(which.flatMap((flag) => flag.names))
  const all = names(flags)
  const takingValues = names(flags.filter((flag) => flag.takesValue))
  const repeatable = names(flags.filter((flag) => flag.repeatable))
  return {
    isFlag: (arg) => all.has(arg),
    takesValue: (flag) => takingValues.has(flag),
    repeatable: (flag) => repeatable.has(flag)
  }
}

const missingValue = (flag: string) => ValidationError.missingValue(HelpDoc.p(`Missing value for ${flag}`))

const invalidValue = (flag: string, reason: string) =>
  ValidationError.invalidValue(HelpDoc.p(`Invalid ${flag.replace(/^-+/, "")}: ${reason}`))

const repeatableValueProblem = (value: string, kinds: FlagKinds): string | undefined =>
  value === ""
    ? "must not be empty"
    : value.trim() !== value
    ? `must not start or end with whitespace (got ${JSON.stringify(value)})`
    : kinds.isFlag(value)
    ? `must not be a flag (got ${value})`
    : undefined

/**
 * The arguments (after the executable) as @effect/cli is to read them, or the usage error of the first flag
 * whose value is missing, or of a repeatable flag whose value is empty, starts or ends with whitespace, or is a
 * flag's name. Arguments after `--` are left as they are.
 *
 * @since 0.2.0
 * @category parsing
 */
export const checked = (
  args: ReadonlyArray<string>,
  kinds: FlagKinds
): Either.Either<ReadonlyArray<string>, ValidationError.ValidationError> => {
  const spelled: Array<string> = []
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] ?? ""
    if (arg === "--") return Either.right([...spelled, ...args.slice(at)])
    const equals = arg.startsWith("--") ? arg.indexOf("=") : -1
    const flag = equals > 0 ? arg.slice(0, equals) : arg
    // `--message=TEXT` and the like are @effect/cli's own to read.
    if (!kinds.takesValue(flag) || (equals > 0 && !kinds.repeatable(flag))) {
      spelled.push(arg)
      continue
    }
    const value = equals > 0 ? arg.slice(equals + 1) : args[++at]
    if (value === undefined) return Either.left(missingValue(flag))
    const problem = kinds.repeatable(flag) ? repeatableValueProblem(value, kinds) : undefined
    if (problem !== undefined) return Either.left(invalidValue(flag, problem))
    spelled.push(flag, value)
  }
  return Either.right(spelled)
}
