/**
 * What an HTTP layer can learn about the connect phase of the exchange under way. A generic `HttpClient`
 * cannot observe that phase; a layer that can (the Node layer) reads it from {@link currentConnectPhase},
 * applies the connect limit itself, and says when the request waits for a connection and when it has one
 * and is about to be written.
 */
import type * as Duration from "effect/Duration"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import * as Option from "effect/Option"

/** @internal */
export interface ConnectPhase {
  /** The call's connect limit, which a layer that can see the connect phase applies itself. */
  readonly limit: Option.Option<Duration.Duration>
  /** Called synchronously when the client holds the request until a connection is free: nothing of it is written before onConnected. */
  onQueued(): void
  /** Called (synchronously, from any callback) when the request has a connection and is about to be written. */
  onConnected(): void
}

/** @internal */
export const noConnectPhase: ConnectPhase = { limit: Option.none(), onQueued: () => {}, onConnected: () => {} }

/** @internal */
export const currentConnectPhase: FiberRef.FiberRef<ConnectPhase> = globalValue(
  "@mainsequence/a2a/internal/currentConnectPhase",
  () => FiberRef.unsafeMake(noConnectPhase)
)
