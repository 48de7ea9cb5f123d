/**
 * OpenTelemetry: the SDK traces every call with Effect spans and records Effect metrics; `@effect/opentelemetry`
 * exports both. This example keeps the spans of one send in memory and prints them as a tree, then the
 * metrics it recorded. In production, pass OTLP exporters (`@opentelemetry/exporter-trace-otlp-http` to a
 * `BatchSpanProcessor`, `@opentelemetry/exporter-metrics-otlp-http` to a `PeriodicExportingMetricReader`).
 *
 *   mainsequence dev platform     # or your real platform: export MAINSEQUENCE_ENDPOINT / MAINSEQUENCE_ACCESS_TOKEN
 *   node examples/dist/opentelemetry.js <agent-session-uid> "What can you do?"
 */
import { NodeSdk } from "@effect/opentelemetry"
import { NodeRuntime } from "@effect/platform-node"
import { A2AClient } from "@mainsequence/a2a"
import * as A2ANode from "@mainsequence/a2a/node"
import { MetricReader } from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Console, Effect } from "effect"

const [agentSessionUid = "", message = "What can you do?"] = process.argv.slice(2)

/** A reader collected on demand, at the end of the example. */
class OnDemandReader extends MetricReader {
  protected override onShutdown = () => Promise.resolve()
  protected override onForceFlush = () => Promise.resolve()
}

const exporter = new InMemorySpanExporter()
const reader = new OnDemandReader()
const TelemetryLive = NodeSdk.layer(() => ({
  resource: { serviceName: "a2a-example" },
  spanProcessor: new SimpleSpanProcessor(exporter),
  metricReader: reader
}))

/** `name  duration` per span, children indented under their parent. */
const spanTree = (spans: ReadonlyArray<ReadableSpan>): string => {
  const lines: Array<string> = []
  const print = (parentId: string | undefined, depth: number): void => {
    const children = spans.filter((span) => span.parentSpanContext?.spanId === parentId)
    children.sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
    for (const span of children) {
      const millis = span.duration[0] * 1000 + span.duration[1] / 1e6
      lines.push(`${"  ".repeat(depth)}${span.name}  ${millis.toFixed(1)} ms`)
      print(span.spanContext().spanId, depth + 1)
    }
  }
  print(undefined, 0)
  return lines.join("\n")
}

/** `name  unit  {attributes}  value` per data point of the SDK's metrics. */
const metricLines = Effect.promise(() => reader.collect()).pipe(
  Effect.map(({ resourceMetrics }) =>
    resourceMetrics.scopeMetrics.flatMap((scope) =>
      scope.metrics.filter((metric) => /^(a2a|http)\./.test(metric.descriptor.name)).flatMap((metric) =>
        metric.dataPoints.map((point) => {
          const value = typeof point.value === "number" ? point.value : `count ${point.value.count}`
          const { name, unit } = metric.descriptor
          return `${name}  ${unit}  ${JSON.stringify(point.attributes)}  ${value}`
        })
      )
    ).join("\n")
  )
)

const program = Effect.gen(function*() {
  const client = yield* A2AClient.A2AClient
  yield* client.sendA2AMessage(agentSessionUid, { message })
}).pipe(
  Effect.withSpan("example.askAgent"),
  Effect.provide(A2ANode.layerConfig()),
  Effect.ensuring(Effect.suspend(() => Console.log(spanTree(exporter.getFinishedSpans())))),
  Effect.ensuring(Effect.flatMap(metricLines, (lines) => Console.log(`\n${lines}`)))
)

program.pipe(Effect.provide(TelemetryLive), NodeRuntime.runMain)
