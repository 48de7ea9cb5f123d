/**
 * A response body offered chunk by chunk, for `HttpClient`s of their own.
 *
 * The SDK reads every answer chunk by chunk (it enforces `maxResponseBytes` and the phase limits while the
 * body arrives). Any `HttpClientResponse` is read through its `stream`; running an Effect `Stream` costs
 * a few hundred microseconds of CPU per body, more than the rest of a warm send's own steps. A response
 * that also offers its chunks under {@link TypeId} is read through that instead, without the `Stream`
 * machinery. The Node layer's client (`@mainsequence/a2a/node`) and the simulated platform's
 * (`@mainsequence/a2a-testing`) both do.
 *
 * @example
 * ```ts
 * import { ChunkSource } from "@mainsequence/a2a"
 * import * as Effect from "effect/Effect"
 * import * as Option from "effect/Option"
 *
 * // A body that is all there at once: its bytes, then the end.
 * const whole = (bytes: Uint8Array): ChunkSource.ChunkSource => {
 *   let read = false
 *   return {
 *     [ChunkSource.TypeId]: Effect.sync(() => {
 *       if (read) return Option.none()
 *       read = true
 *       return Option.some(bytes)
 *     })
 *   }
 * }
 * ```
 *
 * @since 0.2.0
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"

/**
 * @since 0.2.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@mainsequence/a2a/ChunkSource")

/**
 * @since 0.2.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * A body offered chunk by chunk: each run of the effect is the next chunk, `None` at the end of the body.
 * Reading it is reading the body (the response's other ways of reading it are then used up), and the
 * SDK reads it from one fiber, one chunk after the other, until `None` or the first failure; it may
 * stop before the end (the body passed `maxResponseBytes`, a phase limit passed).
 *
 * @since 0.2.0
 * @category models
 */
export interface ChunkSource {
  readonly [TypeId]: Effect.Effect<Option.Option<Uint8Array>, HttpClientError.ResponseError>
}

/**
 * Whether a value (an `HttpClientResponse`, usually) offers its body chunk by chunk.
 *
 * @since 0.2.0
 * @category guards
 */
export const isChunkSource = (u: unknown): u is ChunkSource => Predicate.hasProperty(u, TypeId)
