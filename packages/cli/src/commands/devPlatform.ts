/**
 * `mainsequence dev platform [--port N]`: serves the reference platform (the simulation of
 * `@mainsequence/a2a-testing`) on 127.0.0.1 until interrupted.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The reference platform could not be started.
 *
 * @since 0.1.0
 * @category errors
 */
export class DevPlatformError extends Schema.TaggedError<DevPlatformError>()("DevPlatformError", {
  reason: Schema.String
}) {
  override get message(): string {
    return `Cannot start the reference platform: ${this.reason}`
  }
}

const flags = {
  port: Options.integer("port").pipe(
    Options.withPseudoName("N"),
    Options.withDescription("The port on 127.0.0.1 (default: a free one)"),
    Options.withDefault(0)
  )
} as const

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "platform",
  flags,
  () => Effect.fail(new DevPlatformError({ reason: "not available yet in this build" }))
).pipe(Command.withDescription("Serve the local reference platform (backend + runtime + demo Agent) until Ctrl-C"))
