import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import {
  demoInputRequiredQuestion,
  demoLongJobMs,
  demoSessions,
  demoSessionsFor,
  demoSessionUids,
  demoUserAccessToken,
  serveReferencePlatform
} from "../src/node.js"
import { a2aHeaders, messageBody, scenario, SESSION } from "./support.js"

const USER = Redacted.value(demoUserAccessToken)

interface Fetched {
  readonly status: number
  readonly text: string
  readonly json: unknown
}

const fetchText = (url: string, init: RequestInit = {}) =>
  Effect.tryPromise(async (): Promise<Fetched> => {
    const response = await fetch(url, init)
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, text, json }
  })

const Access = Schema.Struct({ rpc_url: Schema.String, token: Schema.String })

const resolveAt = (url: string, sessionUid: string) =>
  fetchText(`${url}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`, {
    method: "POST",
    headers: { authorization: `Bearer ${USER}`, "content-type": "application/json" },
    body: "{}"
  })

const admittedAt = (url: string, sessionUid: string) =>
  Effect.flatMap(resolveAt(url, sessionUid), (answer) => Schema.decodeUnknown(Access)(answer.json))

const sendAt = (rpcUrl: string, token: string, body: unknown) =>
  fetchText(`${rpcUrl.replace(/\/$/, "")}/api/a2a/v1/message:send`, {
    method: "POST",
    headers: { ...a2aHeaders(token), "content-type": "application/a2a+json" },
    body: JSON.stringify(body)
  })

describe("serveReferencePlatform", () => {
  it.scopedLive("serves the demo sessions over real HTTP on 127.0.0.1", () =>
    Effect.gen(function*() {
      const { platform, url } = yield* serveReferencePlatform({ port: 0 })
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

      const access = yield* admittedAt(url, demoSessionUids.ready)
      expect(access.rpc_url).toMatch(new RegExp(`^${url}/runtimes/[0-9a-f-]+/$`))
      const answer = yield* sendAt(
        access.rpc_url,
        access.token,
        messageBody({ text: "hi", contextId: demoSessionUids.ready })
      )
      expect(answer.status).toBe(200)
      expect(answer.json).toMatchObject({
        message: { role: "ROLE_AGENT", contextId: demoSessionUids.ready, parts: [{ text: "You said: hi" }] }
      })

      expect((yield* resolveAt(url, demoSessionUids.updateRequired)).json).toMatchObject({
        runtime_interaction: { state: "update_required", can_submit: false }
      })
      expect((yield* resolveAt(url, demoSessionUids.coldStart)).json).toMatchObject({
        runtime_interaction: { state: "checking", can_submit: false, retry_after_ms: 250 }
      })

      // the Node HttpClient works against it too
      const viaClient = yield* HttpClient.HttpClient.pipe(
        Effect.flatMap((client) =>
          client.execute(
            HttpClientRequest.get(`${url}/api/v1/agents/a9e47000-0000-4000-8000-000000000006/`).pipe(
              HttpClientRequest.bearerToken(USER)
            )
          )
        ),
        Effect.flatMap((response) => response.json),
        Effect.provide(NodeHttpClient.layerUndici)
      )
      expect(viaClient).toMatchObject({
        name: "Job runner",
        a2a_profile: { supported_response_kinds: ["message", "task"] }
      })

      const counters = yield* platform.counters
      expect(counters.resolveCalls[demoSessionUids.ready]).toBe(1)
      expect(counters.sends[demoSessionUids.ready]).toBe(1)
    }))

  it.live("closing its scope cuts the answers under way (a stalled one too): teardown never waits for them", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { platform, url } = yield* Scope.extend(
        serveReferencePlatform({
          demoSessions: false,
          sessions: [scenario({ agent: { behaviour: { _tag: "Stall" } } })]
        }),
        scope
      )
      const access = yield* admittedAt(url, SESSION)
      const stalled = yield* Effect.fork(Effect.either(sendAt(access.rpc_url, access.token, messageBody())))
      const sent = Effect.map(platform.requestLog, (log) => log.some((entry) => entry.route === "message-send"))
      yield* Effect.repeat(sent, { until: (yes) => yes, schedule: Schedule.spaced("10 millis"), times: 500 })
      expect(yield* sent).toBe(true)
      yield* Scope.close(scope, Exit.void)
      expect(Either.isLeft(yield* Fiber.join(stalled))).toBe(true)
    }))

  it.scopedLive("the admin API adds sessions, rotates tokens and shows the log and counters", () =>
    Effect.gen(function*() {
      const { url } = yield* serveReferencePlatform({ demoSessions: false })
      const admin = (path: string, init: RequestInit = {}) => fetchText(`${url}/__sim${path}`, init)

      const created = yield* admin("/sessions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(scenario({ agent: { behaviour: { _tag: "Answer", trickle: { chunks: 3, gapMs: 50 } } } }))
      })
      expect(created.status).toBe(201)
      expect(created.json).toMatchObject({ sessionUid: SESSION, access: { _tag: "Ready" } })
      const refused = yield* admin("/sessions", { method: "POST", body: JSON.stringify({ sessionUid: "nope" }) })
      expect(refused.status).toBe(400)
      expect(refused.json).toMatchObject({ error: expect.stringContaining("Invalid session scenario") })

      const first = yield* admittedAt(url, SESSION)
      const startedAt = yield* Clock.currentTimeMillis
      const trickled = yield* sendAt(first.rpc_url, first.token, messageBody())
      expect((yield* Clock.currentTimeMillis) - startedAt).toBeGreaterThanOrEqual(100)
      expect(trickled.json).toMatchObject({ message: { parts: [{ text: "You said: What can you do?" }] } })

      const rotated = yield* admin(`/sessions/${SESSION}/rotate-token`, { method: "POST" })
      expect(rotated.json).toEqual({ label: "runtime-token#2" })
      expect((yield* sendAt(first.rpc_url, first.token, messageBody())).status).toBe(401)
      expect((yield* admin("/sessions/00000000-0000-4000-8000-000000000000/rotate-token", { method: "POST" })).status)
        .toBe(404)

      const log = yield* admin("/log")
      expect(log.status).toBe(200)
      expect(log.text).not.toContain(first.token)
      expect(log.text).not.toContain(USER)
      expect(log.json).toMatchObject([
        { route: "resolve-runtime-access", tokenLabel: "user-token#1", status: 200 },
        { route: "message-send", tokenLabel: "runtime-token#1", status: 200 },
        { route: "message-send", tokenLabel: "runtime-token#1", status: 401 }
      ])
      const counters = yield* admin("/counters")
      expect(counters.json).toMatchObject({ resolveCalls: { [SESSION]: 1 }, sends: { [SESSION]: 2 } })
      expect((yield* admin("/log/clear", { method: "POST" })).status).toBe(204)
      expect((yield* admin("/log")).json).toEqual([])
    }))

  it.scopedLive("a dropped connection reaches the client as a network error", () =>
    Effect.gen(function*() {
      const { platform, url } = yield* serveReferencePlatform({
        demoSessions: false,
        sessions: [scenario({ agent: { behaviour: { _tag: "ConnectionFailure" } } })]
      })
      const access = yield* admittedAt(url, SESSION)
      const failed = yield* sendAt(access.rpc_url, access.token, messageBody()).pipe(Effect.flip)
      expect(failed._tag).toBe("UnknownException")
      const log = yield* platform.requestLog
      expect(log.at(-1)).toMatchObject({ route: "message-send", outcome: "connection-failed" })
    }))

  it("the demo sessions' long job is the Message limit plus a few seconds", () => {
    expect([90, 5, 4, 1].map(demoLongJobMs)).toEqual([120_000, 8000, 7000, 4000])
    const workOf = (sessions: typeof demoSessions, uid: string) => {
      const session = sessions.find((candidate) => candidate.sessionUid === uid)
      return { name: session?.name, workMs: session?.agent?.workMs }
    }
    // the default limit keeps the 120 s job
    expect(workOf(demoSessions, demoSessionUids.taskJob)).toEqual({
      name: "Task-capable Agent (120 s job)",
      workMs: 120_000
    })
    expect(workOf(demoSessions, demoSessionUids.slow)).toEqual({ name: "Slow Agent (5 s)", workMs: 5000 })
    const short = demoSessionsFor(5)
    expect(workOf(short, demoSessionUids.taskJob)).toEqual({ name: "Task-capable Agent (8 s job)", workMs: 8000 })
    expect(workOf(short, demoSessionUids.messageLimit)).toEqual({
      name: "Agent beyond the Message limit (8 s of work)",
      workMs: 8000
    })
    // the slow Agent still answers within a short limit
    expect(workOf(short, demoSessionUids.slow)).toEqual({ name: "Slow Agent (2.5 s)", workMs: 2500 })
  })

  it.scopedLive("a short messageLimitSeconds: the long job gets the 504 at the limit, and fits a Task", () =>
    Effect.gen(function*() {
      const { platform, url } = yield* serveReferencePlatform({ messageLimitSeconds: 1 })
      const taskJob = yield* platform.session(demoSessionUids.taskJob)
      expect(taskJob.agent.workMs).toBe(4000)

      const access = yield* admittedAt(url, demoSessionUids.taskJob)
      const startedAt = yield* Clock.currentTimeMillis
      const limited = yield* sendAt(access.rpc_url, access.token, messageBody({ contextId: demoSessionUids.taskJob }))
      const elapsed = (yield* Clock.currentTimeMillis) - startedAt
      expect(limited.status).toBe(504)
      expect(limited.json).toMatchObject({
        error: {
          status: "DEADLINE_EXCEEDED",
          details: [{ reason: "MESSAGE_RESPONSE_LIMIT_EXCEEDED", metadata: { limitSeconds: "1" } }]
        }
      })
      expect(elapsed).toBeGreaterThanOrEqual(950)
      expect(elapsed).toBeLessThan(3000)

      const created = yield* sendAt(
        access.rpc_url,
        access.token,
        messageBody({ contextId: demoSessionUids.taskJob, responseKind: "task" })
      )
      expect(created.json).toMatchObject({ task: { status: { state: "TASK_STATE_SUBMITTED" } } })
      const tasks = yield* platform.tasks
      expect(tasks.map((task) => task.sessionUid)).toEqual([demoSessionUids.taskJob])
    }))

  it.scopedLive("follow-up turns over real HTTP: input required, answered, completed; unknown and terminal Tasks refused", () =>
    Effect.gen(function*() {
      const { url } = yield* serveReferencePlatform({
        demoSessions: false,
        sessions: [scenario({ agent: { taskSupport: true, task: { queuedMs: 0, questions: ["Which region?"] } } })]
      })
      const access = yield* admittedAt(url, SESSION)
      const getAt = (taskId: string) =>
        fetchText(`${access.rpc_url}api/a2a/v1/tasks/${taskId}`, { headers: a2aHeaders(access.token) })
      const followUp = (taskId: string, text: string, messageId: string) => {
        const body = messageBody({ text, messageId, responseKind: "task" })
        return sendAt(access.rpc_url, access.token, { ...body, message: { ...body.message, taskId } })
      }
      const created = yield* sendAt(access.rpc_url, access.token, messageBody({ text: "Go", responseKind: "task" }))
      const { task } = yield* Schema.decodeUnknown(Schema.Struct({ task: Schema.Struct({ id: Schema.String }) }))(
        created.json
      )
      expect(created.json).toMatchObject({
        task: { status: { state: "TASK_STATE_INPUT_REQUIRED", message: { parts: [{ text: "Which region?" }] } } }
      })
      expect((yield* getAt(task.id)).json).toMatchObject({ status: { state: "TASK_STATE_INPUT_REQUIRED" } })

      const answered = yield* followUp(task.id, "eu-west", "msg-test-0002")
      expect(answered.status).toBe(200)
      expect(answered.json).toMatchObject({
        task: {
          id: task.id,
          status: { state: "TASK_STATE_COMPLETED" },
          artifacts: [{ parts: [{ text: "You said: eu-west" }] }]
        }
      })

      const terminal = yield* followUp(task.id, "again", "msg-test-0003")
      expect(terminal.status).toBe(400)
      expect(terminal.json).toMatchObject({
        error: { code: 400, status: "FAILED_PRECONDITION", details: [{ reason: "UNSUPPORTED_OPERATION" }] }
      })
      const unknown = yield* followUp("task-nope", "hi", "msg-test-0004")
      expect(unknown.status).toBe(404)
      expect(unknown.json).toMatchObject({
        error: {
          code: 404,
          status: "NOT_FOUND",
          details: [{ reason: "TASK_NOT_FOUND", metadata: { taskId: "task-nope" } }]
        }
      })
    }))

  it.scopedLive("serves the inputRequired demo session: a Task-capable Agent whose Task starts working", () =>
    Effect.gen(function*() {
      const { platform, url } = yield* serveReferencePlatform({ port: 0 })
      const scenario = yield* platform.session(demoSessionUids.inputRequired)
      expect(scenario.agent.task.questions).toEqual([demoInputRequiredQuestion])
      const access = yield* admittedAt(url, demoSessionUids.inputRequired)
      const created = yield* sendAt(
        access.rpc_url,
        access.token,
        messageBody({ contextId: demoSessionUids.inputRequired, responseKind: "task" })
      )
      expect(created.json).toMatchObject({ task: { status: { state: "TASK_STATE_WORKING" } } })
    }))
})
