/**
 * A2A v1 JSON Schema conformance, on the vendored, non-normative JSON Schema
 * bundle (draft 2020-12) of the A2A v1.0.0 protocol:
 * `vendor/a2a-v1/a2a.json` of this package (see its README for provenance).
 *
 * - `validateSendMessageRequest(body)`: the standard `Send Message Request`,
 *   with exactly one non-standard field allowed: `configuration.responseKind`
 *   (`"message"` | `"task"`), the Main Sequence response-kind extension field.
 *   Nothing else outside the standard is allowed.
 * - `validateMessage(message)` / `validateTask(task)`: the standard `Message` /
 *   `Task` objects (the value inside `{"message": …}` / `{"task": …}`), and
 *   `validateSendMessageResponse(body)`: the whole `{"message": …}` /
 *   `{"task": …}` answer. Strict by default (unknown fields are violations, as
 *   in the schema); `{ allowUnknownFields: true }` tolerates unknown fields at
 *   every level (what a client that preserves unknown fields hands back).
 *
 * Each returns `Either.right(value)` when the value conforms, else
 * `Either.left(A2ASchemaViolation)` listing every issue; `Either.getLeft`
 * gives the `Option` of violations. The bundle is read and the validators
 * are compiled once, on first use (Node: the bundle is read with `node:fs`,
 * relative to this module, from `src/` as from `dist/`).
 *
 * @since 0.1.0
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"

// ---------------------------------------------------------------------------
// models
// ---------------------------------------------------------------------------

/**
 * One way a value breaks the schema.
 *
 * @since 0.1.0
 * @category models
 */
export const SchemaIssue = Schema.Struct({
  /** JSON Pointer of the offending value (`""` for the value itself), e.g. `/message/parts/1/raw` */
  path: Schema.String,
  /** the same place written as a field, e.g. `message.parts[1].raw` (`(root)` for the value itself) */
  field: Schema.String,
  /** what is wrong, e.g. `unknown field (not in A2A v1 Message)` */
  description: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type SchemaIssue = typeof SchemaIssue.Type

/**
 * The schema definitions this module checks against (Main Sequence profile
 * of `Send Message Request`, standard `Message` and `Task`).
 *
 * @since 0.1.0
 * @category models
 */
export type Definition = "Send Message Request" | "Send Message Response" | "Message" | "Task"

/**
 * A value that does not conform to an A2A v1 schema definition.
 *
 * @since 0.1.0
 * @category errors
 */
export class A2ASchemaViolation extends Schema.TaggedError<A2ASchemaViolation>()("A2ASchemaViolation", {
  definition: Schema.Literal("Send Message Request", "Send Message Response", "Message", "Task"),
  issues: Schema.NonEmptyArray(SchemaIssue)
}) {
  /**
   * The first issue as `field: description`, with the count of the others.
   *
   * @since 0.1.0
   */
  get summary(): string {
    const [first, ...rest] = this.issues
    return `${first.field}: ${first.description}${rest.length === 0 ? "" : ` (and ${rest.length} more)`}`
  }

  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `A2A v1 ${this.definition} schema violation: ${this.summary}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ValidateOptions {
  /** tolerate fields the schema does not list, at every level (default false: strict) */
  readonly allowUnknownFields?: boolean | undefined
}

/**
 * A JSON object that passed a schema check.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonObject = Readonly<Record<string, unknown>>

// ---------------------------------------------------------------------------
// the bundle
// ---------------------------------------------------------------------------

/**
 * Where the bundle lives, relative to this module: `src/A2ASchema.ts` and
 * `dist/A2ASchema.js` are both one level below the package root.
 *
 * @since 0.1.0
 * @category constants
 */
export const bundleUrl: URL = new URL("../vendor/a2a-v1/a2a.json", import.meta.url)

/** The `$id` base the bundle's relative `$ref`s resolve against. */
const BASE = "https://schemas.a2a-testing.mainsequence.test/a2a-v1/"

const SchemaObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
type SchemaObject = typeof SchemaObject.Type

const Bundle = Schema.Struct({ definitions: Schema.Record({ key: Schema.String, value: SchemaObject }) })

const PROTOBUF_DEFINITIONS = new Set(["Struct", "Timestamp", "Value"])

/**
 * The `$ref` id a definition is published under: `Send Message Configuration`
 * → `lf.a2a.v1.SendMessageConfiguration.jsonschema.json`, `Struct` →
 * `google.protobuf.Struct.jsonschema.json`.
 */
const refIdOf = (definition: string): string => {
  const compact = definition.replace(/ /g, "")
  return PROTOBUF_DEFINITIONS.has(compact)
    ? `google.protobuf.${compact}.jsonschema.json`
    : `lf.a2a.v1.${compact}.jsonschema.json`
}

const PROFILE_REQUEST_ID = "mainsequence.SendMessageRequest.jsonschema.json"
const PROFILE_CONFIGURATION_ID = "mainsequence.SendMessageConfiguration.jsonschema.json"

/** The Main Sequence field `configuration.responseKind` (SPEC §2, §7). */
const RESPONSE_KIND_PROPERTY = {
  description: "Main Sequence response-kind extension: the kind of answer asked for.",
  type: "string",
  enum: ["message", "task"]
}

/** A deep copy without `additionalProperties: false` anywhere. */
const tolerant = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(tolerant)
  if (!Predicate.isRecord(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    if (key === "additionalProperties" && inner === false) continue
    out[key] = tolerant(inner)
  }
  return out
}

const propertiesOf = (schema: SchemaObject): SchemaObject => {
  const properties = schema.properties
  return Predicate.isRecord(properties) ? properties : {}
}

const RFC3339 =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i

const makeAjv = (): Ajv2020 =>
  new Ajv2020({
    allErrors: true,
    verbose: true,
    strict: true,
    // the bundle sets `type` next to `anyOf` branches and lists snake_case aliases as patternProperties
    strictTypes: false,
    strictTuples: false,
    formats: { "date-time": { type: "string", validate: (value: string) => RFC3339.test(value) } }
  })

interface Validators {
  readonly request: ValidateFunction
  readonly strict: Readonly<Record<"Send Message Response" | "Message" | "Task", ValidateFunction>>
  readonly tolerant: Readonly<Record<"Send Message Response" | "Message" | "Task", ValidateFunction>>
}

const loadDefinitions = (): Readonly<Record<string, SchemaObject>> => {
  const text = readFileSync(bundleUrl, "utf8")
  return Schema.decodeUnknownSync(Bundle)(JSON.parse(text)).definitions
}

const compile = (): Validators => {
  const definitions = loadDefinitions()
  const strict = makeAjv()
  const lenient = makeAjv()
  for (const [name, definition] of Object.entries(definitions)) {
    const id = `${BASE}${refIdOf(name)}`
    strict.addSchema({ ...definition, $id: id })
    const relaxed = tolerant(definition)
    lenient.addSchema({ ...(Predicate.isRecord(relaxed) ? relaxed : {}), $id: id })
  }
  // the Main Sequence profile: the standard request whose configuration may carry `responseKind`
  const request = definitions["Send Message Request"]
  const configuration = definitions["Send Message Configuration"]
  if (request === undefined || configuration === undefined) {
    throw new Error(`the A2A v1 bundle ${bundleUrl.href} lacks Send Message Request / Configuration`)
  }
  strict.addSchema({
    ...configuration,
    $id: `${BASE}${PROFILE_CONFIGURATION_ID}`,
    properties: { ...propertiesOf(configuration), responseKind: RESPONSE_KIND_PROPERTY }
  })
  const requestProperties = propertiesOf(request)
  const configurationProperty = requestProperties.configuration
  strict.addSchema({
    ...request,
    $id: `${BASE}${PROFILE_REQUEST_ID}`,
    properties: {
      ...requestProperties,
      configuration: {
        ...(Predicate.isRecord(configurationProperty) ? configurationProperty : {}),
        $ref: PROFILE_CONFIGURATION_ID
      }
    }
  })
  const get = (ajv: Ajv2020, id: string): ValidateFunction => {
    const validate = ajv.getSchema(`${BASE}${id}`)
    if (validate === undefined) throw new Error(`the A2A v1 schema ${id} did not compile`)
    return validate
  }
  const standard = (ajv: Ajv2020) => ({
    "Send Message Response": get(ajv, refIdOf("Send Message Response")),
    Message: get(ajv, refIdOf("Message")),
    Task: get(ajv, refIdOf("Task"))
  })
  return { request: get(strict, PROFILE_REQUEST_ID), strict: standard(strict), tolerant: standard(lenient) }
}

let validators: Validators | undefined

/** The compiled validators, compiled on first use. */
const compiled = (): Validators => {
  validators ??= compile()
  return validators
}

// ---------------------------------------------------------------------------
// issues
// ---------------------------------------------------------------------------

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** `/message/parts/1/raw` → `message.parts[1].raw`. */
const fieldOf = (pointer: string): string => {
  if (pointer === "") return "(root)"
  let field = ""
  for (const raw of pointer.slice(1).split("/")) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (/^\d+$/.test(segment)) field += `[${segment}]`
    else if (IDENTIFIER.test(segment)) field += field === "" ? segment : `.${segment}`
    else field += `[${JSON.stringify(segment)}]`
  }
  return field
}

const child = (pointer: string, key: string): string => `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`

/** A short rendering of an offending value (scalars only; no big payloads). */
const shown = (data: unknown): string => {
  if (typeof data === "string") {
    const text = JSON.stringify(data.length > 60 ? `${data.slice(0, 57)}...` : data)
    return `${text} `
  }
  if (typeof data === "number" || typeof data === "boolean" || data === null) return `${String(data)} `
  if (Array.isArray(data)) return "an array "
  if (typeof data === "object") return "an object "
  return ""
}

const titleOf = (error: ErrorObject): string | undefined => {
  const title = error.parentSchema?.title
  return typeof title === "string" ? title : undefined
}

const paramOf = (error: ErrorObject, name: string): unknown => {
  const params: Readonly<Record<string, unknown>> = error.params
  return params[name]
}

/** What one ajv error says, without its place. */
const describe = (error: ErrorObject, withValue = true): string => {
  const value = withValue ? shown(error.data) : ""
  switch (error.keyword) {
    case "type":
      return `${value}must be ${String(paramOf(error, "type"))}`
    case "enum": {
      const allowed = paramOf(error, "allowedValues")
      const values = Array.isArray(allowed) ? allowed.map((value) => JSON.stringify(value)).join(", ") : "?"
      return `${value}must be one of ${values}`
    }
    case "pattern":
      return `${value}must match ${String(paramOf(error, "pattern"))}`
    case "format":
      return `${value}must be a ${String(paramOf(error, "format"))} string`
    default:
      return `${value}${error.message ?? `fails ${error.keyword}`}`
  }
}

/** The ajv errors as issues: `anyOf` branches folded into one issue per `anyOf`. */
const issuesOf = (errors: ReadonlyArray<ErrorObject>): Array<SchemaIssue> => {
  const anyOfPaths = errors.filter((error) => error.keyword === "anyOf").map((error) => error.schemaPath)
  const inBranch = (error: ErrorObject) =>
    anyOfPaths.some((path) => error.schemaPath !== path && error.schemaPath.startsWith(`${path}/`))
  const issues: Array<SchemaIssue> = []
  const add = (path: string, description: string) => {
    if (!issues.some((issue) => issue.path === path && issue.description === description)) {
      issues.push({ path, field: fieldOf(path), description })
    }
  }
  for (const error of errors) {
    if (error.keyword !== "anyOf" && inBranch(error)) continue
    switch (error.keyword) {
      case "additionalProperties": {
        const property = String(paramOf(error, "additionalProperty"))
        const title = titleOf(error)
        add(
          child(error.instancePath, property),
          `unknown field${title === undefined ? "" : ` (not in A2A v1 ${title})`}`
        )
        break
      }
      case "required":
        add(child(error.instancePath, String(paramOf(error, "missingProperty"))), "is required")
        break
      case "anyOf": {
        const branches = errors
          .filter((branch) => branch.schemaPath.startsWith(`${error.schemaPath}/`))
          .map((branch) => {
            const same = branch.instancePath === error.instancePath
            const description = describe(branch, !same)
            return same ? description : `${fieldOf(branch.instancePath)}: ${description}`
          })
        add(error.instancePath, `${shown(error.data)}matches no allowed form (${[...new Set(branches)].join(" | ")})`)
        break
      }
      default:
        add(error.instancePath, describe(error))
    }
  }
  return issues
}

const run = (
  validate: ValidateFunction,
  definition: Definition,
  value: unknown
): Either.Either<JsonObject, A2ASchemaViolation> => {
  if (validate(value) && Predicate.isRecord(value)) return Either.right(value)
  const [first, ...rest] = issuesOf(validate.errors ?? [])
  return Either.left(
    new A2ASchemaViolation({
      definition,
      issues: first === undefined
        ? [{ path: "", field: "(root)", description: "must be a JSON object" }]
        : [first, ...rest]
    })
  )
}

// ---------------------------------------------------------------------------
// checks
// ---------------------------------------------------------------------------

/**
 * Checks a parsed `message:send` request body against the A2A v1
 * `Send Message Request` definition, allowing `configuration.responseKind`
 * (`"message"` | `"task"`) and nothing else beyond the standard.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateSendMessageRequest = (body: unknown): Either.Either<JsonObject, A2ASchemaViolation> =>
  run(compiled().request, "Send Message Request", body)

const standard = (
  definition: "Send Message Response" | "Message" | "Task",
  value: unknown,
  options: ValidateOptions | undefined
): Either.Either<JsonObject, A2ASchemaViolation> => {
  const validators = compiled()
  const validate = (options?.allowUnknownFields === true ? validators.tolerant : validators.strict)[definition]
  return run(validate, definition, value)
}

/**
 * Checks a `message:send` answer body (`{"message": …}` or `{"task": …}`)
 * against the A2A v1 `Send Message Response` definition.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateSendMessageResponse = (
  body: unknown,
  options?: ValidateOptions
): Either.Either<JsonObject, A2ASchemaViolation> => standard("Send Message Response", body, options)

/**
 * Checks a `Message` object (the value of `{"message": …}`) against the A2A v1
 * `Message` definition.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateMessage = (
  message: unknown,
  options?: ValidateOptions
): Either.Either<JsonObject, A2ASchemaViolation> => standard("Message", message, options)

/**
 * Checks a `Task` object (the value of `{"task": …}`, or a bare Task of
 * `GET tasks/{id}`) against the A2A v1 `Task` definition.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateTask = (
  task: unknown,
  options?: ValidateOptions
): Either.Either<JsonObject, A2ASchemaViolation> => standard("Task", task, options)
