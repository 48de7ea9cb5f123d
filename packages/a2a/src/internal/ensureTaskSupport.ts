/**
 * Task mode (SPEC §7): the target Agent must advertise Task support before anything is sent to the
 * runtime. Uses the caller's profile, else `GET …/agent-sessions/{uid}/` → `agent_uid` →
 * `GET …/agents/{agent_uid}/` → `a2a_profile`. Never part of direct Message execution.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { BackendContractError, TaskModeNotSupportedError } from "../A2AError.js"
import * as A2AProtocol from "../A2AProtocol.js"
import { enterStep, spanAttributes } from "./callContext.js"
import type { CallContext } from "./clientEnv.js"
import { maxDetailLength, platformText } from "./exchange.js"

const discoverProfile = (call: CallContext) =>
  Effect.gen(function*() {
    const session = yield* call.backend.request(
      call,
      "discover-agent",
      "GET",
      `/api/v1/agent-sessions/${call.agentSessionUid}/`
    )
    const agentUid = session.json["agent_uid"]
    if (!(Predicate.isString(agentUid) && agentUid.trim() !== "") && !Predicate.isNumber(agentUid)) {
      return yield* new BackendContractError({
        url: session.url,
        status: session.status,
        reason: "the Agent session has no agent_uid"
      })
    }
    const uid = String(agentUid).trim()
    const agent = yield* call.backend.request(
      call,
      "discover-agent",
      "GET",
      `/api/v1/agents/${encodeURIComponent(uid)}/`
    )
    const raw = agent.json["a2a_profile"]
    if (raw === undefined || raw === null) return { agentUid: uid, profile: Option.none<A2AProtocol.A2AProfile>() }
    const profile = yield* Schema.decodeUnknown(A2AProtocol.A2AProfile)(raw).pipe(
      Effect.mapError(() =>
        new BackendContractError({
          url: agent.url,
          status: agent.status,
          reason: "the Agent's a2a_profile does not match the A2A profile shape"
        })
      )
    )
    return { agentUid: uid, profile: Option.some(profile) }
  })

/**
 * Fails with `TaskModeNotSupportedError` unless the Agent advertises the `task` response kind. A missing
 * profile means message-only.
 *
 * @internal
 */
export const ensureTaskSupport = (call: CallContext, given: A2AProtocol.A2AProfile | undefined) =>
  Effect.gen(function*() {
    yield* enterStep(call, "discover-agent")
    const { agentUid, profile } = given === undefined
      ? yield* discoverProfile(call)
      : { agentUid: undefined, profile: Option.some(given) }
    const kinds = Option.match(profile, {
      onNone: (): ReadonlyArray<string> => ["message"],
      onSome: (p) => p.supported_response_kinds
    })
    if (!kinds.includes("task")) {
      // The backend's words, shown: scrubbed of secrets, each cut, at most 16 kinds.
      const shown = (text: string) => platformText(text, call.backend.secrets.scrub, maxDetailLength) ?? ""
      return yield* new TaskModeNotSupportedError({
        agentUid: agentUid === undefined ? undefined : shown(agentUid),
        supportedResponseKinds: kinds.slice(0, 16).map(shown)
      })
    }
  }).pipe(Effect.withSpan("a2a.client.discover_agent", { captureStackTrace: false, attributes: spanAttributes(call) }))
