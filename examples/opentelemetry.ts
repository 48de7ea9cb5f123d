/**
 * OpenTelemetry: the SDK traces every call with Effect spans; `@effect/opentelemetry` exports them. This
 * example keeps the spans of one send in memory and prints them as a tree. In production, pass an OTLP
 * exporter (`@opentelemetry/exporter-trace-otlp-http`) to a `BatchSpanProcessor` instead.
 *
 *   mainsequence dev platform     # or your real platform: export MAINSEQUENCE_ENDPOINT / MAINSEQUENCE_ACCESS_TOKEN
 *   node examples/dist/opentelemetry.js <agent-session-uid> "What can you do?"
 */
import { NodeSdk } from "@effect/opentelemetry"
import { NodeRuntime } from "@effect/platform-node"
import { A2AClient } from "@mainsequence/a2a"
import * as A2ANode from "@mainsequence/a2a/node"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Console, Effect } from "effect"

const [agentSessionUid = "", message = "What can you do?"] = process.argv.slice(2)

const exporter = new InMemorySpanExporter()
const TracingLive = NodeSdk.layer(() => ({
  resource: { serviceName: "a2a-example" },
  spanProcessor: new SimpleSpanProcessor(exporter)
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

const program = Effect.gen(function*() {
  const client = yield* A2AClient.A2AClient
  yield* client.sendA2AMessage(agentSessionUid, { message })
}).pipe(
  Effect.withSpan("example.askAgent"),
  Effect.provide(A2ANode.layerConfig()),
  Effect.ensuring(Effect.suspend(() => Console.log(spanTree(exporter.getFinishedSpans()))))
)

program.pipe(Effect.provide(TracingLive), NodeRuntime.runMain)
