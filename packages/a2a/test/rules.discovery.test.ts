import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as A2AClient from "../src/A2AClient.js"
import { agentUid, platform, recordSpans, runtimeSends, session, sessionUid, simulated } from "./fixtures.js"
import { base, simulatedWith } from "./rules.fixtures.js"

// SPEC §7: Task mode only when the Agent advertises it, found through the session's `agent_uid` and the
// Agent's `a2a_profile`; a backend answer that breaks that contract is a BackendContractError, and in
// every failure here nothing reaches the runtime.

const sessionUrl = `${base}/api/v1/agent-sessions/${sessionUid}/`
const taskSession = session({ agent: { taskSupport: true } })

const sendTask = Effect.flatMap(
  A2AClient.A2AClient,
  (a2a) => Effect.flip(a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", responseKind: "task" }))
)

/** The session detail answered by hand with `json`; everything else by the simulated platform. */
const sessionAnswering = (json: Record<string, unknown>) =>
  simulatedWith(
    { sessions: [taskSession] },
    (request: HttpClientRequest.HttpClientRequest) =>
      request.method === "GET" && request.url === sessionUrl ? { status: 200, body: json } : undefined
  )

describe("rules: the Agent session's agent_uid (SPEC §7)", () => {
  for (
    const [what, json] of [
      ["no agent_uid", { uid: sessionUid }],
      ["agent_uid null", { uid: sessionUid, agent_uid: null }],
      ["agent_uid blank", { uid: sessionUid, agent_uid: "  " }],
      ["agent_uid an object", { uid: sessionUid, agent_uid: { id: 1 } }]
    ] as const
  ) {
    it.effect(`${what} → BackendContractError "the Agent session has no agent_uid"; nothing more asked or sent`, () => {
      const { layer, overridden } = sessionAnswering(json)
      return Effect.gen(function*() {
        const error = yield* sendTask
        expect({ ...error }).toEqual({
          _tag: "BackendContractError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          url: sessionUrl,
          status: 200,
          reason: "the Agent session has no agent_uid"
        })
        expect(error.message).toBe(
          `The backend's answer breaks the contract: the Agent session has no agent_uid (session ${sessionUid})`
        )
        expect(overridden).toEqual([`GET ${sessionUrl}`])
        expect((yield* (yield* platform).requestLog).map((entry) => entry.route)).toEqual([])
      }).pipe(Effect.provide(layer))
    })
  }

  it.effect("a numeric agent_uid is used as its decimal text; a padded one trimmed and path-encoded", () => {
    const profiled = { supported_response_kinds: ["message"] }
    const cases = [[42, "42"], [" a/b ", "a%2Fb"]] as const
    return Effect.forEach(cases, ([given, inPath]) => {
      const { layer, overridden } = simulatedWith(
        { sessions: [taskSession] },
        (request) =>
          request.url === sessionUrl
            ? { status: 200, body: { agent_uid: given } }
            : request.url === `${base}/api/v1/agents/${inPath}/`
            ? { status: 200, body: { uid: given, a2a_profile: profiled } }
            : undefined
      )
      return Effect.gen(function*() {
        const error = yield* sendTask
        expect(overridden).toEqual([`GET ${sessionUrl}`, `GET ${base}/api/v1/agents/${inPath}/`])
        expect({ ...error }).toEqual({
          _tag: "TaskModeNotSupportedError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          agentUid: String(given).trim(),
          supportedResponseKinds: ["message"]
        })
      }).pipe(Effect.provide(layer))
    })
  })
})

describe("rules: the Agent's a2a_profile (SPEC §7)", () => {
  for (
    const [what, profile] of [
      ["supported_response_kinds a string", { supported_response_kinds: "task" }],
      ["no supported_response_kinds", { default_response_kind: "task" }]
    ] as const
  ) {
    it.effect(`${what} → BackendContractError naming the profile; nothing sent`, () =>
      Effect.gen(function*() {
        const error = yield* sendTask
        expect({ ...error }).toEqual({
          _tag: "BackendContractError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          url: `${base}/api/v1/agents/${agentUid}/`,
          status: 200,
          reason: "the Agent's a2a_profile does not match the A2A profile shape"
        })
        expect((yield* (yield* platform).requestLog).map((entry) => [entry.method, entry.path])).toEqual([
          ["GET", `/api/v1/agent-sessions/${sessionUid}/`],
          ["GET", `/api/v1/agents/${agentUid}/`]
        ])
      }).pipe(
        Effect.provide(simulated({ sessions: [session({ agent: { taskSupport: true, profile } })] }))
      ))
  }

  it.effect("a missing profile means message-only: TaskModeNotSupportedError with kinds [\"message\"]", () =>
    Effect.gen(function*() {
      const error = yield* sendTask
      expect({ ...error }).toEqual({
        _tag: "TaskModeNotSupportedError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        agentUid,
        supportedResponseKinds: ["message"]
      })
      expect(error.message).toBe(
        `The Agent does not support Task mode (it supports: message). Nothing was sent (session ${sessionUid})`
      )
      expect(yield* runtimeSends).toEqual([])
    }).pipe(
      Effect.provide(simulated({ sessions: [session({ agent: { taskSupport: true, advertiseProfile: false } })] }))
    ))

  it.effect("an Agent without the a2a_profile key is message-only too (not a contract error)", () => {
    const { layer, overridden } = simulatedWith(
      { sessions: [taskSession] },
      (request) =>
        request.url === `${base}/api/v1/agents/${agentUid}/` ? { status: 200, body: { uid: agentUid } } : undefined
    )
    return Effect.gen(function*() {
      const error = yield* sendTask
      expect({ ...error }).toEqual({
        _tag: "TaskModeNotSupportedError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        agentUid,
        supportedResponseKinds: ["message"]
      })
      expect(overridden).toEqual([`GET ${base}/api/v1/agents/${agentUid}/`])
      expect(yield* runtimeSends).toEqual([])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a caller's profile without task: no discovery, no agentUid, the caller's kinds", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const error = yield* Effect.flip(a2a.sendA2AMessage(sessionUid, {
        message: "hi",
        messageId: "m-1",
        responseKind: "task",
        agentProfile: { supported_response_kinds: ["message", "stream"] }
      }))
      expect({ ...error }).toEqual({
        _tag: "TaskModeNotSupportedError",
        agentSessionUid: sessionUid,
        messageId: "m-1",
        supportedResponseKinds: ["message", "stream"]
      })
      expect(yield* (yield* platform).requestLog).toEqual([])
    }).pipe(Effect.provide(simulated({ sessions: [taskSession] }))))

  it.effect("the discovery requests are GETs with the user's token and no body", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", responseKind: "task" })
      const gets = (yield* (yield* platform).requestLog).filter((entry) => entry.method === "GET")
      expect(gets.map((entry) => [entry.url, entry.bodyText, entry.headers["content-type"], entry.tokenLabel])).toEqual(
        [
          [sessionUrl, "", undefined, "user-token#1"],
          [`${base}/api/v1/agents/${agentUid}/`, "", undefined, "user-token#1"]
        ]
      )
    }).pipe(Effect.provide(simulated({ sessions: [taskSession] }))))

  it.effect("discovery runs in span a2a.client.discover_agent with the call's ids; its requests in GET spans", () =>
    Effect.gen(function*() {
      const a2a = yield* A2AClient.A2AClient
      const { spans, tracer } = yield* recordSpans
      const task = yield* a2a.sendA2AMessage(sessionUid, { message: "hi", messageId: "m-1", responseKind: "task" })
        .pipe(Effect.withTracer(tracer))
      expect(task.contextId).toBe(sessionUid)
      const [discover, ...more] = spans.filter((span) => span.name === "a2a.client.discover_agent")
      expect(more).toEqual([])
      expect(Object.fromEntries(discover?.attributes ?? [])).toEqual({
        "gen_ai.conversation.id": sessionUid,
        "a2a.message.id": "m-1"
      })
      const gets = spans.filter((span) => span.name === "GET")
      expect(gets.map((span) => span.attributes.get("url.full"))).toEqual([
        sessionUrl,
        `${base}/api/v1/agents/${agentUid}/`
      ])
      expect(gets.map((span) => span.attributes.get("a2a.client.step"))).toEqual(["discover-agent", "discover-agent"])
      expect(gets.map((span) => Option.map(span.parent, (parent) => parent.spanId))).toEqual([
        Option.fromNullable(discover?.spanId),
        Option.fromNullable(discover?.spanId)
      ])
    }).pipe(Effect.provide(simulated({ sessions: [taskSession] }))))
})
