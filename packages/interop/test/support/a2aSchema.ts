/**
 * A2A v1 JSON Schema conformance, on the vendored bundle `vendor/a2a-v1/a2a.json` (draft 2020-12).
 *
 * - `validateSendMessageRequest(body)`: a request body the SDK emits. The standard `Send Message Request`,
 *   except that `configuration` may carry exactly one non-standard field, `configuration.responseKind`
 *   (`"message"` | `"task"`), the Main Sequence response-kind extension. Nothing else is allowed.
 * - `validateMessage(m)` / `validateTask(t)`: an answer the SDK accepted. Standard `Message` / `Task`, with
 *   unknown extra fields tolerated at every level (the SDK preserves them; the schema would refuse them).
 *
 * Each returns a list of readable problems (empty = valid). `assert*` variants throw with that list.
 */
import { Ajv2020, type AnySchemaObject, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Url from "node:url"

const here = Path.dirname(Url.fileURLToPath(import.meta.url))
/** `packages/interop/vendor/a2a-v1/a2a.json`, from `test/support` (sources) or `.tsbuild/test/support`. */
const bundlePath = ((): string => {
  const candidates = [
    Path.resolve(here, "../../vendor/a2a-v1/a2a.json"),
    Path.resolve(here, "../../../vendor/a2a-v1/a2a.json")
  ]
  const found = candidates.find((p) => Fs.existsSync(p))
  if (found === undefined) throw new Error(`a2a.json not found near ${here}`)
  return found
})()

const base = "https://schemas.interop.mainsequence.test/a2a-v1/"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/** The `$ref` file name a definition is published under, e.g. `Send Message Configuration` → `lf.a2a.v1.SendMessageConfiguration.jsonschema.json`. */
const refNameOf = (definition: string): string => {
  const compact = definition.replace(/ /g, "")
  return ["Struct", "Timestamp", "Value"].includes(compact)
    ? `google.protobuf.${compact}.jsonschema.json`
    : `lf.a2a.v1.${compact}.jsonschema.json`
}

/** A deep copy with every `additionalProperties: false` removed (unknown fields tolerated). */
const tolerant = (schema: Json): Json => {
  if (Array.isArray(schema)) return schema.map(tolerant)
  if (!isObject(schema)) return schema
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === "additionalProperties" && value === false) continue
    out[key] = tolerant(value)
  }
  return out
}

/** Rewrites `$ref`s that name `from` so they name `to`. */
const redirectRef = (schema: Json, from: string, to: string): Json => {
  if (Array.isArray(schema)) return schema.map((s) => redirectRef(s, from, to))
  if (!isObject(schema)) return schema
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === "$ref" && value === from ? to : redirectRef(value, from, to)
  }
  return out
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i

const makeAjv = (): Ajv2020 =>
  new Ajv2020({
    allErrors: true,
    strict: true,
    // The bundle mixes `properties` and `patternProperties` for the snake_case aliases, and uses `default`.
    strictTypes: false,
    strictTuples: false,
    formats: {
      "date-time": { type: "string", validate: (s: string) => rfc3339.test(s) && !Number.isNaN(Date.parse(s)) }
    }
  })

interface Registry {
  readonly strictAjv: Ajv2020
  readonly tolerantAjv: Ajv2020
}

const load = (): Registry => {
  const bundle: unknown = JSON.parse(Fs.readFileSync(bundlePath, "utf8"))
  if (!isObject(bundle) || !isObject(bundle["definitions"])) throw new Error("a2a.json has no definitions")
  const definitions = bundle["definitions"]
  const strictAjv = makeAjv()
  const tolerantAjv = makeAjv()
  for (const [name, definition] of Object.entries(definitions)) {
    if (!isObject(definition)) continue
    const id = base + refNameOf(name)
    strictAjv.addSchema({ ...definition, $id: id } as AnySchemaObject)
    tolerantAjv.addSchema({ ...(tolerant(definition) as JsonObject), $id: id } as AnySchemaObject)
  }
  // The Main Sequence request profile: `Send Message Configuration` plus exactly `responseKind`.
  const configuration = definitions["Send Message Configuration"]
  const request = definitions["Send Message Request"]
  if (!isObject(configuration) || !isObject(configuration["properties"]) || !isObject(request)) {
    throw new Error("a2a.json lacks Send Message Configuration / Request")
  }
  strictAjv.addSchema({
    ...configuration,
    $id: base + "mainsequence.SendMessageConfiguration.jsonschema.json",
    properties: { ...configuration["properties"], responseKind: { type: "string", enum: ["message", "task"] } }
  } as AnySchemaObject)
  strictAjv.addSchema({
    ...(redirectRef(
      request,
      "lf.a2a.v1.SendMessageConfiguration.jsonschema.json",
      "mainsequence.SendMessageConfiguration.jsonschema.json"
    ) as JsonObject),
    $id: base + "mainsequence.SendMessageRequest.jsonschema.json"
  } as AnySchemaObject)
  return { strictAjv, tolerantAjv }
}

let registry: Registry | undefined
const getRegistry = (): Registry => (registry ??= load())

const validators = new Map<string, ValidateFunction>()
const validatorFor = (which: "strict" | "tolerant", ref: string): ValidateFunction => {
  const key = `${which}:${ref}`
  const cached = validators.get(key)
  if (cached !== undefined) return cached
  const r = getRegistry()
  const ajv = which === "strict" ? r.strictAjv : r.tolerantAjv
  const fn = ajv.getSchema(base + ref)
  if (fn === undefined) throw new Error(`schema ${ref} not registered`)
  validators.set(key, fn)
  return fn
}

const describe = (errors: ReadonlyArray<ErrorObject> | null | undefined): ReadonlyArray<string> =>
  (errors ?? []).map((e) => {
    const where = e.instancePath === "" ? "(root)" : e.instancePath
    const extra = e.keyword === "additionalProperties" && isObject(e.params)
      ? ` '${String(e.params["additionalProperty"])}'`
      : ""
    return `${where} ${e.message ?? e.keyword}${extra}`
  })

const run = (which: "strict" | "tolerant", ref: string, value: unknown): ReadonlyArray<string> => {
  const fn = validatorFor(which, ref)
  return fn(value) ? [] : describe(fn.errors)
}

/** Problems of a `message:send` request body (already parsed), per the Main Sequence profile of A2A v1. */
export const validateSendMessageRequest = (body: unknown): ReadonlyArray<string> =>
  run("strict", "mainsequence.SendMessageRequest.jsonschema.json", body)

/** Problems of a body against the *standard* `Send Message Request` (no extension field allowed). */
export const validateStandardSendMessageRequest = (body: unknown): ReadonlyArray<string> =>
  run("strict", "lf.a2a.v1.SendMessageRequest.jsonschema.json", body)

/** Problems of an accepted Message (unknown extra fields tolerated). */
export const validateMessage = (message: unknown): ReadonlyArray<string> =>
  run("tolerant", "lf.a2a.v1.Message.jsonschema.json", message)

/** Problems of an accepted Task (unknown extra fields tolerated). */
export const validateTask = (task: unknown): ReadonlyArray<string> =>
  run("tolerant", "lf.a2a.v1.Task.jsonschema.json", task)

/** Problems of raw request body bytes: not UTF-8 JSON, or not a valid request. */
export const validateSendMessageRequestBytes = (bytes: Uint8Array | string): ReadonlyArray<string> => {
  const text = typeof bytes === "string" ? bytes : new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return [`(root) is not JSON: ${String(error)}`]
  }
  return validateSendMessageRequest(parsed)
}

const assertNone = (what: string, problems: ReadonlyArray<string>, value: unknown): void => {
  if (problems.length > 0) {
    throw new Error(
      `${what} breaks the A2A v1 schema:\n  - ${problems.join("\n  - ")}\n${JSON.stringify(value).slice(0, 2000)}`
    )
  }
}

/** Throws unless `body` is a valid Main Sequence `Send Message Request`. */
export const assertSendMessageRequest = (body: unknown): void =>
  assertNone("Send Message Request", validateSendMessageRequest(body), body)

/** Throws unless `bytes` parse to a valid Main Sequence `Send Message Request`. */
export const assertSendMessageRequestBytes = (bytes: Uint8Array | string): void =>
  assertNone(
    "Send Message Request",
    validateSendMessageRequestBytes(bytes),
    typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("utf8")
  )

/** Throws unless `message` is a valid A2A v1 Message (extra fields aside). */
export const assertMessage = (message: unknown): void => assertNone("Message", validateMessage(message), message)

/** Throws unless `task` is a valid A2A v1 Task (extra fields aside). */
export const assertTask = (task: unknown): void => assertNone("Task", validateTask(task), task)

/** Throws unless an accepted answer is a valid Message or Task (picked by shape: a Task has `status`). */
export const assertAnswer = (answer: unknown): void =>
  isObject(answer) && "status" in answer ? assertTask(answer) : assertMessage(answer)
