/**
 * Where the CLI writes: stdout carries only the answer; stderr carries progress and the one-line errors.
 * A service, so tests can capture both streams.
 *
 * @since 0.1.0
 */
import { A2AProtocol } from "@mainsequence/a2a"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { type Resume, resumeLine, resumeOf, stateLine } from "./Resume.js"
import { json, oneLine, printable } from "./TerminalText.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Writes text to stdout as is (add the newline yourself); fails when stdout cannot take it (a full disk, a
   * failed device), and succeeds when its reader went away (`… | head`).
   */
  readonly stdout: (text: string) => Effect.Effect<void, OutputWriteError>
  /** Writes text to stderr as is (add the newline yourself); a failure there has nobody left to tell. */
  readonly stderr: (text: string) => Effect.Effect<void>
  /**
   * Whether stderr is an interactive terminal that may get escape codes (a live status line can be drawn):
   * false when it is not a terminal or `NO_COLOR` is set.
   */
  readonly stderrIsTTY: boolean
  /** Whether stdout may get ANSI styling (help): a terminal, and `NO_COLOR` not set. Default false. */
  readonly stdoutColor?: boolean | undefined
  /** The terminal's width, when stderr is one. */
  readonly stderrColumns: number | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Output extends Context.Tag("@mainsequence/cli/Output")<Output, Service>() {}

/**
 * stdout could not be written (exit 1): a full disk (`ENOSPC`), an I/O error (`EIO`), … — not a reader that went
 * away (`EPIPE`), which ends the output quietly.
 *
 * @since 0.2.0
 * @category errors
 */
export class OutputWriteError extends Schema.TaggedError<OutputWriteError>()("OutputWriteError", {
  code: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    return `Cannot write to standard output: ${this.reason}`
  }
}

const codeOf = (error: unknown): string | undefined =>
  Predicate.hasProperty(error, "code") && Predicate.isString(error.code) ? error.code : undefined

const writeTo = (stream: NodeJS.WriteStream) => (text: string): Effect.Effect<void, OutputWriteError> =>
  Effect.async((resume: (done: Effect.Effect<void, OutputWriteError>) => void) => {
    stream.write(text, (error) => {
      // After a first failure the stream is destroyed and every later write fails with ERR_STREAM_DESTROYED:
      // the first failure is the one to judge.
      const cause: unknown = stream.errored ?? error
      resume(
        Predicate.isNullable(cause) || codeOf(cause) === "EPIPE"
          ? Effect.void
          : Effect.fail(
            new OutputWriteError({
              code: codeOf(cause),
              reason: cause instanceof Error ? cause.message : String(cause)
            })
          )
      )
    })
  })

// Write failures are reported to the writer (see `writeTo`); without a listener the stream's `error` event
// would crash the process with a stack trace.
const ignoreStreamErrors = (stream: NodeJS.WriteStream): void => {
  if (stream.listenerCount("error") === 0) stream.on("error", () => undefined)
}

/**
 * The process's own stdout and stderr.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeProcess = (): Service => {
  ignoreStreamErrors(process.stdout)
  ignoreStreamErrors(process.stderr)
  return makeFrom(process.stdout, process.stderr)
}

/**
 * Whether a stream may get escape codes: it is a terminal and `NO_COLOR` (https://no-color.org) is not set.
 *
 * @since 0.1.0
 * @category constructors
 */
export const escapeCodesAllowed = (
  isTTY: boolean | undefined,
  env: Readonly<Record<string, string | undefined>>
): boolean => isTTY === true && (env["NO_COLOR"] ?? "") === ""

const makeFrom = (stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream): Service => ({
  stdout: writeTo(stdout),
  stderr: (text) => Effect.ignore(writeTo(stderr)(text)),
  stderrIsTTY: escapeCodesAllowed(stderr.isTTY, process.env),
  stderrColumns: stderr.isTTY === true ? stderr.columns : undefined,
  stdoutColor: escapeCodesAllowed(stdout.isTTY, process.env)
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layerProcess: Layer.Layer<Output> = Layer.sync(Output, makeProcess)

/**
 * Writes one line to stdout.
 *
 * @since 0.1.0
 * @category utils
 */
export const printLine = (text: string): Effect.Effect<void, OutputWriteError, Output> =>
  Effect.flatMap(Output, (output) => output.stdout(`${text}\n`))

/**
 * Writes one line to stderr.
 *
 * @since 0.1.0
 * @category utils
 */
export const printErrorLine = (text: string): Effect.Effect<void, never, Output> =>
  Effect.flatMap(Output, (output) => output.stderr(`${text}\n`))

/**
 * `--output json` (the answer in its wire shape, 2-space indent) or `--output text` (its text parts); `-o` for short.
 *
 * @since 0.1.0
 * @category models
 */
export type OutputFormat = "json" | "text"

/**
 * @since 0.1.0
 * @category constants
 */
export const outputFormats: ReadonlyArray<OutputFormat> = ["json", "text"]

/**
 * The output format the arguments (after the executable) ask for, as far as they can be read before they are
 * parsed (a run that fails to parse still answers in it): the last valid `--output` (`-o`) value, else the A2A
 * commands' default, `json`, for a command under `agent`; `undefined` (text) otherwise. The value of an option
 * (`takesValue`: `--message`, …) is never read as an option, nor is anything after `--`.
 *
 * @since 0.2.0
 * @category parsing
 */
export const requestedFormat = (
  args: ReadonlyArray<string>,
  takesValue: (option: string) => boolean
): OutputFormat | undefined => {
  let format: OutputFormat | undefined
  for (let i = 0; i < args.length && args[i] !== "--"; i++) {
    const arg = args[i] ?? ""
    const value = arg === "--output" || arg === "-o"
      ? args[i + 1]
      : arg.startsWith("--output=")
      ? arg.slice(9)
      : undefined
    format = outputFormats.find((known) => known === value) ?? format
    if (takesValue(arg)) i++
  }
  return format ?? (args[0] === "agent" ? "json" : undefined)
}

/**
 * Renders an A2A answer: JSON in its wire shape (`{"message": …}` or `{"task": …}`, plus `"resume"` when
 * given), or its text parts one per line (`TerminalText.printable`: nothing a terminal would act on).
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderAnswer = (
  answer: A2AProtocol.Message | A2AProtocol.Task,
  format: OutputFormat,
  resume?: Resume | undefined
): string =>
  format === "text"
    ? printable(A2AProtocol.textOf(answer).join("\n"))
    : json(
      A2AProtocol.isTask(answer) ? { task: answer, ...(resume === undefined ? {} : { resume }) } : { message: answer }
    )

/**
 * Under `--output text`, the stderr line that counts the answer's parts text output leaves out (data, files),
 * if there are any.
 *
 * @since 0.2.0
 * @category rendering
 */
export const untoldPartsLine = (answer: A2AProtocol.Message | A2AProtocol.Task): string | undefined => {
  const untold = A2AProtocol.partsOf(answer).filter((part) => !Predicate.isString(part.text))
  if (untold.length === 0) return undefined
  const count = (kind: "data" | "file" | "other") => untold.filter((part) => kindOf(part) === kind).length
  const kinds = [
    [count("data"), "data", "data"],
    [count("file"), "file", "files"],
    [count("other"), "other", "other"]
  ] as const
  const named = kinds.flatMap(([n, one, many]) => n === 0 ? [] : [`${n} ${n === 1 ? one : many}`])
  const parts = untold.length === 1 ? "1 part that is" : `${untold.length} parts that are`
  return `The answer has ${parts} not text (${named.join(", ")}); --output json prints it whole`
}

const kindOf = (part: A2AProtocol.Part): "data" | "file" | "other" =>
  part.data !== undefined && part.data !== null
    ? "data"
    : Predicate.isString(part.raw) || Predicate.isString(part.url)
    ? "file"
    : "other"

/**
 * Prints an A2A answer on stdout; for a Task that waits for its caller, stderr names the command that
 * answers it, for a Task still under way the command that waits for it, and for one that ended without
 * completing its state (see `Resume.ts`); under `--output text`, the parts it leaves out are counted there.
 *
 * @since 0.1.0
 * @category utils
 */
export const printAnswer = (
  answer: A2AProtocol.Message | A2AProtocol.Task,
  format: OutputFormat,
  agentSessionUid: string
): Effect.Effect<void, OutputWriteError, Output> => {
  const resume = resumeOf(answer, agentSessionUid)
  const lines = [
    format === "text" ? untoldPartsLine(answer) : undefined,
    resume === undefined ? stateLine(answer, agentSessionUid) : resumeLine(resume)
  ].filter(Predicate.isString)
  return Effect.zipRight(
    printLine(renderAnswer(answer, format, resume)),
    Effect.forEach(lines, (line) => printErrorLine(oneLine(line)), { discard: true })
  )
}
