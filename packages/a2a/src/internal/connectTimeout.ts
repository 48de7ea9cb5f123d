/**
 * What an HTTP layer can learn about the connect phase of the exchange under way. A generic `HttpClient`
 * cannot observe that phase; a layer that can (the Node layer) applies the connect limit itself and says
 * when the connection is up and the request is on its way, from which moment `read` bounds the head.
 */
import type * as Duration from "effect/Duration"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import * as Option from "effect/Option"

/** @internal */
export const currentConnectTimeout: FiberRef.FiberRef<Option.Option<Duration.Duration>> = globalValue(
  "@mainsequence/a2a/internal/currentConnectTimeout",
  () => FiberRef.unsafeMake(Option.none<Duration.Duration>())
)

/**
 * Called (synchronously, from any callback) when the exchange under way has connected and its request is
 * being written; a no-op outside an exchange with a `[connect, read]` budget.
 *
 * @internal
 */
export const currentOnConnected: FiberRef.FiberRef<() => void> = globalValue(
  "@mainsequence/a2a/internal/currentOnConnected",
  () => FiberRef.unsafeMake<() => void>(() => {})
)
