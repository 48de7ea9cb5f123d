import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import {
  demoSessionUids,
  demoUserAccessToken,
  type ReferencePlatform,
  serveReferencePlatform
} from "@mainsequence/a2a-testing/node"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as A2AError from "../src/A2AError.js"
import * as A2AProtocol from "../src/A2AProtocol.js"
import { type CallOptions, makeA2AClient, type PromiseA2AClient, type TaskCallOptions } from "../src/promise.js"

const failingBackendUid = "5e55a0e1-0000-4000-8000-0000000000f1"

let scope: Scope.CloseableScope
let reference: ReferencePlatform
let client: PromiseA2AClient

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  reference = await Effect.runPromise(Scope.extend(serveReferencePlatform({ port: 0 }), scope))
  await Effect.runPromise(reference.platform.addSession({
    sessionUid: failingBackendUid,
    agentUid: "a9e47000-0000-4000-8000-0000000000f1",
    serviceUid: "5e7f1ce0-0000-4000-8000-0000000000f1",
    backend: { resolveFault: { status: 503, detail: "maintenance" } }
  }))
  client = makeA2AClient({ backendUrl: reference.url, accessToken: Redacted.value(demoUserAccessToken) })
})

afterAll(async () => {
  await client.dispose()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** Whether the reference platform has received the send with `messageId`, asked again on each I/O turn. */
const received = async (messageId: string): Promise<boolean> => {
  const sent = Effect.map(reference.platform.requestLog, (log) => log.some((entry) => entry.messageId === messageId))
  for (let tries = 0; tries < 500 && !(await Effect.runPromise(sent)); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return Effect.runPromise(sent)
}

describe("@mainsequence/a2a/promise", () => {
  it("sends a message and resolves with the Agent's Message", async () => {
    const answer = await client.sendA2AMessage(demoSessionUids.ready, { message: "hi" })
    expect(answer.role).toBe("ROLE_AGENT")
    expect(A2AProtocol.textOf(answer)).toEqual(["You said: hi"])
  })

  it("accepts a Redacted token and follows a cold start", async () => {
    const other = makeA2AClient({ backendUrl: reference.url, accessToken: demoUserAccessToken, username: "ada" })
    try {
      const answer = await other.sendA2AMessage(demoSessionUids.coldStart, { message: "wake up" })
      expect(A2AProtocol.textOf(answer)).toEqual(["You said: wake up"])
    } finally {
      await other.dispose()
    }
  }, 15_000)

  it("rejects with the SDK's error classes", async () => {
    const blank = await client.sendA2AMessage(demoSessionUids.ready, { message: " " }).catch((e: unknown) => e)
    expect(blank).toBeInstanceOf(A2AError.A2AInputError)
    expect(blank).toMatchObject({ _tag: "A2AInputError", field: "message" })

    const outdated = await client.sendA2AMessage(demoSessionUids.updateRequired, { message: "hi" }).catch((
      e: unknown
    ) => e)
    expect(outdated).toBeInstanceOf(A2AError.AgentRuntimeUnavailableError)

    const server = await client.sendA2AMessage(failingBackendUid, { message: "hi" }).catch((e: unknown) => e)
    expect(server).toBeInstanceOf(A2AError.ServerError)
    expect(server).toMatchObject({ _tag: "ServerError", origin: "backend", status: 503 })
    expect(A2AError.isServerError(server)).toBe(true)
  })

  it("an aborted signal interrupts the call under way and rejects with the signal's reason", async () => {
    const controller = new AbortController()
    const messageId = `m-${randomUUID()}`
    const pending = client.sendA2AMessage(demoSessionUids.slow, { message: "take your time", messageId }, {
      signal: controller.signal
    }).catch((e: unknown) => e)
    const reason = new Error("the user gave up")
    expect(await received(messageId)).toBe(true)
    controller.abort(reason)
    expect(await pending).toBe(reason)
  })

  it("Task mode: send, get, cancel", async () => {
    const task = await client.sendA2AMessage(demoSessionUids.taskJob, { message: "long job", responseKind: "task" })
    expect(A2AProtocol.isTerminal(task)).toBe(false)
    const seen = await client.getA2ATask(demoSessionUids.taskJob, task.id, { timeout: 10 })
    expect(seen.id).toBe(task.id)
    const canceled = await client.cancelA2ATask(demoSessionUids.taskJob, task.id)
    expect(canceled.status.state).toBe("TASK_STATE_CANCELED")
    const done = await client.waitForA2ATask(demoSessionUids.taskJob, task.id)
    expect(done.status.state).toBe("TASK_STATE_CANCELED")
  })

  it("without options, the configuration comes from the environment; a missing variable rejects with an Error", async () => {
    const saved = process.env["MAINSEQUENCE_ENDPOINT"]
    delete process.env["MAINSEQUENCE_ENDPOINT"]
    const unconfigured = makeA2AClient()
    try {
      const error = await unconfigured.sendA2AMessage(demoSessionUids.ready, { message: "hi" }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Error)
      expect(String(error)).toContain("MAINSEQUENCE_ENDPOINT")
    } finally {
      await unconfigured.dispose()
      if (saved !== undefined) process.env["MAINSEQUENCE_ENDPOINT"] = saved
    }
  })

  it("options of the wrong JavaScript type reject each call by the option's name, never with a TypeError", async () => {
    const backendUrl = reference.url
    const accessToken = Redacted.value(demoUserAccessToken)
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [
        null,
        "Invalid backendUrl: is missing (options given never read MAINSEQUENCE_ENDPOINT; layerConfig() and makeA2AClient() without options do)"
      ],
      [{ backendUrl: 10n, accessToken }, "Invalid backendUrl: must be a string (got 10n)"],
      [
        { backendUrl },
        "Invalid accessToken: is missing (options given never read MAINSEQUENCE_ACCESS_TOKEN; layerConfig() and makeA2AClient() without options do)"
      ],
      [{ backendUrl, accessToken: 5 }, "Invalid accessToken: must be a string or a Redacted string"],
      [{ backendUrl, accessToken: Redacted.make(5) }, "Invalid accessToken: must be a string or a Redacted string"],
      [{ backendUrl, accessToken, refreshToken: 7 }, "Invalid refreshToken: must be a string or a Redacted string"],
      [{ backendUrl, accessToken, username: {} }, "Invalid username: must be a string (got {})"],
      [{ backendUrl, accessToken, proxy: 5 }, `Invalid proxy: must be "environment", "none" or a URL`],
      [{ backendUrl, accessToken, noProxy: 5 }, "Invalid noProxy: must be a string (got 5)"],
      [
        { backendUrl, accessToken, maxConnections: 8 },
        `Invalid options: has an unknown field "maxConnections" (the fields are backendUrl, accessToken, refreshToken, ` +
        "username, maxResponseBytes, proxy, noProxy, maxConnectionsPerOrigin)"
      ]
    ]
    for (const [options, message] of cases) {
      const wrong = makeA2AClient(options as Parameters<typeof makeA2AClient>[0])
      try {
        const error = await wrong.sendA2AMessage(demoSessionUids.ready, { message: "hi" }).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(Error)
        expect(error).not.toBeInstanceOf(TypeError)
        expect(String(error)).toContain(message)
      } finally {
        await wrong.dispose()
      }
    }
    // A proxy the Node layer cannot use is an option error like the others.
    const socks = makeA2AClient({ backendUrl, accessToken, proxy: "socks5://proxy.example:1080" })
    expect(await socks.sendA2AMessage(demoSessionUids.ready, { message: "hi" }).catch((e: unknown) => e)).toEqual(
      new A2AError.A2AInputError({ field: "proxy", reason: "must be an http:// or https:// proxy URL" })
    )
    await socks.dispose()
    const messageId = `m-${randomUUID()}`
    const signal = await client.sendA2AMessage(demoSessionUids.ready, { message: "hi", messageId }, {
      signal: 5 as unknown as AbortSignal
    }).catch((e: unknown) => e)
    expect(signal).toEqual(new A2AError.A2AInputError({ field: "signal", reason: "must be an AbortSignal" }))
    // A call's options: an object of its own fields (the send's budget goes in its input).
    const before = (await Effect.runPromise(reference.platform.requestLog)).length
    const callOptions: ReadonlyArray<readonly [() => Promise<unknown>, string]> = [
      [
        () => client.sendA2AMessage(demoSessionUids.ready, { message: "hi", messageId }, { timeout: 5 } as CallOptions),
        `has an unknown field "timeout" (the fields are signal)`
      ],
      [
        () => client.sendA2AMessage(demoSessionUids.ready, { message: "hi", messageId }, 5 as CallOptions),
        "must be an object such as { signal } (got 5)"
      ],
      [
        () => client.waitForA2ATask(demoSessionUids.ready, "t-1", { timout: 5 } as TaskCallOptions),
        `has an unknown field "timout" (did you mean "timeout"?)`
      ],
      [
        () => client.cancelA2ATask(demoSessionUids.ready, "t-1", [] as TaskCallOptions),
        "must be an object such as { timeout: 30, signal } (got [])"
      ]
    ]
    for (const [call, reason] of callOptions) {
      expect(await call().catch((e: unknown) => e)).toEqual(new A2AError.A2AInputError({ field: "options", reason }))
    }
    const log = await Effect.runPromise(reference.platform.requestLog)
    expect([log.length, log.some((entry) => entry.messageId === messageId)]).toEqual([before, false])
  })

  it("dispose() while a send waits for the Agent: it rejects as interrupted, not as a failed connection", async () => {
    const other = makeA2AClient({ backendUrl: reference.url, accessToken: Redacted.value(demoUserAccessToken) })
    const messageId = `m-${randomUUID()}`
    const pending = other.sendA2AMessage(demoSessionUids.slow, { message: "dispose", messageId }).catch((e: unknown) =>
      e
    )
    expect(await received(messageId)).toBe(true)
    await other.dispose()
    const error = await pending
    expect(error).not.toBeInstanceOf(A2AError.A2ATransportError)
    expect(String(error)).toBe("Error: The call was interrupted: the client was disposed")
  })

  it("after dispose, calls reject with an Error (a defect, not an SDK error)", async () => {
    const disposed = makeA2AClient({ backendUrl: reference.url, accessToken: Redacted.value(demoUserAccessToken) })
    await disposed.dispose()
    const error = await disposed.sendA2AMessage(demoSessionUids.ready, { message: "hi" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(error).not.toHaveProperty("_tag")
    expect(String(error)).toBe("Error: The client was disposed: make a new one for more calls")
  })

  it("await using: the client is disposed of at the end of its block", async () => {
    const escaped = await (async () => {
      await using scoped = makeA2AClient({
        backendUrl: reference.url,
        accessToken: Redacted.value(demoUserAccessToken)
      })
      const answer = await scoped.sendA2AMessage(demoSessionUids.ready, { message: "hi" })
      expect(A2AProtocol.textOf(answer)).toEqual(["You said: hi"])
      return scoped
    })()
    const error = await escaped.sendA2AMessage(demoSessionUids.ready, { message: "hi" }).catch((e: unknown) => e)
    expect(String(error)).toBe("Error: The client was disposed: make a new one for more calls")
  })
})
