/**
 * `mainsequence agent session a2a task get|wait|cancel <agent_session_uid> <task_id>` (SPEC §7, §8): each
 * one SDK call with its own budget; the Task is printed as `{"task": …}`.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import type { A2AClient, A2AError } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as A2ACall from "../A2ACall.js"
import type { CliConfigError } from "../CliConfig.js"
import { agentSessionUid, debug, output, timeout } from "../flags/common.js"
import * as GroupHelp from "../GroupHelp.js"
import { type Output, type OutputWriteError, printAnswer } from "../Output.js"
import * as RunRecord from "../RunRecord.js"

const flags = {
  agentSessionUid,
  taskId: Args.text({ name: "task_id" }).pipe(Args.withDescription("The Task id")),
  timeout,
  output,
  debug
} as const

/**
 * The parsed command line of a task command.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskFlags = Command.Command.ParseConfig<typeof flags>

type TaskCall = "getA2ATask" | "waitForA2ATask" | "cancelA2ATask"

/**
 * Runs one Task helper of the SDK.
 *
 * @since 0.1.0
 * @category handlers
 */
export const runTaskCall = (call: TaskCall) =>
(
  flags: TaskFlags
): Effect.Effect<
  void,
  A2AError.TaskError | CliConfigError | OutputWriteError,
  A2ACall.ClientEnvironment | Output
> =>
  Effect.gen(function*() {
    yield* RunRecord.record({ agentSessionUid: flags.agentSessionUid })
    const task = yield* A2ACall.run(
      (client: A2AClient.Service) =>
        client[call](flags.agentSessionUid, flags.taskId, { timeout: Option.getOrUndefined(flags.timeout) }),
      { debug: flags.debug }
    )
    yield* printAnswer(task, flags.output, flags.agentSessionUid)
  })

const taskCommand = <Name extends string>(name: Name, call: TaskCall, description: string) => {
  const command = Command.make(name, flags, runTaskCall(call)).pipe(Command.withDescription(description))
  return { command, help: GroupHelp.leaf(command, description) }
}

const get = taskCommand("get", "getA2ATask", "Print the Task's current state")
const wait = taskCommand(
  "wait",
  "waitForA2ATask",
  "Wait until the Task ends or needs input (its state on stderr meanwhile), then print it"
)
const cancel = taskCommand("cancel", "cancelA2ATask", "Cancel the Task and print it")

/**
 * The `task` group: its path below `a2a` and description.
 *
 * @since 0.1.0
 * @category commands
 */
export const group: GroupHelp.Group = {
  path: ["task"],
  description: "Follow a Task started with send --response-kind task"
}

/**
 * The commands of the `task` group (the group itself is made in `Cli.ts`, as every group is).
 *
 * @since 0.2.0
 * @category commands
 */
export const commands = [get.command, wait.command, cancel.command] as const

/**
 * The commands as listed in the help of the groups above them.
 *
 * @since 0.1.0
 * @category commands
 */
export const help: ReadonlyArray<GroupHelp.Leaf> = GroupHelp.under(group.path, [get.help, wait.help, cancel.help])
