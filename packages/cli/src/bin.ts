/**
 * The `mainsequence` executable: runs the command line and exits with its code (SPEC §8, see `Failure.ts`):
 * 0 success, 1 other failure, 2 usage / bad input / missing configuration, 3 runtime not ready or
 * unavailable, 4 authentication or permission, 5 out of time, 6 connection failed, 130 interrupted (Ctrl-C,
 * SIGINT), 143 stopped by SIGTERM (128 + the signal's number, as supervisors, `timeout` and container
 * runtimes read it).
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Predicate from "effect/Predicate"
import * as Cli from "./Cli.js"
import { ExitCode, exitCodeOfSignal } from "./Failure.js"
import * as LiveEnvironment from "./LiveEnvironment.js"
import * as Output from "./Output.js"

let stoppedBy: NodeJS.Signals | undefined

// With `--output json`, an interruption's document carries the exit code of the signal that stopped the run.
const main = Cli.main(process.argv, { interruptedExitCode: () => exitCodeOfSignal(stoppedBy) }).pipe(
  // stderr carries only progress and the one-line errors, never log output.
  Logger.withMinimumLogLevel(LogLevel.None),
  Effect.provide(Layer.mergeAll(NodeContext.layer, Output.layerProcess, LiveEnvironment.layer)),
  // Only the command is interruptible (Failure.toExitCode): a signal while the layers are built stops it, reported.
  Effect.uninterruptible
)

// NodeRuntime.runMain interrupts the program on SIGINT and SIGTERM alike; which one came decides the exit code.
// A second signal within a second is the same one delivered twice (npx forwards the terminal's Ctrl-C to its
// child) and lets the interruption finish; a later one ends the process at once.
let stoppedAt = 0
const onSignal = (signal: NodeJS.Signals) => {
  if (stoppedBy === undefined) {
    stoppedBy = signal
    stoppedAt = performance.now()
  } else if (performance.now() - stoppedAt >= 1000) {
    process.removeListener("SIGINT", onSignal)
    process.removeListener("SIGTERM", onSignal)
    process.kill(process.pid, signal)
  }
}
process.on("SIGINT", onSignal)
process.on("SIGTERM", onSignal)

NodeRuntime.runMain(main, {
  disableErrorReporting: true,
  teardown: (exit, onExit) =>
    onExit(
      Exit.match(exit, {
        // The teardown is generic in the exit's value; `main` always succeeds with its exit code.
        onSuccess: (code) => Predicate.isNumber(code) ? code : ExitCode.success,
        onFailure: (cause) => Cause.isInterruptedOnly(cause) ? exitCodeOfSignal(stoppedBy) : ExitCode.failure
      })
    )
})
