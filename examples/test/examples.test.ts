/**
 * Runs the compiled examples (`dist/*.js`, built by the root `tsc -b`) against the reference platform
 * over real HTTP, as a user would run them.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import {
  demoSessionUids,
  demoUserAccessToken,
  type ReferencePlatform,
  serveReferencePlatform
} from "@mainsequence/a2a-testing/node"
import { Effect, Exit, Redacted, Scope } from "effect"
import { type ChildProcess, execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

let scope: Scope.CloseableScope
let reference: ReferencePlatform

const runExample = (name: string, ...args: ReadonlyArray<string>) => runExampleWith(name, args, () => {})

const runExampleWith = (name: string, args: ReadonlyArray<string>, onSpawn: (child: ChildProcess) => void) =>
  new Promise<Run>((resolve) => {
    const script = fileURLToPath(new URL(`../dist/${name}.js`, import.meta.url))
    const child = execFile(process.execPath, [script, ...args], {
      env: {
        ...process.env,
        MAINSEQUENCE_ENDPOINT: reference.url,
        MAINSEQUENCE_ACCESS_TOKEN: Redacted.value(demoUserAccessToken)
      },
      timeout: 20_000
    }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
      resolve({ code, stdout, stderr })
    })
    onSpawn(child)
  })

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  reference = await Effect.runPromise(Scope.extend(serveReferencePlatform({ port: 0 }), scope))
})

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

describe("examples", () => {
  it("effect-app prints the answer", async () => {
    const run = await runExample("effect-app", demoSessionUids.ready, "hello")
    expect(run).toMatchObject({ code: 0, stdout: "You said: hello\n" })
  })

  it("effect-app handles AgentRuntimeUnavailableError by tag", async () => {
    const run = await runExample("effect-app", demoSessionUids.updateRequired, "hello")
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("The Agent cannot take messages now")
  })

  it("opentelemetry prints the spans and the metrics of one send", async () => {
    const run = await runExample("opentelemetry", demoSessionUids.ready, "hello")
    expect(run.code).toBe(0)
    const names = run.stdout.split("\n").map((line) => line.trim().split(/\s+/)[0])
    expect(names[0]).toBe("example.askAgent")
    expect(names).toEqual(expect.arrayContaining([
      "SendMessage",
      "a2a.client.resolution",
      "a2a.client.resolve_runtime_access",
      "POST",
      "a2a.client.call.duration",
      "http.client.request.duration",
      "a2a.client.cache.lookups"
    ]))
    expect(run.stdout).not.toContain(Redacted.value(demoUserAccessToken))
    // the units OpenTelemetry's conventions and the SDK's README give, as the exporter reads them
    const units = new Map(
      run.stdout.split("\n").map((line) => line.trim().split(/\s+/)).map(([name, unit]) => [name, unit])
    )
    expect(
      Object.fromEntries(
        [
          "a2a.client.call.duration",
          "http.client.request.duration",
          "a2a.client.calls.active",
          "a2a.client.cache.lookups",
          "a2a.client.runtime_access.resolutions"
        ].map((name) => [name, units.get(name)])
      )
    ).toEqual({
      "a2a.client.call.duration": "s",
      "http.client.request.duration": "s",
      "a2a.client.calls.active": "{call}",
      "a2a.client.cache.lookups": "{lookup}",
      "a2a.client.runtime_access.resolutions": "{resolution}"
    })
  })

  it("promise prints the answer, and rejects with the SDK's error classes", async () => {
    expect(await runExample("promise", demoSessionUids.ready, "hello")).toMatchObject({
      code: 0,
      stdout: "You said: hello\n"
    })
    const outdated = await runExample("promise", demoSessionUids.updateRequired, "hello")
    expect(outdated.code).toBe(2)
    expect(outdated.stderr).not.toBe("")
  })

  it("promise: Ctrl-C aborts the send and names the message id to retry it with, exit 130", async () => {
    const sent = () =>
      Effect.runPromise(reference.platform.requestLog).then((log) =>
        log.filter((entry) => entry.route === "message-send" && entry.sessionUid === demoSessionUids.slow)
      )
    const before = (await sent()).length
    const run = await runExampleWith("promise", [demoSessionUids.slow, "hello"], (child) => {
      const poll = setInterval(() => {
        void sent().then((log) => {
          if (log.length > before) {
            clearInterval(poll)
            child.kill("SIGINT")
          }
        })
      }, 20)
    })
    expect(run.code).toBe(130)
    const id = /Its id, for a retry: (msg-[\w-]+)$/m.exec(run.stderr)?.[1]
    expect(id).toBeDefined()
    expect((await sent()).at(-1)?.messageId).toBe(id)
    expect(run.stderr).not.toMatch(/^\s+at /m)
  })
})
