/**
 * The main job: start the local reference platform, then drive the real `mainsequence` CLI against it —
 * a send to a session whose runtime cold-starts, a strict-dictionary send, a long job that outlasts
 * the Message limit as a direct Message but completes as a Task (send, then wait), and a Task that asks for
 * input and completes after a follow-up turn (`send --task-id`).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Command from "@effect/platform/Command"
import * as FileSystem from "@effect/platform/FileSystem"
import {
  demoInputRequiredQuestion,
  demoSessionUids,
  demoUserAccessToken,
  serveReferencePlatform
} from "@mainsequence/a2a-testing/node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { fileURLToPath } from "node:url"

const cli = fileURLToPath(new URL("../../packages/cli/bin/mainsequence.js", import.meta.url))

/** A short Message limit, so the demo's long job outlasts it in seconds rather than minutes. */
const messageLimitSeconds = 4

interface Step {
  readonly title: string
  readonly args: ReadonlyArray<string>
  /** The exit code the step is meant to end with. */
  readonly expectExit: number
  /** Pick a value out of the step's stdout for later steps. */
  readonly capture?: (stdout: string) => string
  /** The exact stdout (trimmed) the step is meant to print. */
  readonly expectStdout?: string
}

/** Bold on a terminal without NO_COLOR (the CLI's own rule); plain text into a pipe or a file. */
const bold = (text: string): string =>
  process.stdout.isTTY === true && (process.env["NO_COLOR"] ?? "") === "" ? `\u001b[1m${text}\u001b[0m` : text

const runStep = (env: Record<string, string>, step: Step) =>
  Effect.gen(function*() {
    yield* Console.log(`\n${bold(`▶ ${step.title}`)}\n$ mainsequence ${step.args.join(" ")}`)
    const process = yield* Command.make("node", cli, ...step.args).pipe(
      Command.env(env),
      Command.stderr("inherit"),
      Command.start
    )
    const stdout = yield* process.stdout.pipe(Stream.decodeText(), Stream.mkString)
    const exitCode = yield* process.exitCode
    yield* Console.log(stdout.trimEnd())
    if (exitCode !== step.expectExit) {
      return yield* Effect.dieMessage(`"${step.title}" exited ${exitCode}, expected ${step.expectExit}`)
    }
    if (step.expectStdout !== undefined && stdout.trim() !== step.expectStdout) {
      return yield* Effect.dieMessage(
        `"${step.title}" printed ${JSON.stringify(stdout)}, expected ${step.expectStdout}`
      )
    }
    return step.capture?.(stdout) ?? ""
  }).pipe(Effect.scoped)

const taskIdOf = (stdout: string): string => {
  const parsed: unknown = JSON.parse(stdout)
  if (typeof parsed === "object" && parsed !== null && "task" in parsed) {
    const task: unknown = parsed.task
    if (typeof task === "object" && task !== null && "id" in task && typeof task.id === "string") return task.id
  }
  throw new Error(`no task id in: ${stdout}`)
}

const main = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const configDir = yield* fs.makeTempDirectoryScoped({ prefix: "mainsequence-demo-" })
  const { url } = yield* serveReferencePlatform({ port: 0, messageLimitSeconds })
  yield* Console.log(`Reference platform on ${url} (Message limit ${messageLimitSeconds} s)`)
  const env = {
    MAINSEQUENCE_ENDPOINT: url,
    MAINSEQUENCE_ACCESS_TOKEN: Redacted.value(demoUserAccessToken),
    MAINSEQUENCE_CONFIG_DIR: configDir
  }
  const run = (step: Step) => runStep(env, step)

  yield* run({
    title: "Send to a session whose runtime is still asleep (progress on stderr, answer on stdout)",
    args: ["agent", "session", "a2a", "send", demoSessionUids.coldStart, "--message", "What can you do?"],
    expectExit: 0
  })
  yield* run({
    title: "Again: runtime access now comes from the 0600 cache, no waiting",
    args: [
      "agent",
      "session",
      "a2a",
      "send",
      demoSessionUids.coldStart,
      "--message",
      "Hello again",
      "--output",
      "text"
    ],
    expectExit: 0
  })
  yield* run({
    title: "A strict JSON dictionary",
    args: [
      "agent",
      "session",
      "a2a",
      "send",
      demoSessionUids.ready,
      "--message",
      "Return a JSON dictionary with keys ok and answer.",
      "--strict-dictionary"
    ],
    expectExit: 0
  })
  yield* run({
    title: `A long job as a direct Message hits the ${messageLimitSeconds} s Message limit`,
    args: ["agent", "session", "a2a", "send", demoSessionUids.taskJob, "--message", "Run the long report"],
    // SPEC §8: out of time or over the Message limit
    expectExit: 5
  })
  const taskId = yield* run({
    title: "The same job as a Task",
    args: [
      "agent",
      "session",
      "a2a",
      "send",
      demoSessionUids.taskJob,
      "--message",
      "Run the long report",
      "--response-kind",
      "task"
    ],
    expectExit: 0,
    capture: taskIdOf
  })
  yield* run({
    title: "Wait for the Task to finish",
    args: ["agent", "session", "a2a", "task", "wait", demoSessionUids.taskJob, taskId, "--output", "text"],
    expectExit: 0
  })

  const a2a = ["agent", "session", "a2a"]
  const asking = demoSessionUids.inputRequired
  const askingTaskId = yield* run({
    title: "A Task whose Agent will ask for input",
    args: [...a2a, "send", asking, "--message", "Write the quarterly report", "--response-kind", "task"],
    expectExit: 0,
    capture: taskIdOf
  })
  yield* run({
    title: "Wait: the Task stops at INPUT_REQUIRED and prints the Agent's question",
    args: [...a2a, "task", "wait", asking, askingTaskId, "--output", "text"],
    expectExit: 0,
    expectStdout: demoInputRequiredQuestion
  })
  const answeredTaskId = yield* run({
    title: "Answer it: a follow-up turn for the same Task (--task-id)",
    args: [
      ...a2a,
      "send",
      asking,
      "--message",
      "Europe",
      "--response-kind",
      "task",
      "--task-id",
      askingTaskId
    ],
    expectExit: 0,
    capture: taskIdOf
  })
  if (answeredTaskId !== askingTaskId) {
    return yield* Effect.dieMessage(`the follow-up answered Task ${answeredTaskId}, not ${askingTaskId}`)
  }
  yield* run({
    title: "Wait again: the Task completes with the answer",
    args: [...a2a, "task", "wait", asking, answeredTaskId, "--output", "text"],
    expectExit: 0,
    expectStdout: "Report ready for: Europe"
  })
  yield* Console.log("\nDemo finished; the reference platform stops.")
}).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

NodeRuntime.runMain(main)
