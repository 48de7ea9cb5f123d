/**
 * The CLI's configuration, read from the environment through Effect `Config` (SPEC §8):
 *
 * - `MAINSEQUENCE_ENDPOINT`, `MAINSEQUENCE_ACCESS_TOKEN` (required), `MAINSEQUENCE_REFRESH_TOKEN`,
 *   `MAINSEQUENCE_USERNAME`, `MAINSEQUENCE_MAX_RESPONSE_BYTES` (optional) — read by the SDK's `A2AClient.config`
 * - `MAINSEQUENCE_CONFIG_DIR` — default `$XDG_CONFIG_HOME/mainsequence`, else `~/.config/mainsequence`
 *
 * @since 0.1.0
 */
import * as Path from "@effect/platform/Path"
import { A2AClient } from "@mainsequence/a2a"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import type * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as os from "node:os"
import { closestName } from "./internal/closestName.js"

/**
 * The variable that names the config directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const configDirVariable = "MAINSEQUENCE_CONFIG_DIR"

/**
 * The `MAINSEQUENCE_*` variables the CLI reads: those of the SDK's `A2AClient.config`, and the config directory.
 *
 * @since 0.2.0
 * @category constants
 */
export const variables: ReadonlyArray<string> = [
  "MAINSEQUENCE_ENDPOINT",
  "MAINSEQUENCE_ACCESS_TOKEN",
  "MAINSEQUENCE_REFRESH_TOKEN",
  "MAINSEQUENCE_USERNAME",
  "MAINSEQUENCE_MAX_RESPONSE_BYTES",
  configDirVariable
]

const optionalNonBlank = (name: string): Config.Config<string | undefined> =>
  Config.option(Config.string(name)).pipe(
    Config.map((value) => Option.getOrUndefined(Option.filter(Option.map(value, (s) => s.trim()), (s) => s.length > 0)))
  )

/**
 * The SDK client options from the environment — the SDK's own `A2AClient.config` (tokens stay `Redacted`).
 *
 * @since 0.1.0
 * @category config
 */
export const clientOptions: Config.Config<A2AClient.A2AClientOptions> = A2AClient.config

/**
 * The config directory: `MAINSEQUENCE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/mainsequence` (when it is absolute),
 * else `$HOME/.config/mainsequence`.
 *
 * @since 0.1.0
 * @category config
 */
export const configDirectory: Effect.Effect<string, ConfigError.ConfigError, Path.Path> = Effect.gen(function*() {
  const path = yield* Path.Path
  const explicit = yield* optionalNonBlank(configDirVariable)
  if (explicit !== undefined) return path.resolve(explicit)
  const xdg = yield* optionalNonBlank("XDG_CONFIG_HOME")
  // The XDG Base Directory spec: a relative path is invalid and ignored.
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, "mainsequence")
  const home = (yield* optionalNonBlank("HOME")) ?? os.homedir()
  return path.join(home, ".config", "mainsequence")
})

/**
 * A `MAINSEQUENCE_*` variable that is set but not read, and the variable it is likely a misspelling of.
 *
 * @since 0.2.0
 * @category models
 */
export const UnreadVariable = Schema.Struct({ name: Schema.String, closest: Schema.optional(Schema.String) })

/**
 * @since 0.2.0
 * @category models
 */
export type UnreadVariable = typeof UnreadVariable.Type

const leafPaths = (
  flat: ConfigProvider.ConfigProvider.Flat,
  path: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<ReadonlyArray<string>>, ConfigError.ConfigError> =>
  Effect.flatMap(flat.enumerateChildren(path), (children) =>
    HashSet.size(children) === 0
      ? Effect.succeed([path])
      : Effect.map(Effect.forEach(children, (child) => leafPaths(flat, [...path, child])), (paths) => paths.flat()))

const isOurs = (segment: string): boolean => /^MAINSEQUENCE(_|$)/i.test(segment)

/**
 * The `MAINSEQUENCE_*` variables of the current `ConfigProvider` that the CLI does not read, by name, each with
 * the one of {@link variables} it is at most 2 edits from. The environment provider lists names upper-cased.
 *
 * @since 0.2.0
 * @category config
 */
export const unreadVariables: Effect.Effect<ReadonlyArray<UnreadVariable>> = Effect.configProviderWith((provider) =>
  Effect.flatMap(
    provider.flattened.enumerateChildren([]),
    (roots) => Effect.forEach(Array.from(roots).filter(isOurs), (root) => leafPaths(provider.flattened, [root]))
  ).pipe(
    Effect.map((paths) =>
      paths.flat().map((path) => path.join("_")).filter((name) => !variables.includes(name)).sort().map((name) => {
        const closest = closestName(name, variables)
        return closest === undefined ? { name } : { name, closest }
      })
    ),
    Effect.orElseSucceed(() => [])
  )
)

/**
 * `MAINSEQUENCE_ENDPIONT is set but not read (did you mean MAINSEQUENCE_ENDPOINT?)`
 *
 * @since 0.2.0
 * @category config
 */
export const unreadLine = (variable: UnreadVariable): string =>
  `${variable.name} is set but not read${variable.closest === undefined ? "" : ` (did you mean ${variable.closest}?)`}`

/**
 * A required setting is missing or invalid; `variables` names the environment variables, `unread` those set
 * under other `MAINSEQUENCE_*` names.
 *
 * @since 0.1.0
 * @category errors
 */
export class CliConfigError extends Schema.TaggedError<CliConfigError>()("CliConfigError", {
  variables: Schema.Array(Schema.String),
  reason: Schema.Literal("missing", "invalid"),
  detail: Schema.optional(Schema.String),
  unread: Schema.optional(Schema.Array(UnreadVariable))
}) {
  override get message(): string {
    const names = this.variables.join(", ")
    const unread = (this.unread ?? []).map((variable) => `; ${unreadLine(variable)}`).join("")
    return this.reason === "missing"
      ? `Missing configuration: ${names} ${
        this.variables.length === 1 ? "is" : "are"
      } not set in the environment${unread}`
      : `Invalid configuration: ${names}${this.detail === undefined ? "" : ` ${this.detail}`}`
  }
}

const leaves = (error: ConfigError.ConfigError): ReadonlyArray<ConfigError.ConfigError> =>
  error._op === "And" || error._op === "Or" ? [...leaves(error.left), ...leaves(error.right)] : [error]

const variableOf = (error: ConfigError.ConfigError): string =>
  error._op === "And" || error._op === "Or" ? "" : error.path.join("_")

/**
 * Turns Effect's `ConfigError` into a {@link CliConfigError} that names the variables, and for a missing one
 * those set under other names (`unread`).
 *
 * @since 0.1.0
 * @category errors
 */
export const fromConfigError = (
  error: ConfigError.ConfigError,
  unread: ReadonlyArray<UnreadVariable> = []
): CliConfigError => {
  const all = leaves(error)
  const missing = all.filter((leaf) => leaf._op === "MissingData")
  if (missing.length > 0) {
    const variables = [...new Set(missing.map(variableOf))]
    return new CliConfigError(
      unread.length === 0 ? { variables, reason: "missing" } : { variables, reason: "missing", unread }
    )
  }
  const first = all[0] ?? error
  return new CliConfigError({ variables: [variableOf(first)], reason: "invalid", detail: first.message })
}

/**
 * {@link fromConfigError} with the `MAINSEQUENCE_*` variables of the current `ConfigProvider` that are not read.
 *
 * @since 0.2.0
 * @category errors
 */
export const failWith = (error: ConfigError.ConfigError): Effect.Effect<never, CliConfigError> =>
  Effect.flatMap(unreadVariables, (unread) => Effect.fail(fromConfigError(error, unread)))
