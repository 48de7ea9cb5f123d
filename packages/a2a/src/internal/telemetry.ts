/**
 * The SDK's metrics and the attributes of its spans, named after OpenTelemetry's conventions (HTTP client,
 * GenAI A2A) and under `a2a.client.*` where those have no name. Metric attributes are bounded (method,
 * outcome, peer, server address and port): never a token, a URL path or an id.
 */
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Tracer from "effect/Tracer"

/** @internal */
export type Peer = "backend" | "runtime"

/**
 * The SDK's operations: the A2A methods, and the Task wait (a series of `GetTask`).
 *
 * @internal
 */
export type Method = "SendMessage" | "GetTask" | "CancelTask" | "WaitForTask"

const callBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 90, 120, 300, 600, 900]
const httpBuckets = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 90, 300, 900]

// `@effect/opentelemetry` exports a metric's unit from its `unit` tag (an attribute of its points as well). It is
// tagged with the attributes, in one step (`taggedOnce`): a metric tagged twice builds a new label array per update.
const units = new WeakMap<object, MetricLabel.MetricLabel>()
const withUnit = <M extends object>(metric: M, unit: string): M => {
  units.set(metric, MetricLabel.make("unit", unit))
  return metric
}
const dimensionless = MetricLabel.make("unit", "1")

/** A duration in seconds. */
const seconds = (name: string, buckets: ReadonlyArray<number>, description: string) =>
  withUnit(Metric.histogram(name, MetricBoundaries.fromIterable(buckets), description), "s")

/** A count of `unit`s; `incremental` unless it goes down as well. */
const counter = (name: string, description: string, unit: string, incremental = true) =>
  withUnit(Metric.counter(name, { description, incremental }), unit)

/** @internal */
export const callDuration = seconds("a2a.client.call.duration", callBuckets, "Duration of the SDK's A2A calls")

/** @internal */
export const callsActive = counter("a2a.client.calls.active", "A2A calls in flight", "{call}", false)

/** @internal */
export const httpRequestDuration = seconds(
  "http.client.request.duration",
  httpBuckets,
  "Duration of HTTP client requests"
)

/** @internal */
export const resolutions = counter(
  "a2a.client.runtime_access.resolutions",
  "Runtime-access resolutions, by result",
  "{resolution}"
)

/** @internal */
export const transientWaits = counter(
  "a2a.client.runtime_access.waits",
  "Waits for a runtime still waking, at the backend's retry_after_ms",
  "{wait}"
)

/** @internal */
export const transientWaitDuration = seconds(
  "a2a.client.runtime_access.wait.duration",
  callBuckets,
  "Time spent waiting for a runtime still waking"
)

/** @internal */
export const credentialRefreshes = counter(
  "a2a.client.credential.refreshes",
  "Credential refreshes after a 401/403, by peer",
  "{refresh}"
)

/** @internal */
export const cacheLookups = counter("a2a.client.cache.lookups", "Runtime-access cache lookups, by result", "{lookup}")

/** @internal */
export const messageLimitAnswers = counter(
  "a2a.client.message_limit.exceeded",
  "Direct Messages the runtime ended at the Message limit",
  "{answer}"
)

/**
 * The `error.type` of an exit: the error's tag, `interrupted`, or `_OTHER` for a defect.
 *
 * @internal
 */
export const errorTypeOf = <A, E>(exit: Exit.Exit<A, E>): Option.Option<string> => {
  if (Exit.isSuccess(exit)) return Option.none()
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const error: unknown = failure.value
    return Option.some(Predicate.hasProperty(error, "_tag") && Predicate.isString(error._tag) ? error._tag : "_OTHER")
  }
  return Option.some(Cause.isInterruptedOnly(exit.cause) ? "interrupted" : "_OTHER")
}

// Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent: the results are thrown away either way
const discard = { discard: true } as const

/** Seconds since `start` (clock millis). */
const secondsSince = (start: number) => Effect.map(Clock.currentTimeMillis, (now) => (now - start) / 1000)

/**
 * Runs a call of `method` in its span (CLIENT for the A2A methods, INTERNAL for the Task wait), counted
 * in flight and measured by outcome; a failure's tag is the span's `error.type`.
 *
 * @internal
 */
export const observeCall =
  (method: Method, attributes: Record<string, string> = {}) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(Clock.currentTimeMillis, (start) => {
      const active = counterWith(callsActive, { "a2a.method.name": method })
      return Effect.zipRight(
        Metric.incrementBy(active, 1),
        Effect.onExit(self, (exit) =>
          Effect.flatMap(secondsSince(start), (seconds) => {
            const errorType = errorTypeOf(exit)
            const labels = Option.isSome(errorType)
              ? { "a2a.method.name": method, "error.type": errorType.value }
              : { "a2a.method.name": method }
            return Effect.all([
              Metric.incrementBy(active, -1),
              Metric.update(histogramWith(callDuration, labels), seconds),
              Option.isSome(errorType) ? Effect.annotateCurrentSpan("error.type", errorType.value) : Effect.void
            ], discard)
          }))
      )
    }).pipe(
      Effect.withSpan(method === "WaitForTask" ? "a2a.client.wait_for_task" : method, {
        kind: method === "WaitForTask" ? "internal" : "client",
        captureStackTrace: false,
        attributes: method === "WaitForTask" ? attributes : { "a2a.method.name": method, ...attributes }
      })
    )

/**
 * How many label sets a metric tells apart (OpenTelemetry SDKs' default cardinality limit): a platform that
 * names a new runtime host or status each time cannot grow the process's metrics without bound.
 *
 * @internal
 */
export const maxLabelSets = 2000

const overflowLabels = { "otel.metric.overflow": "true" }

/**
 * Tags metrics of one kind once per metric and label set: Effect finds a metric's state by the identity of
 * its label array, so a metric tagged anew on each update would build and hash a new key every time. Past
 * {@link maxLabelSets}, new label sets are counted together under OpenTelemetry's overflow attribute.
 */
const taggedOnce = <M extends object>(tag: (metric: M, labels: Array<MetricLabel.MetricLabel>) => M) => {
  const byMetric = new WeakMap<M, Map<string, M>>()
  const tagged = (metric: M, labels: Record<string, string>): M => {
    const key = JSON.stringify(labels)
    let byLabels = byMetric.get(metric)
    if (byLabels === undefined) byMetric.set(metric, byLabels = new Map())
    const known = byLabels.get(key)
    if (known !== undefined) return known
    if (byLabels.size >= maxLabelSets && labels !== overflowLabels) return tagged(metric, overflowLabels)
    const made = tag(metric, [
      units.get(metric) ?? dimensionless,
      ...Object.entries(labels).map(([name, value]) => MetricLabel.make(name, value))
    ])
    byLabels.set(key, made)
    return made
  }
  return tagged
}

/**
 * A counter with its unit and the given attributes, as every update and read of it names it.
 *
 * @internal
 */
export const counterWith = taggedOnce<Metric.Metric.Counter<number>>(Metric.taggedWithLabels)

/**
 * A histogram with its unit and the given attributes, as every update and read of it names it.
 *
 * @internal
 */
export const histogramWith = taggedOnce<Metric.Metric.Histogram<number>>(Metric.taggedWithLabels)

/**
 * The address and port of a URL, as OpenTelemetry's `server.address` and `server.port`; none for a URL
 * that does not parse (a scrubbed one whose host held a secret).
 *
 * @internal
 */
export const serverOf = (url: string): Record<string, string | number> => {
  try {
    const parsed = new URL(url)
    const port = parsed.port === "" ? (parsed.protocol === "https:" ? 443 : 80) : Number(parsed.port)
    return { "server.address": parsed.hostname, "server.port": port }
  } catch {
    return {}
  }
}

/**
 * The HTTP client span attributes of a request as its errors show it (its URL scrubbed); `server` is the
 * URL's {@link serverOf}.
 *
 * @internal
 */
export const httpAttributes = (
  shown: { readonly method: string; readonly url: string },
  server: Record<string, string | number>
): Record<string, string | number> => ({ "http.request.method": shown.method, "url.full": shown.url, ...server })

/**
 * Measures an HTTP request as `http.client.request.duration`, by method, status, peer, server and
 * `error.type`: the status code for a status of 400 or more, else the failure's tag, and `A2ATimeoutError`
 * for a request its call's deadline interrupted (`timedOut` at clock millis), also set on `span`.
 *
 * @internal
 */
export const observeHttpRequest = (
  request: HttpClientRequest.HttpClientRequest,
  peer: Peer,
  server: Record<string, string | number>,
  span: Tracer.Span,
  timedOut: (now: number) => boolean
) =>
<A extends { readonly status: number }, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (start) =>
      Effect.onExit(self, (exit) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const status = Exit.isSuccess(exit) ? Option.some(exit.value.status) : Option.none()
          const errorType = Option.isSome(status)
            ? (status.value >= 400 ? Option.some(String(status.value)) : Option.none())
            : Exit.isInterrupted(exit) && timedOut(now)
            ? Option.some("A2ATimeoutError")
            : errorTypeOf(exit)
          const labels: Record<string, string> = {
            "http.request.method": request.method,
            "a2a.client.peer": peer,
            ...Object.fromEntries(Object.entries(server).map(([key, value]) => [key, String(value)])),
            ...(Option.isSome(status) ? { "http.response.status_code": String(status.value) } : {}),
            ...(Option.isSome(errorType) ? { "error.type": errorType.value } : {})
          }
          if (Option.isSome(errorType)) span.attribute("error.type", errorType.value)
          return Metric.update(histogramWith(httpRequestDuration, labels), (now - start) / 1000)
        }))
  )

/**
 * Counts one occurrence with the given bounded attributes.
 *
 * @internal
 */
export const count = (
  metric: Metric.Metric.Counter<number>,
  labels: Record<string, string> = {}
): Effect.Effect<void> => Metric.increment(counterWith(metric, labels))
