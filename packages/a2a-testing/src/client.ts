/**
 * The testing kit for code that uses the SDK (`@mainsequence/a2a`, a peer
 * dependency of this entry point only): the SDK client on a simulated
 * platform in one call. The core of `@mainsequence/a2a-testing` does not
 * import the SDK.
 *
 * @since 0.1.0
 */

/**
 * The SDK's `A2AClient` on a simulated platform, with default uids.
 *
 * @since 0.1.0
 * @category modules
 */
export * as SimulatedA2AClient from "./SimulatedA2AClient.js"
