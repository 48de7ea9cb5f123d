/**
 * @mainsequence/a2a-redis — a Redis store for `@mainsequence/a2a`'s runtime-access cache, shared by a fleet of
 * processes: entries encrypted (AES-256-GCM) and expiring with their access.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as RedisRuntimeAccessStore from "./RedisRuntimeAccessStore.js"
