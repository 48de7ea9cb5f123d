/**
 * Learns the message id of a send while it runs, so an interrupted send (SIGINT) can still print
 * `A2A message id for request retry: <id>` — including an id the SDK generated.
 *
 * The SDK tells the id in two places: failures carry `messageId` (see `Failure.ts`), and progress events carry
 * it (see `Progress.ts`). Neither fires when a send is interrupted before any transient wait, so this module
 * also watches the SDK's spans for their `a2a.message_id` attribute, which the SDK sets as soon as the request
 * body is built. It wraps the current tracer and changes nothing else.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as MutableRef from "effect/MutableRef"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Tracer from "effect/Tracer"

/**
 * The span attribute that carries the message id.
 *
 * @since 0.1.0
 * @category constants
 */
export const messageIdAttribute = "a2a.message_id"

/**
 * @since 0.1.0
 * @category models
 */
export interface MessageIdWitness {
  /** The message id, once the SDK built the request body. */
  readonly messageId: Effect.Effect<Option.Option<string>>
  /** Runs `effect` while watching for the message id. */
  readonly watch: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<MessageIdWitness> = Effect.sync(() => {
  const seen = MutableRef.make(Option.none<string>())
  const notice = (key: string, value: unknown) => {
    if (key === messageIdAttribute && Predicate.isString(value)) MutableRef.set(seen, Option.some(value))
  }
  const watching = (tracer: Tracer.Tracer): Tracer.Tracer =>
    Tracer.make({
      span: (name, parent, context, links, startTime, kind, options) => {
        const span = tracer.span(name, parent, context, links, startTime, kind, options)
        span.attributes.forEach((value, key) => notice(key, value))
        const attribute = span.attribute
        span.attribute = (key, value) => {
          notice(key, value)
          attribute.call(span, key, value)
        }
        return span
      },
      context: (f, fiber) => tracer.context(f, fiber)
    })
  return {
    messageId: Effect.sync(() => MutableRef.get(seen)),
    watch: (effect) => Effect.tracerWith((tracer) => Effect.withTracer(effect, watching(tracer)))
  }
})
