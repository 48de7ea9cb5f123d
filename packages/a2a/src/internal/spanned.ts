/**
 * A span around an effect in one uninterruptible region. `Effect.withSpan` is three nested regions (the
 * span's end, its installation as parent span, the `locally` under it), each kept on the fiber's stack for as
 * long as the effect runs; a call in flight holds one per span. Here the span, its installation and its end
 * share one region: the same span (name, kind, attributes, parent, links, timing, exit), a few stack frames
 * instead of seven (heap per call in flight, docs/BENCHMARKS.md). The span is this module's own, so nothing
 * else can have ended it (`Effect.withSpan` checks, for a span handed out).
 */
import * as Headers from "@effect/platform/Headers"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Tracer from "effect/Tracer"

/** @internal */
export interface SpanOptions {
  readonly kind?: Tracer.SpanKind | undefined
  readonly attributes?: Record<string, unknown> | undefined
}

/**
 * Runs `use(span)` inside a span named `name` (the fiber's current span its parent, no stack trace), the span
 * installed as the current one until it ends, however `use` ends.
 *
 * @internal
 */
export const spanned = <A, E, R>(
  name: string,
  options: SpanOptions,
  use: (span: Tracer.Span) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(
      Effect.makeSpan(name, { kind: options.kind, attributes: options.attributes, captureStackTrace: false }),
      (span) =>
        Effect.flatMap(
          FiberRef.getAndUpdate(FiberRef.currentContext, (context) => Context.add(context, Tracer.ParentSpan, span)),
          (context) => {
            const end = (exit: Exit.Exit<A, E>) =>
              Effect.zipRight(
                FiberRef.set(FiberRef.currentContext, context),
                Effect.withFiberRuntime((fiber) => {
                  const timed = fiber.getFiberRef(FiberRef.currentTracerTimingEnabled)
                  const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
                  span.end(timed ? clock.unsafeCurrentTimeNanos() : 0n, exit)
                  return Effect.void
                })
              )
            return Effect.matchCauseEffect(restore(use(span)), {
              onFailure: (cause) => Effect.zipRight(end(Exit.failCause(cause)), Effect.failCause(cause)),
              onSuccess: (value) => Effect.as(end(Exit.succeed(value)), value)
            })
          }
        )
    )
  )

/** Effect's built-in tracer, the one in place when no tracer is installed: its spans reach no one. */
const builtInTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/** @internal */
export const untraced = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean => fiber.currentTracer === builtInTracer

const hexDigits = "0123456789abcdef"

/**
 * `length` random hex digits as one flat string (the built-in tracer's ids are a rope of one string per digit),
 * from one draw of the platform's cryptographic random source.
 */
const randomHex = (length: number): string => {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(length / 2))
  // Stryker disable next-line ArrayDeclaration: equivalent: the array is filled to the same length either way
  const codes = new Array<number>(length)
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] ?? 0
    codes[2 * i] = hexDigits.charCodeAt(byte >> 4)
    codes[2 * i + 1] = hexDigits.charCodeAt(byte & 15)
  }
  return String.fromCharCode(...codes)
}

/**
 * The trace context (`b3` and `traceparent`, as `HttpTraceContext.toHeaders` writes them) of a span the
 * built-in tracer would make now, without making it: nobody records that span, so only its ids matter, and
 * a call in flight keeps these two headers instead of the span, its attributes and its ids' ropes. A new
 * trace, or the parent span's trace. `undefined` where the built-in tracer would not make the span under
 * that parent (propagation disabled there): then the caller makes the span as Effect does.
 *
 * @internal
 */
// Stryker disable next-line BlockStatement: equivalent: without a context the caller makes the span, which gives the same headers (only heavier)
export const untracedTraceContext = (fiber: Fiber.RuntimeFiber<unknown, unknown>): Headers.Headers | undefined => {
  const parent = Context.getOption(fiber.currentContext, Tracer.ParentSpan)
  // Stryker disable next-line ConditionalExpression: equivalent for `true` (the caller then always makes the span, the same headers); `false` is killed by rules.spans
  if (parent._tag === "Some" && Context.get(parent.value.context, Tracer.DisablePropagation)) return undefined
  const spanId = randomHex(16)
  const traceId = parent._tag === "Some" ? parent.value.traceId : randomHex(32)
  const b3 = [traceId, spanId, "1"]
  if (parent._tag === "Some") b3.push(parent.value.spanId)
  return Headers.unsafeFromRecord({ b3: b3.join("-"), traceparent: ["00", traceId, spanId, "01"].join("-") })
}

/**
 * {@link spanned} when a tracer is installed; with Effect's built-in tracer, whose spans nobody records, the
 * effect itself (a warm send made three spans nobody could see: docs/BENCHMARKS.md). For the steps whose
 * span only a tracer shows; the exchange's span is always made, its trace context goes out on the request.
 * The effect is made when it runs (`make`): a call in flight keeps this step's closure, not its effects.
 *
 * @internal
 */
export const traced = <A, E, R>(
  name: string,
  make: () => Effect.Effect<A, E, R>,
  attributes?: () => Record<string, unknown>
): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => untraced(fiber) ? make() : spanned(name, { attributes: attributes?.() }, make))

/**
 * Annotates the current span, a {@link traced} one, when a tracer is installed (without one, the current
 * span is the caller's, not this step's).
 *
 * @internal
 */
export const annotateTraced = (attributes: () => Record<string, unknown>): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => untraced(fiber) ? Effect.void : Effect.annotateCurrentSpan(attributes()))
