/**
 * The CLI's configuration, read from the environment through Effect `Config` (SPEC §8):
 *
 * - `MAINSEQUENCE_ENDPOINT`, `MAINSEQUENCE_ACCESS_TOKEN` (required), `MAINSEQUENCE_REFRESH_TOKEN`,
 *   `MAINSEQUENCE_USERNAME` (optional) — read by the SDK's `A2AClient.config`
 * - `MAINSEQUENCE_CONFIG_DIR` — default `$XDG_CONFIG_HOME/mainsequence`, else `~/.config/mainsequence`
 *
 * @since 0.1.0
 */
import * as Path from "@effect/platform/Path"
import { A2AClient } from "@mainsequence/a2a"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as os from "node:os"

/**
 * The variable that names the config directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const configDirVariable = "MAINSEQUENCE_CONFIG_DIR"

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
 * The config directory: `MAINSEQUENCE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/mainsequence`, else
 * `$HOME/.config/mainsequence`.
 *
 * @since 0.1.0
 * @category config
 */
export const configDirectory: Effect.Effect<string, ConfigError.ConfigError, Path.Path> = Effect.gen(function*() {
  const path = yield* Path.Path
  const explicit = yield* optionalNonBlank(configDirVariable)
  if (explicit !== undefined) return path.resolve(explicit)
  const xdg = yield* optionalNonBlank("XDG_CONFIG_HOME")
  if (xdg !== undefined) return path.join(path.resolve(xdg), "mainsequence")
  const home = (yield* optionalNonBlank("HOME")) ?? os.homedir()
  return path.join(home, ".config", "mainsequence")
})

/**
 * A required setting is missing or invalid; `variables` names the environment variables.
 *
 * @since 0.1.0
 * @category errors
 */
export class CliConfigError extends Schema.TaggedError<CliConfigError>()("CliConfigError", {
  variables: Schema.Array(Schema.String),
  reason: Schema.Literal("missing", "invalid"),
  detail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const names = this.variables.join(", ")
    return this.reason === "missing"
      ? `Missing configuration: ${names} ${this.variables.length === 1 ? "is" : "are"} not set in the environment`
      : `Invalid configuration: ${names}${this.detail === undefined ? "" : ` ${this.detail}`}`
  }
}

const leaves = (error: ConfigError.ConfigError): ReadonlyArray<ConfigError.ConfigError> =>
  error._op === "And" || error._op === "Or" ? [...leaves(error.left), ...leaves(error.right)] : [error]

const variableOf = (error: ConfigError.ConfigError): string =>
  error._op === "And" || error._op === "Or" ? "" : error.path.join("_")

/**
 * Turns Effect's `ConfigError` into a {@link CliConfigError} that names the variables.
 *
 * @since 0.1.0
 * @category errors
 */
export const fromConfigError = (error: ConfigError.ConfigError): CliConfigError => {
  const all = leaves(error)
  const missing = all.filter((leaf) => leaf._op === "MissingData")
  if (missing.length > 0) {
    return new CliConfigError({ variables: [...new Set(missing.map(variableOf))], reason: "missing" })
  }
  const first = all[0] ?? error
  return new CliConfigError({ variables: [variableOf(first)], reason: "invalid", detail: first.message })
}
