/**
 * The A2A v1 HTTP+JSON shapes this SDK sends and accepts. Every struct keeps fields it does not know
 * (an index signature), so an answer is returned whole.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

const Rest = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * The public A2A v1 roles. `ROLE_REQUESTER` / `ROLE_RESPONDER` are internal platform directions and are
 * neither emitted nor accepted.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Role = Schema.Literal("ROLE_USER", "ROLE_AGENT")

/**
 * @since 0.1.0
 * @category models
 */
export type Role = typeof Role.Type

/**
 * A Part: text, structured `data`, or a file as inline `raw` (base64) or `url`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Part = Schema.Struct({
  text: Schema.optional(Schema.NullOr(Schema.String)),
  data: Schema.optional(Schema.NullOr(Schema.Unknown)),
  raw: Schema.optional(Schema.NullOr(Schema.String)),
  url: Schema.optional(Schema.NullOr(Schema.String)),
  filename: Schema.optional(Schema.NullOr(Schema.String)),
  mediaType: Schema.optional(Schema.NullOr(Schema.String)),
  metadata: Schema.optional(Schema.NullOr(Rest))
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface Part extends Schema.Schema.Type<typeof Part> {}

/**
 * An A2A v1 Message as this SDK accepts it from an Agent: role `ROLE_AGENT`, a non-blank `messageId`,
 * a non-empty `parts` array, and a `contextId`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Struct({
  messageId: Schema.String,
  role: Schema.String,
  contextId: Schema.optional(Schema.NullOr(Schema.String)),
  taskId: Schema.optional(Schema.NullOr(Schema.String)),
  parts: Schema.Array(Part),
  metadata: Schema.optional(Schema.NullOr(Rest)),
  extensions: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  referenceTaskIds: Schema.optional(Schema.NullOr(Schema.Array(Schema.String)))
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface Message extends Schema.Schema.Type<typeof Message> {}

/**
 * A Message inside a Task (`status.message`, `history`): SPEC §7 names no rule for it, so every field is
 * optional and it is kept as given.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskMessage = Schema.Struct({
  ...Message.fields,
  messageId: Schema.optional(Schema.NullOr(Schema.String)),
  role: Schema.optional(Schema.NullOr(Schema.String)),
  parts: Schema.optional(Schema.NullOr(Schema.Array(Part)))
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface TaskMessage extends Schema.Schema.Type<typeof TaskMessage> {}

/**
 * The Task states of A2A v1.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskState = Schema.Literal(
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED"
)

/**
 * @since 0.1.0
 * @category models
 */
export type TaskState = typeof TaskState.Type

/**
 * States after which a Task does not change any more.
 *
 * @since 0.1.0
 * @category constants
 */
export const terminalTaskStates: ReadonlySet<TaskState> = new Set<TaskState>([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED"
])

/**
 * States in which a Task waits for its caller.
 *
 * @since 0.1.0
 * @category constants
 */
export const interruptedTaskStates: ReadonlySet<TaskState> = new Set<TaskState>([
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED"
])

/**
 * @since 0.1.0
 * @category schemas
 */
export const TaskStatus = Schema.Struct({
  state: TaskState,
  message: Schema.optional(Schema.NullOr(TaskMessage)),
  timestamp: Schema.optional(Schema.NullOr(Schema.String))
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface TaskStatus extends Schema.Schema.Type<typeof TaskStatus> {}

/**
 * @since 0.1.0
 * @category schemas
 */
export const Artifact = Schema.Struct({
  artifactId: Schema.optional(Schema.NullOr(Schema.String)),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  parts: Schema.optional(Schema.NullOr(Schema.Array(Part))),
  metadata: Schema.optional(Schema.NullOr(Rest))
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface Artifact extends Schema.Schema.Type<typeof Artifact> {}

/**
 * An A2A v1 Task.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Task = Schema.Struct({
  id: Schema.String,
  contextId: Schema.String,
  status: TaskStatus,
  artifacts: Schema.optional(Schema.NullOr(Schema.Array(Artifact))),
  history: Schema.optional(Schema.NullOr(Schema.Array(TaskMessage))),
  metadata: Schema.optional(Schema.NullOr(Rest))
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface Task extends Schema.Schema.Type<typeof Task> {}

/**
 * Whether a Task has reached a terminal state.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isTerminal = (task: Task): boolean => terminalTaskStates.has(task.status.state)

/**
 * Whether a Task waits for its caller (input or authentication required).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isInterrupted = (task: Task): boolean => interruptedTaskStates.has(task.status.state)

/**
 * The response kinds of the Main Sequence response-kind extension.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResponseKind = Schema.Literal("message", "task")

/**
 * @since 0.1.0
 * @category models
 */
export type ResponseKind = typeof ResponseKind.Type

/**
 * An Agent's A2A profile, as the backend's Agent discovery returns it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const A2AProfile = Schema.Struct({
  response_kind_extension_uri: Schema.optional(Schema.String),
  supported_response_kinds: Schema.Array(Schema.String),
  default_response_kind: Schema.optional(Schema.String)
}, Rest)

/**
 * @since 0.1.0
 * @category models
 */
export interface A2AProfile extends Schema.Schema.Type<typeof A2AProfile> {}

/**
 * The URI of the Main Sequence response-kind extension, sent in `A2A-Extensions`.
 *
 * @since 0.1.0
 * @category constants
 */
export const responseKindExtensionUri = "https://mainsequence.ai/a2a/extensions/response-kind/v1"

/**
 * The URI of the Main Sequence output-contract extension (strict dictionary metadata).
 *
 * @since 0.1.0
 * @category constants
 */
export const outputContractExtensionUri = "https://mainsequence.ai/a2a/extensions/output-contract/v1"

/**
 * The A2A protocol version this client speaks, sent as `A2A-Version`.
 *
 * @since 0.1.0
 * @category constants
 */
export const protocolVersion = "1.0"

/**
 * The media type of A2A v1 HTTP+JSON bodies.
 *
 * @since 0.1.0
 * @category constants
 */
export const mediaType = "application/a2a+json"

/**
 * Whether an answer is a Task (rather than a Message).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isTask = (answer: Message | Task): answer is Task => "status" in answer && "id" in answer

/**
 * The parts of a Message, or of a Task's status message and artifacts, in order.
 *
 * @since 0.2.0
 * @category utils
 */
export const partsOf = (answer: Message | Task): ReadonlyArray<Part> =>
  isTask(answer)
    ? [
      ...(answer.status.message?.parts ?? []),
      ...(answer.artifacts ?? []).flatMap((artifact) => artifact.parts ?? [])
    ]
    : answer.parts

/**
 * Collects the text parts of a Message, or of a Task's status message and artifacts, in order.
 *
 * @since 0.1.0
 * @category utils
 */
export const textOf = (answer: Message | Task): ReadonlyArray<string> =>
  partsOf(answer).flatMap((part) => Predicate.isString(part.text) ? [part.text] : [])
