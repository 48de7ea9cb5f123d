/**
 * The platform's request log: one entry per request as it arrived, with
 * every secret replaced by its label, completed as the answer is produced.
 *
 * @internal
 */
import type { RequestLogEntry, SimRequest, Target } from "./model.js"
import { redactHeaders, redactText, tokenLabelOf } from "./redact.js"
import type { MutableLogEntry, PlatformState } from "./state.js"
import { decodeText, encodeText } from "./wire.js"

/** Where the platform lives: its origin and the path prefix of its base URL. @internal */
export interface Location {
  readonly origin: string
  readonly basePath: string
}

/** The path below the base URL, and which side of the platform it reaches. */
const placeOf = (location: Location, url: URL): { readonly path: string; readonly target: Target } => {
  const path = location.basePath !== "" && url.pathname.startsWith(location.basePath)
    ? url.pathname.slice(location.basePath.length)
    : url.pathname
  const target: Target = url.origin !== location.origin
    ? "unknown"
    : path.startsWith("/runtimes/")
    ? "runtime"
    : "backend"
  return { path, target }
}

/**
 * Records a request as it arrived (route, session and answer are filled in later).
 *
 * @internal
 */
export const logRequest = (
  state: PlatformState,
  location: Location,
  request: SimRequest,
  url: URL,
  headers: Readonly<Record<string, string>>,
  atMs: number
): MutableLogEntry => {
  const bodyText = decodeText(request.body)
  const redactedText = redactText(bodyText, state.secrets)
  const { path, target } = placeOf(location, url)
  const entry: MutableLogEntry = {
    seq: state.log.length + 1,
    method: request.method,
    url: redactText(request.url, state.secrets),
    path,
    target,
    route: "unknown",
    sessionUid: null,
    headers: redactHeaders(headers, state.secrets),
    tokenLabel: tokenLabelOf(headers, state.secrets),
    messageId: null,
    schemaViolation: null,
    answerSchemaViolation: null,
    body: redactedText === bodyText ? request.body.slice() : encodeText(redactedText),
    bodyText: redactedText,
    atMs,
    status: null,
    respondedAtMs: null,
    outcome: "pending",
    bodyOutcome: null,
    bodyEndedAtMs: null
  }
  state.log.push(entry)
  return entry
}

/** A copy of an entry that later changes to the log do not touch. @internal */
export const snapshotEntry = (entry: MutableLogEntry): RequestLogEntry => ({ ...entry, headers: { ...entry.headers } })
