/**
 * Every flag that takes a value is given one, and no flag but a repeatable one twice, checked before @effect/cli
 * 0.77.2 parses the command line. There, a second `--message` is an "unknown argument"; without its value, a
 * flag makes @effect/cli name some other argument as unknown (`-o text --message` names `-o`), and it drops a
 * repeatable flag's missing or empty value without a word: `--file "$path"` with an empty `$path` would send the
 * message without its file. It also trims a repeatable flag's values, reads a flag's name as that flag wherever
 * it stands, and does not read `--file=PATH` (nor `--message=`, empty): a value it would change or misread is
 * refused, and `--file=PATH` reaches it as `--file PATH`.
 *
 * @since 0.2.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Either from "effect/Either"
import type * as GroupHelp from "../GroupHelp.js"

/**
 * A command's flags by each of their names (`--output` and `-o` give the same flag).
 *
 * @since 0.2.0
 * @category models
 */
export type FlagIndex = ReadonlyMap<string, GroupHelp.Flag>

/**
 * The index of a command's flags (as `GroupHelp.flagsOf` reads them).
 *
 * @since 0.2.0
 * @category constructors
 */
export const indexOf = (flags: ReadonlyArray<GroupHelp.Flag>): FlagIndex =>
  new Map(flags.flatMap((flag) => flag.names.map((name) => [name, flag] as const)))

/**
 * Whether `arg` is a flag of the index that takes a value.
 *
 * @since 0.2.0
 * @category parsing
 */
export const takesValue = (index: FlagIndex, arg: string): boolean => index.get(arg)?.takesValue === true

const longName = (flag: GroupHelp.Flag, given: string): string =>
  (flag.names.find((name) => name.startsWith("--")) ?? given).replace(/^-+/, "")

const missingValue = (given: string) => ValidationError.missingValue(HelpDoc.p(`Missing value for ${given}`))

const invalid = (flag: GroupHelp.Flag, given: string, reason: string) =>
  ValidationError.invalidValue(HelpDoc.p(`Invalid ${longName(flag, given)}: ${reason}`))

const repeatableValueProblem = (value: string, index: FlagIndex): string | undefined =>
  value === ""
    ? "must not be empty"
    : value.trim() !== value
    ? `must not start or end with whitespace (got ${JSON.stringify(value)})`
    : index.has(value)
    ? `must not be a flag (got ${value})`
    : undefined

/**
 * The arguments (after the executable) as @effect/cli is to read them, or the usage error of the first flag
 * whose value is missing, given a second time (unless repeatable), or of a repeatable flag whose value is
 * empty, starts or ends with whitespace, or is a flag's name. Arguments after `--` are left as they are.
 *
 * @since 0.2.0
 * @category parsing
 */
export const checked = (
  args: ReadonlyArray<string>,
  index: FlagIndex
): Either.Either<ReadonlyArray<string>, ValidationError.ValidationError> => {
  const spelled: Array<string> = []
  const given = new Set<GroupHelp.Flag>()
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] ?? ""
    if (arg === "--") return Either.right([...spelled, ...args.slice(at)])
    const equals = arg.startsWith("--") ? arg.indexOf("=") : -1
    const name = equals > 0 ? arg.slice(0, equals) : arg
    const flag = index.get(name)
    if (flag !== undefined && !flag.repeatable) {
      if (given.has(flag)) return Either.left(invalid(flag, name, "given more than once"))
      given.add(flag)
    }
    if (flag === undefined || !flag.takesValue) {
      spelled.push(arg)
      continue
    }
    const value = equals > 0 ? arg.slice(equals + 1) : args[++at]
    if (value === undefined) return Either.left(missingValue(name))
    const problem = flag.repeatable ? repeatableValueProblem(value, index) : undefined
    if (problem !== undefined) return Either.left(invalid(flag, name, problem))
    // `--message=TEXT` stays whole, or a TEXT such as `--file` would be read as that flag; `--message=` it ignores.
    if (equals > 0 && !flag.repeatable && value !== "") spelled.push(arg)
    else spelled.push(name, value)
  }
  return Either.right(spelled)
}
