/**
 * Reading an answer's body chunk by chunk. Any `HttpClientResponse` is read through its `stream`; a
 * response that also offers its chunks directly (`ChunkSource`: the Node layer's client, the simulated
 * platform's) is read through them, which skips the Stream machinery on every send.
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as ChunkSource from "../ChunkSource.js"

/**
 * Runs `f` on each chunk of the body, in order, until the end of the body or the first failure.
 *
 * @internal
 */
export const forEachChunk = <E>(
  response: HttpClientResponse.HttpClientResponse,
  f: (chunk: Uint8Array) => Effect.Effect<void, E>
): Effect.Effect<void, E | HttpClientError.ResponseError> => {
  // Stryker disable next-line ConditionalExpression: equivalent: a ChunkSource response (the Node client's, the simulated platform's) offers the same chunks as its stream; the direct path only skips the Stream machinery
  if (!ChunkSource.isChunkSource(response)) {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent: the collected results are thrown away either way
    return Stream.runForEachChunk(response.stream, (chunk) => Effect.forEach(chunk, f, { discard: true }))
  }
  const next = response[ChunkSource.TypeId]
  const loop: Effect.Effect<void, E | HttpClientError.ResponseError> = Effect.flatMap(
    next,
    Option.match({ onNone: () => Effect.void, onSome: (chunk) => Effect.zipRight(f(chunk), loop) })
  )
  return loop
}

/**
 * The chunks of a body, `size` bytes in all, as one array.
 *
 * @internal
 */
export const concat = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array<ArrayBuffer> => {
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}
