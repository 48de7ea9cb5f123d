import { NodeContext } from "@effect/platform-node"
import { A2AClient, type A2AError, A2AProgress, A2AProtocol } from "@mainsequence/a2a"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ClientEnvironment } from "../../src/A2ACall.js"
import * as Cli from "../../src/Cli.js"
import type { CliConfigError } from "../../src/CliConfig.js"
import { Output } from "../../src/Output.js"

export interface Call {
  readonly method: "sendA2AMessage" | "getA2ATask" | "waitForA2ATask" | "cancelA2ATask"
  readonly agentSessionUid: string
  readonly args: ReadonlyArray<unknown>
}

export interface FakeClientOptions {
  readonly answer?: A2AProtocol.Message | A2AProtocol.Task
  readonly failWith?: Extract<A2AError.SendError, A2AError.TaskError>
  readonly configError?: CliConfigError
  /** the call reports these progress events, then is interrupted (as by a signal) */
  readonly interruptedAfter?: ReadonlyArray<A2AProgress.A2AProgressEvent>
  /** stdout is a terminal without NO_COLOR: help may be styled */
  readonly color?: boolean
}

export const agentMessage = (contextId: string): A2AProtocol.Message => ({
  messageId: "agent-msg-1",
  role: "ROLE_AGENT",
  contextId,
  parts: [{ text: "Hello" }, { data: { ok: true } }, { text: "World" }],
  extraField: { kept: true }
})

export const sessionUid = "0b2701a1-e777-4cfe-8437-b94025f00069"

/**
 * Runs the command line against a fake client; returns what it printed and its exit code. stdout also
 * receives the console's log stream (where `--help` goes).
 */
export const runCli = (args: ReadonlyArray<string>, options: FakeClientOptions = {}) =>
  Effect.gen(function*() {
    const calls: Array<Call> = []
    let stdout = ""
    let stderr = ""
    const answer = (method: Call["method"], agentSessionUid: string, rest: ReadonlyArray<unknown>) =>
      Effect.suspend(() => {
        calls.push({ method, agentSessionUid, args: rest })
        return options.interruptedAfter !== undefined
          ? Effect.zipRight(Effect.forEach(options.interruptedAfter, A2AProgress.report), Effect.interrupt)
          : options.failWith === undefined
          ? Effect.succeed(options.answer ?? agentMessage(agentSessionUid))
          : Effect.fail(options.failWith)
      })
    const task =
      (method: Call["method"]) => (agentSessionUid: string, taskId: string, callOptions?: A2AClient.TaskCallOptions) =>
        Effect.flatMap(
          answer(method, agentSessionUid, [taskId, callOptions]),
          (value) => A2AProtocol.isTask(value) ? Effect.succeed(value) : Effect.die("the fake answered a Message")
        )
    function sendA2AMessage(
      uid: string,
      input: A2AClient.SendA2AMessageInput & { readonly responseKind: "task" }
    ): Effect.Effect<A2AProtocol.Task, A2AError.SendError>
    function sendA2AMessage(
      uid: string,
      input: A2AClient.SendA2AMessageInput & { readonly responseKind?: "message" | undefined }
    ): Effect.Effect<A2AProtocol.Message, A2AError.SendError>
    function sendA2AMessage(
      uid: string,
      input: A2AClient.SendA2AMessageInput
    ): Effect.Effect<A2AProtocol.Message | A2AProtocol.Task, A2AError.SendError>
    function sendA2AMessage(
      uid: string,
      input: A2AClient.SendA2AMessageInput
    ): Effect.Effect<A2AProtocol.Message | A2AProtocol.Task, A2AError.SendError> {
      return answer("sendA2AMessage", uid, [input])
    }
    const client: A2AClient.Service = {
      sendA2AMessage,
      getA2ATask: task("getA2ATask"),
      waitForA2ATask: task("waitForA2ATask"),
      cancelA2ATask: task("cancelA2ATask")
    }
    const clientLayer = options.configError === undefined
      ? Layer.succeed(A2AClient.A2AClient, client)
      : Layer.fail(options.configError)
    const output = Layer.succeed(Output, {
      stdout: (text) => Effect.sync(() => void (stdout += text)),
      stderr: (text) => Effect.sync(() => void (stderr += text)),
      stderrIsTTY: false,
      stderrColumns: undefined,
      stdoutColor: options.color ?? false
    })
    const console = yield* Console.consoleWith(Effect.succeed)
    const capturing: Console.Console = {
      ...console,
      log: (...parts) => Effect.sync(() => void (stdout += `${parts.join(" ")}\n`))
    }
    const exitCode = yield* Cli.main(["node", "mainsequence", ...args]).pipe(
      Effect.withConsole(capturing),
      Effect.provide(
        Layer.mergeAll(NodeContext.layer, output, Layer.succeed(ClientEnvironment, { layer: () => clientLayer }))
      )
    )
    return { exitCode, stdout, stderr, calls }
  })
