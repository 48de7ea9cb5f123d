/**
 * What an HTTP layer can learn about the connect phase of the exchange under way. A generic `HttpClient`
 * cannot observe that phase; a layer that can (the Node layer) applies the connect limit itself and says
 * when the connection is up and the request is on its way, from which moment `read` bounds the head.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import * as Option from "effect/Option"

/** @internal */
export interface ConnectPhase {
  /** The call's connect limit, which a layer that can see the connect phase applies itself. */
  readonly limit: Option.Option<Duration.Duration>
  /**
   * Called (synchronously, from any callback, as a method of the phase) when the exchange has connected and
   * its request is being written; a no-op outside an exchange with a `[connect, read]` budget.
   */
  onConnected(): void
  /**
   * Offers the exchange, instead of a canceler, the way to end a wait of a request dispatched on `fiber` (its
   * head, a chunk of its body): `abort` aborts the request and ends the wait with an interruption. Taken
   * (`true`) only when whoever owns that fiber calls it whenever it ends the body running there, by
   * interrupting the fiber or without (a call on its caller's fiber); once that body has ended, at once. A
   * canceler is a region and frames on the fiber's stack for as long as the request waits.
   */
  takeAbort(fiber: Fiber.RuntimeFiber<unknown, unknown>, abort: () => void): boolean
}

/** @internal */
export const noConnectPhase: ConnectPhase = { limit: Option.none(), onConnected: () => {}, takeAbort: () => false }

/** @internal */
export const currentConnectPhase: FiberRef.FiberRef<ConnectPhase> = globalValue(
  "@mainsequence/a2a/internal/currentConnectPhase",
  () => FiberRef.unsafeMake(noConnectPhase)
)

/** @internal */
export const PhaseAwareTypeId: unique symbol = Symbol.for("@mainsequence/a2a/PhaseAwareHttpClient")

/**
 * An `HttpClient` that takes the connect phase with the request (the Node layer's): the exchange hands the
 * phase to it directly, without setting fiber refs for its head (each set copies the fiber's map of refs).
 * A client wrapped by `HttpClient.mapRequest` and the like is a new client without it, and is handed the
 * phase through {@link currentConnectPhase} as any other.
 *
 * @internal
 */
export interface PhaseAwareHttpClient extends HttpClient.HttpClient {
  readonly [PhaseAwareTypeId]: (
    request: HttpClientRequest.HttpClientRequest,
    phase: ConnectPhase
  ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>
}

/** @internal */
export const isPhaseAware = (client: HttpClient.HttpClient): client is PhaseAwareHttpClient =>
  PhaseAwareTypeId in client
