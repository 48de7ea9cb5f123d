/**
 * @since 0.1.0
 */
export * as A2AClient from "./A2AClient.js"
/**
 * @since 0.1.0
 */
export * as A2AError from "./A2AError.js"
/**
 * @since 0.1.0
 */
export * as A2AProgress from "./A2AProgress.js"
/**
 * @since 0.1.0
 */
export * as A2AProtocol from "./A2AProtocol.js"
/**
 * @since 0.1.0
 */
export * as Attachment from "./Attachment.js"
/**
 * @since 0.2.0
 */
export * as PlatformText from "./PlatformText.js"
/**
 * @since 0.2.0
 */
export * as Redaction from "./Redaction.js"
/**
 * @since 0.1.0
 */
export * as RuntimeAccess from "./RuntimeAccess.js"
/**
 * @since 0.1.0
 */
export * as RuntimeAccessCache from "./RuntimeAccessCache.js"
/**
 * @since 0.1.0
 */
export * as Timeout from "./Timeout.js"
