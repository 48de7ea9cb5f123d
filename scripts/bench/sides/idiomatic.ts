/**
 * The least idiomatic Effect client: a reference row for issue 30's targets, not a client we ship. Each call is
 * what the item 1 asks of ours, at its barest: the platform's `HttpClient` on undici
 * (`NodeHttpClient.layerUndici`), one CLIENT span, the total budget as `Effect.timeoutFail`, one duration
 * metric, the answer decoded by the SDK's own Schema. The calls to one session share one resolve
 * (`Effect.cached`, no wait while the runtime wakes). None of ours' phase limits, body limit, HTTP span, 401
 * resend, errors or secrecy: what it costs is what any Effect client that keeps a total budget pays at least.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { A2AProtocol } from "@mainsequence/a2a"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as Schema from "effect/Schema"
import { RESOLVE_PATH, USER_TOKEN } from "../servers/minimalPlatform.js"
import { RESPONSE_KIND_EXTENSION, runtimeUrl, sendBody, type Side, type Target } from "./side.js"

class BudgetExceeded extends Data.TaggedError("BudgetExceeded") {}
class InvalidAnswer extends Data.TaggedError("InvalidAnswer")<{ readonly cause: unknown }> {}

/** A runtime's access as a warm cache holds it. */
export interface Access {
  readonly rpcUrl: string
  readonly token: string
}

const callDuration = Metric.histogram(
  "bench.idiomatic.call.duration",
  MetricBoundaries.fromIterable([0.05, 0.1, 0.5, 1, 5, 10, 60, 900])
)
const SendAnswer = Schema.Struct({ message: A2AProtocol.Message })
const ResolveAnswer = Schema.Struct({ rpc_url: Schema.String, token: Schema.String })

const decoded = <A, I>(schema: Schema.Schema<A, I>) => (json: unknown) =>
  Effect.mapError(Schema.decodeUnknown(schema)(json), (cause) => new InvalidAnswer({ cause }))

const request = (url: string, token: string, body: string, contentType: string, headers: Record<string, string> = {}) =>
  HttpClientRequest.post(url).pipe(
    HttpClientRequest.bearerToken(token),
    HttpClientRequest.setHeaders(headers),
    HttpClientRequest.bodyUint8Array(new TextEncoder().encode(body), contentType)
  )

/** One call: `use` within the total budget (unless `budget` is off: a diagnostic), timed and traced. */
const call = <A, E>(uid: string, use: Effect.Effect<A, E>, budget: boolean) => {
  const bounded: Effect.Effect<A, E | BudgetExceeded> = budget
    ? Effect.timeoutFail(use, { duration: "900 seconds", onTimeout: () => new BudgetExceeded() })
    : use
  return bounded.pipe(
    Metric.trackDurationWith(callDuration, Duration.toSeconds),
    Effect.withSpan("SendMessage", { kind: "client", attributes: { "gen_ai.conversation.id": uid } })
  )
}

/** The client's operations on `http`. */
export const makeIdiomatic = (http: HttpClient.HttpClient, budget = true) => {
  const client = HttpClient.filterStatusOk(http)
  const send = (access: Access, uid: string) =>
    client.execute(request(
      runtimeUrl(access.rpcUrl, "/api/a2a/v1/message:send"),
      access.token,
      sendBody(uid),
      "application/a2a+json",
      { "Accept": "application/a2a+json", "A2A-Extensions": RESPONSE_KIND_EXTENSION, "A2A-Version": "1.0" }
    )).pipe(Effect.flatMap((response) => response.json), Effect.flatMap(decoded(SendAnswer)))
  const resolve = (baseUrl: string, uid: string) =>
    client.execute(request(`${baseUrl.replace(/\/+$/, "")}${RESOLVE_PATH(uid)}`, USER_TOKEN, "{}", "application/json"))
      .pipe(
        Effect.flatMap((response) => response.json),
        Effect.flatMap(decoded(ResolveAnswer)),
        Effect.map((answer): Access => ({ rpcUrl: answer.rpc_url, token: answer.token }))
      )
  const resolutions = new Map<string, Effect.Effect<Access, unknown>>()
  /** A call to a session whose access it shares with the other calls to that session: one resolve. */
  const sendTo = (baseUrl: string, uid: string) =>
    Effect.gen(function*() {
      let access = resolutions.get(uid)
      if (access === undefined) {
        access = yield* Effect.cached(resolve(baseUrl, uid))
        resolutions.set(uid, access)
      }
      return yield* send(yield* access, uid)
    })
  return {
    /** A call with a warm cache's access. */
    sendWith: (access: Access, uid: string) => call(uid, send(access, uid), budget),
    /** A call to a session of the backend at `baseUrl`, resolved once for all its calls. */
    sendTo: (baseUrl: string, uid: string) => call(uid, sendTo(baseUrl, uid), budget)
  }
}

/** The runtime the client runs in: the platform's undici `HttpClient`. */
export const idiomaticRuntime = () => ManagedRuntime.make(NodeHttpClient.layerUndici)

/** The side of the per-send and in-flight benchmarks: warm sends with the admitted access. */
export const makeIdiomaticSide = async (target: Target, budget = true): Promise<Side> => {
  const runtime = idiomaticRuntime()
  const client = makeIdiomatic(await runtime.runPromise(HttpClient.HttpClient), budget)
  const access: Access = { rpcUrl: target.rpcUrl, token: target.runtimeToken }
  const sendOne = () => client.sendWith(access, target.sessionUid)
  return {
    name: budget ? "diag: the least idiomatic Effect client" : "diag: the least idiomatic Effect client, no budget",
    block: async (n, out) => {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now()
        const answer = await runtime.runPromise(sendOne())
        out.push(performance.now() - t0)
        if (answer.message.role !== "ROLE_AGENT") throw new Error("idiomatic: unexpected answer")
      }
    },
    close: () => runtime.dispose()
  }
}
