/**
 * Reads what `--output json` printed on stdout: exactly one JSON document (a second one, or anything else
 * around it, fails `JSON.parse`), of the shape the CLI promises.
 */
import * as Schema from "effect/Schema"
import * as Failure from "../../src/Failure.js"

export type ErrorDocument = Failure.ErrorDocument["error"]

const decodeError = Schema.decodeUnknownSync(Failure.ErrorDocument, { onExcessProperty: "error" })

/** The error object of the one document on stdout; throws unless stdout is exactly that document. */
export const errorDocumentOf = (stdout: string): ErrorDocument => decodeError(JSON.parse(stdout)).error

const Resume = Schema.Struct({ state: Schema.String, command: Schema.String, args: Schema.Array(Schema.String) })

const TaskDocument = Schema.Struct({
  task: Schema.Struct({ id: Schema.String, status: Schema.Struct({ state: Schema.String }) }),
  resume: Schema.optional(Resume)
})

/** The Task document on stdout and its `resume`, if any; throws unless stdout is exactly that document. */
export const taskDocumentOf = (stdout: string) => Schema.decodeUnknownSync(TaskDocument)(JSON.parse(stdout))
