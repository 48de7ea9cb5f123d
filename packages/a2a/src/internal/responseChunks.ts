/**
 * A response body read chunk by chunk, put together once it has all arrived.
 */

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
