/**
 * Child-process entry: runs the minimal platform and reports its port over IPC, so that the client
 * under test has its own process (its CPU time is then the client's alone).
 */
import { startMinimalPlatform } from "./minimalPlatform.js"

const platform = await startMinimalPlatform()
process.send?.({ type: "ready", port: platform.port, baseUrl: platform.baseUrl })
process.on("disconnect", () => {
  void platform.close().finally(() => process.exit(0))
})
process.on("SIGTERM", () => {
  void platform.close().finally(() => process.exit(0))
})
