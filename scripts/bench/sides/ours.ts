/** Placeholder until the SDK's node layer lands. */
import type { Side, Target } from "./side.js"

export const makeOurs = (_target: Target, _mode: "promise" | "effect"): Promise<Side> =>
  Promise.reject(new Error("@mainsequence/a2a/node is not built yet"))
