/**
 * @since 0.1.0
 */

/**
 * The CLI's version (keep in step with package.json).
 *
 * @since 0.1.0
 * @category constants
 */
export const version = "0.1.0"
