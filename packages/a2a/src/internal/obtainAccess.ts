/**
 * Steps 2–3 (SPEC §1.2–3, §6): a valid cached access whose token the runtime has not rejected, else access
 * from the session's one resolution (`sessionResolution.ts`), which the client owns.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as RuntimeAccessCache from "../RuntimeAccessCache.js"
import type { CallContext } from "./clientEnv.js"
import { awaitResolution, wasRejected } from "./sessionResolution.js"
import * as Telemetry from "./telemetry.js"

/**
 * `fresh` skips the cache (the runtime rejected the cached access).
 *
 * @internal
 */
export const obtainAccess = (
  ctx: CallContext,
  fresh: boolean
): Effect.Effect<RuntimeAccessCache.CachedRuntimeAccess, RuntimeAccessCache.ResolveError> =>
  fresh
    ? awaitResolution(ctx, true)
    : Effect.flatMap(ctx.cache.get(ctx.key, ctx.deadlineMillis), (cached) => {
      if (Option.isNone(cached) || wasRejected(ctx.session, cached.value)) {
        return Effect.zipRight(
          Telemetry.count(Telemetry.cacheLookups, { "a2a.client.cache.result": "miss" }),
          awaitResolution(ctx, Option.isSome(cached))
        )
      }
      // A token from the cache (another process's, maybe) is a secret this client now holds.
      ctx.backend.secrets.add("runtime", cached.value.token)
      return Effect.as(Telemetry.count(Telemetry.cacheLookups, { "a2a.client.cache.result": "hit" }), cached.value)
    })
