/**
 * Flag values as this CLI reads them: a flag's value is the word after it (or after its `=`), whatever it reads
 * like, and @effect/cli 0.77.2 is handed each in a form it reads as that value. Checked before it parses:
 *
 * - a flag without its value, and a flag given twice (unless repeatable), are usage errors naming the flag, where
 *   @effect/cli called another argument unknown (`-o text --message` named `-o`);
 * - @effect/cli drops a repeatable flag's empty or missing value without a word (`--file "$path"` with an empty
 *   `$path` would send the message without its file), trims its values and does not read `--file=PATH`: such a
 *   value is refused, and `--file=PATH` reaches it as `--file PATH`;
 * - @effect/cli reads a flag's name as that flag wherever it stands, also as another flag's value
 *   (`--task-id "$id" --message-file -` failed for an id `--message-file=…`): a value that starts with `-` reaches
 *   it as `--task-id=VALUE`, and a repeatable flag's value that reads as a flag is refused;
 * - it reads no empty `--message=` and no value of several lines after an `=`: those reach it as two words;
 * - it takes an unknown flag for a free argument (`task get UID --bogus` asked for the Task `--bogus`) and then
 *   names another argument unknown: an unknown flag is refused by its name, with the flag it may be a typo of
 *   or the argument it spells (`--task-id` for `<task_id>`).
 *
 * @since 0.2.0
 */
import type * as CliConfig from "@effect/cli/CliConfig"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Either from "effect/Either"
import * as LogLevel from "effect/LogLevel"
import { closestName } from "../internal/closestName.js"

/**
 * What the check needs of a flag (`GroupHelp.Flag` is one).
 *
 * @since 0.2.0
 * @category models
 */
export interface Flag {
  readonly names: ReadonlyArray<string>
  readonly takesValue: boolean
  readonly repeatable: boolean
  /** The only values the flag takes (`--output`: json, text); none for any value. */
  readonly choices: ReadonlyArray<string>
}

/**
 * A command's flags by each of their names (`--output` and `-o` give the same flag).
 *
 * @since 0.2.0
 * @category models
 */
export type FlagIndex = ReadonlyMap<string, Flag>

/**
 * What the check knows of a command line: its flags, and the names of its arguments (`<task_id>`).
 *
 * @since 0.2.0
 * @category models
 */
export interface CommandLine {
  readonly flags: FlagIndex
  readonly argumentNames: ReadonlyArray<string>
}

/**
 * The index of a command's flags (as `GroupHelp.flagsOf` reads them).
 *
 * @since 0.2.0
 * @category constructors
 */
export const indexOf = (flags: ReadonlyArray<Flag>): FlagIndex =>
  new Map(flags.flatMap((flag) => flag.names.map((name) => [name, flag] as const)))

/**
 * Whether `arg` is a flag of the index that takes a value.
 *
 * @since 0.2.0
 * @category parsing
 */
export const takesValue = (index: FlagIndex, arg: string): boolean => index.get(arg)?.takesValue === true

/**
 * `args` without the values of the index's flags that take one (`--message --help` sends "--help"). After `--`
 * no word is a flag's value.
 *
 * @since 0.2.0
 * @category parsing
 */
export const withoutFlagValues = (args: ReadonlyArray<string>, index: FlagIndex): ReadonlyArray<string> => {
  const words: Array<string> = []
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] ?? ""
    if (arg === "--") return [...words, ...args.slice(at)]
    words.push(arg)
    if (takesValue(index, arg)) at++
  }
  return words
}

/**
 * The flag @effect/cli adds to every command that is not answered before the check (`--help`, `--version`,
 * `--completions` and `--wizard` are): `--log-level LEVEL`.
 *
 * @since 0.2.0
 * @category models
 */
export const builtIn: Flag = {
  names: ["--log-level"],
  takesValue: true,
  repeatable: false,
  choices: LogLevel.allLevels.map((level) => level._tag.toLowerCase())
}

const longName = (flag: Flag, given: string): string =>
  (flag.names.find((name) => name.startsWith("--")) ?? given).replace(/^-+/, "")

const missingValue = (given: string) => ValidationError.missingValue(HelpDoc.p(`Missing value for ${given}`))

const invalid = (flag: Flag, given: string, reason: string) =>
  ValidationError.invalidValue(HelpDoc.p(`Invalid ${longName(flag, given)}: ${reason}`))

// `--task-id` for the argument `<task_id>`: the flag spelling of an argument's name.
const argumentSpelled = (given: string, argumentNames: ReadonlyArray<string>): string | undefined =>
  argumentNames.find((name) => name === `<${given.replace(/^-+/, "").replaceAll("-", "_")}>`)

const unknownFlag = (given: string, command: CommandLine, config: CliConfig.CliConfig) => {
  const argument = argumentSpelled(given, command.argumentNames)
  const near = closestName(
    given,
    Array.from(command.flags.keys()).filter((name) => name.startsWith("--") && !builtIn.names.includes(name)),
    config
  )
  const hint = argument !== undefined
    ? `${argument} is an argument: give its value without a flag`
    : near === undefined
    ? `an argument that starts with "-" goes after --`
    : `did you mean ${near}?`
  return ValidationError.invalidValue(HelpDoc.p(`Unknown flag ${given} (${hint})`))
}

const repeatableValueProblem = (value: string, index: FlagIndex): string | undefined =>
  value === ""
    ? "must not be empty"
    : value.trim() !== value
    ? `must not start or end with whitespace (got ${JSON.stringify(value)})`
    : readsAsFlag(value, index)
    ? `must not be a flag (got ${value})`
    : undefined

// What @effect/cli takes for a flag wherever it stands, whichever flag's value it is: `--file`, `--file=a.pdf`.
const readsAsFlag = (value: string, index: FlagIndex): boolean =>
  index.has(value) || (value.startsWith("--") && index.has(value.split("=", 1)[0] ?? ""))

// A one-line value that starts with `-` goes as `--task-id=VALUE`, where @effect/cli never reads it as a flag
// (it reads neither an empty `--task-id=` nor a value of several lines there).
const spelledFor = (flag: Flag, given: string, value: string): ReadonlyArray<string> =>
  !flag.repeatable && value.startsWith("-") && !/[\n\r\u2028\u2029]/.test(value)
    ? [`--${longName(flag, given)}=${value}`]
    : [given, value]

/**
 * The arguments (after the executable) of `command` as @effect/cli is to read them,
 * or the usage error of the first unknown flag, flag whose value is missing, given a second time (unless
 * repeatable), or of a repeatable flag whose value is empty, starts or ends with whitespace, or is a flag's name.
 * Arguments after `--` are left as they are, and so is a lone `-`.
 *
 * @since 0.2.0
 * @category parsing
 */
export const checked = (
  args: ReadonlyArray<string>,
  command: CommandLine,
  config: CliConfig.CliConfig
): Either.Either<ReadonlyArray<string>, ValidationError.ValidationError> => {
  const index = command.flags
  const spelled: Array<string> = []
  const given = new Set<Flag>()
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
    if (flag === undefined && name.startsWith("-") && name !== "-") {
      return Either.left(unknownFlag(name, command, config))
    }
    if (flag === undefined || !flag.takesValue) {
      spelled.push(arg)
      continue
    }
    const value = equals > 0 ? arg.slice(equals + 1) : args[++at]
    if (value === undefined) return Either.left(missingValue(name))
    const problem = flag.repeatable
      ? repeatableValueProblem(value, index)
      : flag.choices.length > 0 && !flag.choices.includes(value)
      ? `expected one of ${flag.choices.join(", ")} (got ${JSON.stringify(value)})`
      : undefined
    if (problem !== undefined) return Either.left(invalid(flag, name, problem))
    spelled.push(...spelledFor(flag, name, value))
  }
  return Either.right(spelled)
}
