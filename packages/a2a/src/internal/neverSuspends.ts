/**
 * Stores and caches whose every operation completes without suspending its fiber (the in-memory ones), known
 * by identity: a copy of one (`{ ...store, get }`) may suspend and is not known.
 */
import { globalValue } from "effect/GlobalValue"

const known: WeakSet<object> = globalValue("@mainsequence/a2a/internal/neverSuspends", () => new WeakSet<object>())

/** @internal */
export const markNeverSuspends = <A extends object>(value: A): A => {
  known.add(value)
  return value
}

/** @internal */
export const neverSuspends = (value: object): boolean => known.has(value)
