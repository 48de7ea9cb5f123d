/**
 * A recording Effect Logger and Tracer, for the secrecy suite: everything the SDK logs (message, annotations,
 * cause, spans) and every span it opens (name, attributes, events, links, exit) ends up as text in `lines`.
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HashMap from "effect/HashMap"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"

/** Text of any value, for scanning: JSON where possible (Redacted prints `<redacted>`), else `String`. */
export const textOf = (u: unknown): string => {
  if (typeof u === "string") return u
  try {
    return `${String(u)} ${JSON.stringify(u, (_k, v: unknown) => typeof v === "bigint" ? v.toString() : v)}`
  } catch {
    return Inspectable.toStringUnknown(u)
  }
}

export interface Recorder {
  /** Every recorded log entry and span, as text. */
  readonly lines: Array<string>
  readonly spans: Array<RecordedSpan>
  /** Provides the recording logger (all levels) and tracer to an effect. */
  readonly provide: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly layer: Layer.Layer<never>
  readonly tracer: Tracer.Tracer
}

export interface RecordedSpan {
  readonly name: string
  readonly attributes: Map<string, unknown>
  readonly events: Array<string>
  exit: string | undefined
}

class RecordingSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly spanId: string
  readonly traceId: string
  readonly sampled = true
  status: Tracer.SpanStatus
  readonly attributes: Map<string, unknown>
  readonly links: Array<Tracer.SpanLink>
  constructor(
    readonly record: RecordedSpan,
    readonly name: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly context: Context.Context<never>,
    links: ReadonlyArray<Tracer.SpanLink>,
    startTime: bigint,
    readonly kind: Tracer.SpanKind,
    id: number
  ) {
    this.status = { _tag: "Started", startTime }
    this.attributes = record.attributes
    this.links = [...links]
    this.spanId = `span${id}`
    this.traceId = Option.match(parent, { onNone: () => `trace${id}`, onSome: (p) => p.traceId })
    for (const link of links) record.events.push(`link ${textOf(link.attributes)}`)
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
    this.record.exit = Exit.match(exit, {
      onFailure: (cause) => `failure ${Cause.pretty(cause, { renderErrorCause: true })} ${textOf(Cause.squash(cause))}`,
      // Not the value: rendering it could consume it (an HTTP response's body stream).
      onSuccess: () => "success"
    })
  }
  attribute(key: string, value: unknown): void {
    this.attributes.set(key, value)
  }
  event(name: string, _startTime: bigint, attributes?: Record<string, unknown>): void {
    this.record.events.push(`${name} ${attributes === undefined ? "" : textOf(attributes)}`)
  }
  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    for (const link of links) {
      this.links.push(link)
      this.record.events.push(`link ${textOf(link.attributes)}`)
    }
  }
}

export const makeRecorder = (): Recorder => {
  const lines: Array<string> = []
  const spans: Array<RecordedSpan> = []
  let ids = 0
  const logger = Logger.make((options) => {
    const annotations = HashMap.toEntries(options.annotations).map(([k, v]) => `${k}=${textOf(v)}`)
    const logSpans = List.toArray(options.spans).map((s) => s.label)
    lines.push(
      [
        `log ${options.logLevel.label}`,
        textOf(options.message),
        annotations.join(" "),
        logSpans.join(" "),
        Cause.isEmpty(options.cause) ? "" : Cause.pretty(options.cause, { renderErrorCause: true })
      ].join(" | ")
    )
  })
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const record: RecordedSpan = { name, attributes: new Map(), events: [], exit: undefined }
      spans.push(record)
      return new RecordingSpan(record, name, parent, context, links, startTime, kind, ++ids)
    },
    context: (f) => f()
  })
  const layer = Layer.mergeAll(
    Logger.replace(Logger.defaultLogger, logger),
    Logger.minimumLogLevel(LogLevel.All),
    Layer.setTracer(tracer)
  )
  const provide = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => Effect.provide(self, layer)
  return { lines, spans, provide, layer, tracer }
}

/** Every span's name, attributes and events, as text lines. */
export const spanLines = (spans: ReadonlyArray<RecordedSpan>): Array<string> =>
  spans.map((s) =>
    `span ${s.name} ${[...s.attributes.entries()].map(([k, v]) => `${k}=${textOf(v)}`).join(" ")} ${s.events.join(" ")}`
  )

/** Every span's exit (a failure rendered with `Cause.pretty` and as JSON), as text lines. */
export const spanExitLines = (spans: ReadonlyArray<RecordedSpan>): Array<string> =>
  spans.flatMap((s) => s.exit === undefined ? [] : [`span ${s.name} exit ${s.exit}`])
