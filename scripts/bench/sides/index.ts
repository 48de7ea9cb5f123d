/**
 * Side factories by name (imported lazily, so a process only loads the clients it measures).
 */
import type { Side, Target } from "./side.js"

export type SideName = "floor" | "official" | "ours" | "ours-effect"

export const makeSide = async (name: SideName, target: Target): Promise<Side> => {
  switch (name) {
    case "floor":
      return (await import("./floor.js")).makeFloor(target)
    case "official":
      return (await import("./official.js")).makeOfficial(target)
    case "ours":
      return (await import("./ours.js")).makeOurs(target, "promise")
    case "ours-effect":
      return (await import("./ours.js")).makeOurs(target, "effect")
  }
}
