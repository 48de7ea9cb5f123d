/**
 * The harness itself: the official A2A v1 server answers hand-made requests the way the SDK will see them,
 * the reference platform's backend hands out its rpc_url, and the fault runtime plays its faults.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { assertMessage, assertTask, sendMessageRequestProblems } from "./support/conformance.js"
import { startFaultRuntime } from "./support/faultRuntime.js"
import { type OfficialServer, startOfficialServer } from "./support/officialServer.js"
import { type ReferenceBackend, startReferenceBackend } from "./support/referenceBackend.js"
import { secrets } from "./support/secrets.js"
import { closedPort } from "./support/wire.js"

const uid = "0b2701a1-e777-4cfe-8437-b94025f00069"
const runtimeToken = "harness-runtime-token"

let official: OfficialServer
let backend: ReferenceBackend

beforeAll(async () => {
  official = await startOfficialServer({ tokens: [runtimeToken], slowTaskMs: 300 })
  backend = await startReferenceBackend([{
    sessionUid: uid,
    agentUid: "6a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
    serviceUid: "7b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
    rpcUrl: official.rpcUrl()
  }])
})
afterAll(async () => {
  await official.close()
  await backend.close()
})

const a2aHeaders = {
  authorization: `Bearer ${runtimeToken}`,
  "content-type": "application/a2a+json",
  accept: "application/a2a+json",
  "a2a-extensions": "https://mainsequence.ai/a2a/extensions/response-kind/v1",
  "a2a-version": "1.0"
}

const body = (text: string, responseKind: "message" | "task" = "message", messageId = `msg-${crypto.randomUUID()}`) =>
  JSON.stringify({
    message: { messageId, role: "ROLE_USER", contextId: uid, parts: [{ text }] },
    configuration: { acceptedOutputModes: ["text/plain"], responseKind }
  })

const send = (rpcUrl: string, bytes: string, headers: Record<string, string> = a2aHeaders) =>
  fetch(`${rpcUrl.replace(/\/$/, "")}/api/a2a/v1/message:send`, { method: "POST", headers, body: bytes })

describe("harness: official @a2a-js/sdk server", () => {
  it("answers a SPEC §2 body with a Message echoing the contextId, media type with charset", async () => {
    const bytes = body("hello")
    expect(sendMessageRequestProblems(bytes)).toEqual([])
    const res = await send(official.rpcUrl(), bytes)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("application/a2a+json; charset=utf-8")
    const answer = await res.json() as { message: { contextId: string; role: string } }
    expect(answer.message.contextId).toBe(uid)
    expect(answer.message.role).toBe("ROLE_AGENT")
    assertMessage(answer.message)
    expect(official.sends().at(-1)?.body.toString("utf8")).toBe(bytes)
  })

  it("creates Tasks: complete, fail, input, working (completes later), cancelable", async () => {
    const states: Record<string, string> = {}
    for (const fate of ["complete", "fail", "input", "working", "cancelable"]) {
      const res = await send(official.rpcUrl(), body(fate, "task"))
      const answer = await res.json() as { task: { id: string; status: { state: string } } }
      assertTask(answer.task)
      states[fate] = answer.task.status.state
      if (fate === "working") {
        await new Promise((r) => setTimeout(r, 500))
        const got = await fetch(`${official.rpcUrl()}api/a2a/v1/tasks/${answer.task.id}`, { headers: a2aHeaders })
        expect((await got.json() as { status: { state: string } }).status.state).toBe("TASK_STATE_COMPLETED")
      }
      if (fate === "cancelable") {
        const canceled = await fetch(`${official.rpcUrl()}api/a2a/v1/tasks/${answer.task.id}:cancel`, {
          method: "POST",
          headers: a2aHeaders,
          body: "{}"
        })
        expect((await canceled.json() as { status: { state: string } }).status.state).toBe("TASK_STATE_CANCELED")
      }
    }
    expect(states).toEqual({
      complete: "TASK_STATE_COMPLETED",
      fail: "TASK_STATE_FAILED",
      input: "TASK_STATE_INPUT_REQUIRED",
      working: "TASK_STATE_WORKING",
      cancelable: "TASK_STATE_WORKING"
    })
  })

  it("answers google.rpc.Status errors: TASK_NOT_FOUND 404, TASK_NOT_CANCELABLE 400; HTML 404 off its routes", async () => {
    const missing = await fetch(`${official.rpcUrl()}api/a2a/v1/tasks/no-such-task`, { headers: a2aHeaders })
    expect(missing.status).toBe(404)
    const missingBody = await missing.json() as { error: { details: Array<{ reason: string; domain: string }> } }
    expect(missingBody.error.details[0]).toMatchObject({ reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" })

    const done = await (await send(official.rpcUrl(), body("complete", "task"))).json() as { task: { id: string } }
    const notCancelable = await fetch(`${official.rpcUrl()}api/a2a/v1/tasks/${done.task.id}:cancel`, {
      method: "POST",
      headers: a2aHeaders,
      body: "{}"
    })
    expect(notCancelable.status).toBe(400)
    expect(await notCancelable.text()).toContain("TASK_NOT_CANCELABLE")

    const html = await send(official.unmountedRpcUrl, body("hello"))
    expect(html.status).toBe(404)
    expect(html.headers.get("content-type")).toMatch(/^text\/html/)
  })

  it("refuses a request without A2A-Version (400 VERSION_NOT_SUPPORTED) and a wrong runtime token (401)", async () => {
    const { "a2a-version": _, ...noVersion } = a2aHeaders
    const res = await send(official.rpcUrl(), body("hello"), noVersion)
    expect(res.status).toBe(400)
    expect(await res.text()).toContain("VERSION_NOT_SUPPORTED")
    const unauthorized = await send(official.rpcUrl(), body("hello"), { ...a2aHeaders, authorization: "Bearer nope" })
    expect(unauthorized.status).toBe(401)
  })
})

describe("harness: reference platform backend and fault runtime", () => {
  it("resolves runtime access to the official server's rpc_url; 401 without the user token", async () => {
    const url = `${backend.url}/api/v1/agent-sessions/${uid}/resolve-runtime-access/`
    const ok = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${secrets.userAccess}` },
      body: "{}"
    })
    expect(await ok.json()).toMatchObject({ rpc_url: official.rpcUrl(), runtime_interaction: { can_submit: true } })
    const denied = await fetch(url, { method: "POST", body: "{}" })
    expect(denied.status).toBe(401)
  })

  it("plays faults and counts sends on the server side", async () => {
    const runtime = await startFaultRuntime((n) => n === 0 ? "html-502" : "reset-before-head")
    try {
      const first = await send(runtime.rpcUrl, body("x"))
      expect(first.status).toBe(502)
      expect(await first.text()).toContain("Bad Gateway")
      await expect(send(runtime.rpcUrl, body("x"))).rejects.toThrow()
      expect(runtime.sends()).toBe(2)
    } finally {
      await runtime.close()
    }
    const port = await closedPort()
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow()
  })
})
