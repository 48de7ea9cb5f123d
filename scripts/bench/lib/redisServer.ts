/**
 * A `redis-server` of the benchmark's own: 127.0.0.1, a free port, a temp dir, no persistence; stopped by
 * `stop()`. Without the Debian package the benchmark fails with one line saying how to get it.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"

export interface BenchRedis {
  readonly url: string
  readonly stop: () => Promise<void>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Another free port when the one found is taken before redis-server binds it (at most four more tries). */
export const startRedis = async (attempt = 0): Promise<BenchRedis> => {
  try {
    return await startOn(await freePort())
  } catch (error) {
    if (attempt < 4 && error instanceof Error && error.message.includes("Address already in use")) {
      return startRedis(attempt + 1)
    }
    throw error
  }
}

const startOn = async (port: number): Promise<BenchRedis> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "a2a-bench-redis-"))
  const child = spawn("redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir
  ], { stdio: ["ignore", "pipe", "inherit"] })
  await new Promise<void>((resolve, reject) => {
    let output = ""
    child.once("error", () => reject(new Error("redis-server is not installed: apt-get install redis-server")))
    child.once("exit", (code) => {
      rmSync(dir, { recursive: true, force: true })
      reject(new Error(`redis-server exited with ${String(code)}: ${output}`))
    })
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("Ready to accept connections")) resolve()
    })
  })
  child.removeAllListeners("exit")
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => {
          rmSync(dir, { recursive: true, force: true })
          resolve()
        })
        child.kill("SIGTERM")
      })
  }
}
