// The telemetry module's own logic: the `error.type` of an exit, the server of a URL, an HTTP status's outcome.
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import { A2AInputError } from "../src/A2AError.js"
import * as Telemetry from "../src/internal/telemetry.js"
import {
  count,
  errorTypeOf,
  httpRequestDuration,
  maxLabelSets,
  observeHttpRequest,
  serverOf
} from "../src/internal/telemetry.js"
import { histogramOf } from "./fixtures.js"

describe("units", () => {
  it.effect("each metric carries the unit @effect/opentelemetry exports (its `unit` tag), as the README gives it", () =>
    Effect.gen(function*() {
      const { counterWith, histogramWith } = Telemetry
      yield* Effect.all([
        Metric.value(histogramWith(Telemetry.callDuration, {})),
        Metric.value(counterWith(Telemetry.callsActive, {})),
        Metric.value(histogramWith(Telemetry.httpRequestDuration, {})),
        Metric.value(counterWith(Telemetry.resolutions, {})),
        Metric.value(counterWith(Telemetry.transientWaits, {})),
        Metric.value(histogramWith(Telemetry.transientWaitDuration, {})),
        Metric.value(counterWith(Telemetry.credentialRefreshes, {})),
        Metric.value(counterWith(Telemetry.cacheLookups, {})),
        Metric.value(counterWith(Telemetry.messageLimitAnswers, {}))
      ])
      const units = new Map(
        Metric.unsafeSnapshot().map((pair) => [
          pair.metricKey.name,
          pair.metricKey.tags.find((tag) => tag.key === "unit")?.value
        ])
      )
      expect(Object.fromEntries(Array.from(units).filter(([name]) => /^(a2a|http)\./.test(name)))).toEqual({
        "a2a.client.call.duration": "s",
        "a2a.client.calls.active": "{call}",
        "http.client.request.duration": "s",
        "a2a.client.runtime_access.resolutions": "{resolution}",
        "a2a.client.runtime_access.waits": "{wait}",
        "a2a.client.runtime_access.wait.duration": "s",
        "a2a.client.credential.refreshes": "{refresh}",
        "a2a.client.cache.lookups": "{lookup}",
        "a2a.client.message_limit.exceeded": "{answer}"
      })
    }))
})

describe("error.type of an exit", () => {
  it("none for a success; the tag of a tagged failure; _OTHER for any other failure", () => {
    expect(errorTypeOf(Exit.succeed(1))).toEqual(Option.none())
    expect(errorTypeOf(Exit.fail(new A2AInputError({ field: "message", reason: "empty" }))))
      .toEqual(Option.some("A2AInputError"))
    for (const error of ["text", null, undefined, {}, { _tag: 7 }]) {
      expect(errorTypeOf(Exit.fail(error))).toEqual(Option.some("_OTHER"))
    }
  })

  it.effect("interrupted for an interruption alone; _OTHER for a defect", () =>
    Effect.gen(function*() {
      expect(errorTypeOf(yield* Effect.exit(Effect.interrupt))).toEqual(Option.some("interrupted"))
      expect(errorTypeOf(Exit.die(new Error("boom")))).toEqual(Option.some("_OTHER"))
    }))
})

describe("server.address and server.port of a URL", () => {
  it("the host and the port, the scheme's default when none is given; nothing for a text that is no URL", () => {
    expect(serverOf("https://runtime.example/a2a")).toEqual({ "server.address": "runtime.example", "server.port": 443 })
    expect(serverOf("http://runtime.example/a2a")).toEqual({ "server.address": "runtime.example", "server.port": 80 })
    expect(serverOf("http://127.0.0.1:8080/")).toEqual({ "server.address": "127.0.0.1", "server.port": 8080 })
    expect(serverOf("not a url")).toEqual({})
  })
})

describe("http.client.request.duration by status", () => {
  it.effect("a status of 400 or more is its error.type; 399 has none", () =>
    Effect.gen(function*() {
      const request = HttpClientRequest.get("https://runtime.example/a2a")
      const server = serverOf(request.url)
      const countOf = (labels: Record<string, string>) =>
        Effect.map(histogramOf(httpRequestDuration, labels), (state) => state.count)
      const base = {
        "http.request.method": "GET",
        "a2a.client.peer": "runtime",
        "server.address": "runtime.example",
        "server.port": "443"
      }
      const answered = (status: number) =>
        Effect.useSpan("GET", (span) =>
          observeHttpRequest(request, "runtime", server, span, () => false)(Effect.succeed({ status })))
      const counts = Effect.all([
        countOf({ ...base, "http.response.status_code": "400", "error.type": "400" }),
        countOf({ ...base, "http.response.status_code": "399" })
      ])
      const [rejectedBefore, answeredBefore] = yield* counts
      yield* answered(400)
      yield* answered(399)
      const [rejectedAfter, answeredAfter] = yield* counts
      expect([rejectedAfter - rejectedBefore, answeredAfter - answeredBefore]).toEqual([1, 1])
    }))
})

describe("metric cardinality", () => {
  it.effect("a metric tells apart at most 2,000 label sets; later ones count together under otel.metric.overflow", () =>
    Effect.gen(function*() {
      const servers = Metric.counter("test.cardinality.servers", { incremental: true })
      for (let port = 1; port <= maxLabelSets + 100; port++) yield* count(servers, { "server.port": String(port) })
      const states = Metric.unsafeSnapshot().filter((pair) => pair.metricKey.name === "test.cardinality.servers")
      expect(states).toHaveLength(maxLabelSets + 1)
      const overflow = states.find((pair) =>
        pair.metricKey.tags.some((tag) => tag.key === "otel.metric.overflow" && tag.value === "true")
      )
      expect(overflow?.metricState).toMatchObject({ count: 100 })
      // a label set told apart before the limit is still counted as itself
      yield* count(servers, { "server.port": "1" })
      const first = Metric.unsafeSnapshot().find((pair) =>
        pair.metricKey.name === "test.cardinality.servers" && pair.metricKey.tags.some((tag) => tag.value === "1")
      )
      expect(first?.metricState).toMatchObject({ count: 2 })
    }))
})
