/**
 * Side factories by name (imported lazily, so a process only loads the clients it measures).
 */
import type { Side, SideOptions, Target } from "./side.js"

export type SideName =
  | "floor"
  | "floor-in-effect"
  | "official"
  | "ours"
  | "ours-effect"
  | "ours-notracer"
  | "effect-http"
  | "effect-http-notracer"
  | "lean-http"
  | "ours-from"
  | "effect-idiomatic"
  | "effect-idiomatic-nobudget"

export const makeSide = async (name: SideName, target: Target, options: SideOptions = {}): Promise<Side> => {
  switch (name) {
    case "floor":
      return (await import("./floor.js")).makeFloor(target)
    case "floor-in-effect":
      return (await import("./floor.js")).makeFloor(target, true)
    case "official":
      return (await import("./official.js")).makeOfficial(target)
    case "ours":
      return (await import("./ours.js")).makeOurs(target, "promise", options)
    case "ours-effect":
      return (await import("./ours.js")).makeOurs(target, "effect", options)
    case "ours-notracer":
      return (await import("./ours.js")).makeOurs(target, "promise", { ...options, tracer: false })
    case "effect-http":
      return (await import("./effectHttp.js")).makeEffectHttp(target, true)
    case "effect-http-notracer":
      return (await import("./effectHttp.js")).makeEffectHttp(target, false)
    case "lean-http":
      return (await import("./effectHttp.js")).makeEffectHttp(target, true, "lean", options)
    case "ours-from":
      return (await import("./oursFrom.js")).makeOursFrom(target)
    case "effect-idiomatic":
      return (await import("./idiomatic.js")).makeIdiomaticSide(target)
    case "effect-idiomatic-nobudget":
      return (await import("./idiomatic.js")).makeIdiomaticSide(target, false)
    default:
      throw new Error(`unknown side ${name}`)
  }
}
