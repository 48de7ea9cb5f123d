/**
 * The official A2A v1 server (`@a2a-js/sdk@1.3.0`, its express HTTP+JSON `restHandler` and
 * `DefaultRequestHandler`) on 127.0.0.1:0, mounted at `/runtimes/{serviceUid}/api/a2a/v1`, so that
 * `rpc_url = {origin}/runtimes/{serviceUid}/` (an opaque URL with a path) reaches `message:send`.
 *
 * In front of the handler: a recorder (every request, the exact body bytes) and a bearer check of the
 * runtime token (401 google.rpc UNAUTHENTICATED otherwise). The recorder reads the body itself and hands the
 * parsed JSON to express (body-parser skips a request whose body was already read).
 *
 * The executor (`InteropExecutor`):
 * - `responseKind` (read from the raw body: the official server drops the unknown field) `"message"`:
 *   answers a Message echoing the session's contextId, with a `data` part describing what it received
 *   (text, files with size and sha256, accepted output modes, metadata); text `"wrong-context"` answers another
 *   contextId, `"task-anyway"` answers a Task.
 * - `"task"`: a Task; the text picks its fate: `complete` (default), `fail`, `input` (INPUT_REQUIRED, asking
 *   "which one?"), `working` (returned WORKING; completes on its own after `slowTaskMs`), `cancelable` (returned
 *   WORKING, stays so until canceled). A follow-up turn (`message.taskId`) for an INPUT_REQUIRED Task completes
 *   that same Task, answering `answered: <reply>` with a `result for <reply>` artifact.
 */
import { type AgentCard, type ListTasksResponse, Message as A2AMessage, Task as A2ATask, TaskState } from "@a2a-js/sdk"
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
  type ServerCallContext,
  type TaskStore
} from "@a2a-js/sdk/server"
import { restHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import express from "express"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import { flattenHeaders, listen, type RecordedRequest, sleep } from "./wire.js"

type JsonObject = Record<string, unknown>
const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/** A TaskStore that remembers a call context so the harness can change Tasks behind the server's back. */
class HarnessTaskStore implements TaskStore {
  readonly inner = new InMemoryTaskStore()
  lastContext: ServerCallContext | undefined
  save(task: A2ATask, context: ServerCallContext): Promise<void> {
    this.lastContext = context
    return this.inner.save(task, context)
  }
  load(taskId: string, context: ServerCallContext): Promise<A2ATask | undefined> {
    this.lastContext = context
    return this.inner.load(taskId, context)
  }
  list(params: Parameters<TaskStore["list"]>[0], context: ServerCallContext): Promise<ListTasksResponse> {
    return this.inner.list(params, context)
  }
}

const now = (): string => new Date().toISOString()

const agentMessage = (contextId: string, parts: ReadonlyArray<JsonObject>, taskId?: string): A2AMessage =>
  A2AMessage.fromJSON({
    messageId: `agent-${Crypto.randomUUID()}`,
    role: "ROLE_AGENT",
    contextId,
    ...(taskId === undefined ? {} : { taskId }),
    parts
  })

export interface OfficialServerOptions {
  /** Runtime bearer tokens accepted (mutable through `acceptTokens`). */
  readonly tokens: ReadonlyArray<string>
  /**
   * Decides instead of `tokens` when given: whether the n-th runtime request (from 0) with this bearer token
   * is accepted (e.g. tokens minted by the simulated backend; reject the first one after rotating it).
   */
  readonly authorize?: (token: string, n: number) => boolean | Promise<boolean>
  /** How long a `working` Task takes to complete on its own. */
  readonly slowTaskMs?: number
}

export interface OfficialServer {
  readonly origin: string
  /** `rpc_url` for a service: `{origin}/runtimes/{serviceUid}/`. */
  readonly rpcUrl: (serviceUid?: string) => string
  /** An `rpc_url` where nothing is mounted (express answers HTML 404s). */
  readonly unmountedRpcUrl: string
  readonly requests: Array<RecordedRequest>
  /** Requests to `…/message:send`. */
  readonly sends: () => ReadonlyArray<RecordedRequest>
  readonly acceptTokens: (tokens: ReadonlyArray<string>) => void
  /** Sets a stored Task's state (as a Task update would), e.g. to complete it. */
  readonly setTaskState: (taskId: string, state: string, text?: string) => Promise<void>
  readonly close: () => Promise<void>
}

export const serviceUid = "7bd86be3-d11a-4ad1-8fe2-9260ccdbca7f"

export const startOfficialServer = async (options: OfficialServerOptions): Promise<OfficialServer> => {
  const requests: Array<RecordedRequest> = []
  let tokens = new Set(options.tokens)
  const rawBodies = new Map<string, JsonObject>()
  const store = new HarnessTaskStore()
  const slowTaskMs = options.slowTaskMs ?? 600
  const timers = new Set<Promise<void>>()
  let closed = false

  const setTaskState = async (taskId: string, state: string, text?: string): Promise<void> => {
    const context = store.lastContext
    if (context === undefined) throw new Error("no task has been stored yet")
    const task = await store.inner.load(taskId, context)
    if (task === undefined) throw new Error(`no task ${taskId}`)
    const updated = A2ATask.fromJSON({
      ...(A2ATask.toJSON(task) as JsonObject),
      status: {
        state,
        timestamp: now(),
        ...(text === undefined ? {} : {
          message: A2AMessage.toJSON(agentMessage(task.contextId, [{ text }], task.id))
        })
      },
      ...(state === "TASK_STATE_COMPLETED"
        ? { artifacts: [{ artifactId: "result", name: "result", parts: [{ text: text ?? "done" }] }] }
        : {})
    })
    await store.inner.save(updated, context)
  }

  const publishTask = (bus: ExecutionEventBus, ctx: RequestContext, json: JsonObject): void => {
    bus.publish(AgentEvent.task(A2ATask.fromJSON({
      id: ctx.taskId,
      contextId: ctx.contextId,
      history: [A2AMessage.toJSON(ctx.userMessage)],
      ...json
    })))
  }

  const executor: AgentExecutor = {
    execute: async (ctx, bus) => {
      const user = ctx.userMessage
      const raw = rawBodies.get(user.messageId) ?? {}
      const configuration = isObject(raw["configuration"]) ? raw["configuration"] : {}
      const responseKind = configuration["responseKind"] === "task" ? "task" : "message"
      const texts = user.parts.flatMap((p) => p.content?.$case === "text" ? [p.content.value] : [])
      const files = user.parts.flatMap((p) =>
        p.content?.$case === "raw"
          ? [{
            filename: p.filename,
            mediaType: p.mediaType,
            bytes: p.content.value.length,
            sha256: Crypto.createHash("sha256").update(p.content.value).digest("hex")
          }]
          : []
      )
      const text = texts[0] ?? ""
      if (responseKind === "message") {
        if (text === "task-anyway") {
          publishTask(bus, ctx, { status: { state: "TASK_STATE_COMPLETED", timestamp: now() } })
        } else {
          const contextId = text === "wrong-context" ? Crypto.randomUUID() : ctx.contextId
          const received = {
            text,
            files,
            acceptedOutputModes: configuration["acceptedOutputModes"] ?? null,
            metadata: raw["metadata"] ?? null,
            extensions: ctx.context.requestedExtensions ?? []
          }
          const parts: Array<JsonObject> = [{ text: `echo: ${text}` }, { data: { received } }]
          if (isObject(raw["metadata"])) parts.push({ data: { ok: true, answer: text }, mediaType: "application/json" })
          bus.publish(AgentEvent.message(A2AMessage.fromJSON({
            ...(A2AMessage.toJSON(agentMessage(contextId, parts)) as JsonObject),
            metadata: { interop: { server: "@a2a-js/sdk@1.3.0" } },
            extensions: ["https://mainsequence.ai/a2a/extensions/response-kind/v1"]
          })))
        }
        bus.finished()
        return
      }
      const history = [A2AMessage.toJSON(user)]
      const asked = ctx.task
      if (asked !== undefined && asked.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        // The follow-up turn: the reply answers the question; the same Task completes.
        publishTask(bus, ctx, {
          status: {
            state: "TASK_STATE_COMPLETED",
            timestamp: now(),
            message: A2AMessage.toJSON(agentMessage(ctx.contextId, [{ text: `answered: ${text}` }], ctx.taskId))
          },
          history: [...asked.history.map((m) => A2AMessage.toJSON(m)), ...history],
          artifacts: [{ artifactId: "result", name: "result", parts: [{ text: `result for ${text}` }] }]
        })
        bus.finished()
        return
      }
      switch (text) {
        case "fail":
          publishTask(bus, ctx, {
            status: {
              state: "TASK_STATE_FAILED",
              timestamp: now(),
              message: A2AMessage.toJSON(agentMessage(ctx.contextId, [{ text: "it failed" }], ctx.taskId))
            },
            history
          })
          break
        case "input":
          publishTask(bus, ctx, {
            status: {
              state: "TASK_STATE_INPUT_REQUIRED",
              timestamp: now(),
              message: A2AMessage.toJSON(agentMessage(ctx.contextId, [{ text: "which one?" }], ctx.taskId))
            }
          })
          break
        case "working":
        case "cancelable": {
          publishTask(bus, ctx, { status: { state: "TASK_STATE_WORKING", timestamp: now() } })
          if (text === "working") {
            const taskId = ctx.taskId
            const timer = sleep(slowTaskMs).then(() =>
              closed ? undefined : setTaskState(taskId, "TASK_STATE_COMPLETED", "finished slowly")
            )
            timers.add(timer)
            void timer.finally(() => timers.delete(timer))
          }
          break
        }
        default:
          publishTask(bus, ctx, {
            status: {
              state: "TASK_STATE_COMPLETED",
              timestamp: now(),
              message: A2AMessage.toJSON(agentMessage(ctx.contextId, [{ text: `done: ${text}` }], ctx.taskId))
            },
            artifacts: [{ artifactId: "result", name: "result", parts: [{ text: `result of ${text}` }] }]
          })
      }
      bus.finished()
    },
    cancelTask: async (taskId, bus) => {
      const context = store.lastContext
      const task = context === undefined ? undefined : await store.inner.load(taskId, context)
      if (task === undefined) return
      bus.publish(AgentEvent.statusUpdate({
        taskId,
        contextId: task.contextId,
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
        metadata: {}
      }))
      bus.finished()
    }
  }

  const agentCard: AgentCard = {
    name: "interop echo agent",
    description: "Echoes messages; creates Tasks that complete, fail, need input or can be canceled",
    supportedInterfaces: [{
      url: "http://127.0.0.1/",
      protocolBinding: "HTTP+JSON",
      tenant: "",
      protocolVersion: "1.0"
    }],
    provider: undefined,
    version: "1.0.0",
    capabilities: {
      streaming: false,
      pushNotifications: false,
      // Advertised, else the server filters them out of the request context.
      extensions: [
        {
          uri: "https://mainsequence.ai/a2a/extensions/response-kind/v1",
          description: "Main Sequence response kind (configuration.responseKind)",
          required: false,
          params: undefined
        },
        {
          uri: "https://mainsequence.ai/a2a/extensions/output-contract/v1",
          description: "Main Sequence output contract (strict dictionary metadata)",
          required: false,
          params: undefined
        }
      ],
      extendedAgentCard: false
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [],
    signatures: []
  }
  const handler = new DefaultRequestHandler(agentCard, store, executor)

  const app = express()
  app.disable("x-powered-by")
  // Recorder: every request, exact bytes; parsed JSON handed on to express.
  app.use((req, _res, next) => {
    const record: RecordedRequest = {
      server: "official",
      method: req.method,
      path: req.originalUrl,
      headers: flattenHeaders(req.headers),
      body: Buffer.alloc(0),
      complete: false,
      at: performance.now()
    }
    requests.push(record)
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("error", (error) => next(error))
    req.on("end", () => {
      record.body = Buffer.concat(chunks)
      record.complete = true
      const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase()
      if (record.body.length > 0 && (type === "application/json" || type === "application/a2a+json")) {
        try {
          const parsed: unknown = JSON.parse(record.body.toString("utf8"))
          ;(req as { body?: unknown }).body = parsed
          if (isObject(parsed) && isObject(parsed["message"]) && typeof parsed["message"]["messageId"] === "string") {
            rawBodies.set(parsed["message"]["messageId"], parsed)
          }
        } catch {
          // left to the handler: it answers 400 for an unparsable body
        }
      }
      next()
    })
  })
  // Runtime bearer check.
  let authorized = 0
  app.use("/runtimes/:service/api/a2a/v1", async (req, res, next) => {
    const auth = req.header("authorization") ?? ""
    const token = auth.startsWith("Bearer ") ? auth.slice("Bearer ".length) : ""
    const ok = options.authorize === undefined ? tokens.has(token) : await options.authorize(token, authorized++)
    if (!ok) {
      res.status(401).type("application/a2a+json").send(JSON.stringify({
        error: {
          code: 401,
          status: "UNAUTHENTICATED",
          message: "The runtime token is missing or invalid.",
          details: []
        }
      }))
      return
    }
    next()
  })
  app.use(
    "/runtimes/:service/api/a2a/v1",
    restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication })
  )

  const server = Http.createServer(app)
  const listening = await listen(server)
  return {
    origin: listening.origin,
    rpcUrl: (uid = serviceUid) => `${listening.origin}/runtimes/${uid}/`,
    unmountedRpcUrl: `${listening.origin}/nowhere/${serviceUid}/`,
    requests,
    sends: () => requests.filter((r) => r.method === "POST" && r.path.endsWith("/message:send")),
    acceptTokens: (next) => {
      tokens = new Set(next)
    },
    setTaskState,
    close: async () => {
      closed = true
      await Promise.allSettled([...timers])
      await listening.close()
    }
  }
}
