/**
 * The name a misspelt one most likely means: the nearest of `names` by edit distance, within the limit and
 * case rule of @effect/cli's configuration, as it suggests a command's name.
 */
import * as AutoCorrect from "@effect/cli/AutoCorrect"
import * as CliConfig from "@effect/cli/CliConfig"

/** `undefined` when no name is near enough. */
export const closestName = (
  given: string,
  names: Iterable<string>,
  config: CliConfig.CliConfig = CliConfig.defaultConfig
): string | undefined =>
  Array.from(names)
    .map((name) => ({ name, distance: AutoCorrect.levensteinDistance(given, name, config) }))
    .filter(({ distance }) => distance <= config.autoCorrectLimit)
    .sort((a, b) => a.distance - b.distance)[0]?.name
