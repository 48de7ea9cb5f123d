/**
 * The connect limit of the exchange under way, for HTTP layers that can apply it (the Node layer sets
 * undici's connect timeout from it). A generic `HttpClient` cannot observe the connect phase.
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
