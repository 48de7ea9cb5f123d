/**
 * Files sent with a message as inline parts (SPEC §2).
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export interface Attachment {
  readonly filename: string
  readonly mediaType: string
  readonly bytes: Uint8Array
}
