/**
 * A real `redis-server` for the tests: its own process on a free 127.0.0.1 port, in a temp dir, with no
 * persistence (`--save '' --appendonly no`), stopped with the scope. Without `redis-server` on the PATH the
 * test file fails with one line saying how to install it (never a silent skip: CI checks the count).
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"

const installHint = "redis-server is not installed: apt-get install redis-server"

/** Throws the one-line install hint when `redis-server` is missing (call it at the top of a test file). */
export const requireRedisServer = (): void => {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" })
  } catch {
    throw new Error(installHint)
  }
}

export interface RedisServer {
  readonly port: number
  readonly url: string
  /** A client of the test's own, for inspecting and configuring the server (closed with the scope). */
  readonly admin: Redis
  /** Stops the server now (SIGKILL: the "crash" of a Redis in the middle of a run). */
  readonly kill: Effect.Effect<void>
}

/** A port nothing listens on now (a server can be started on it later). */
export const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const waitReady = (child: ChildProcess): Effect.Effect<void, Error> =>
  Effect.async((resume) => {
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("Ready to accept connections")) {
        child.stdout?.off("data", onData)
        resume(Effect.void)
      }
    }
    child.stdout?.on("data", onData)
    child.once("exit", (code) => resume(Effect.fail(new Error(`redis-server exited with ${code}: ${output}`))))
  })

const stop = (child: ChildProcess, signal: NodeJS.Signals): Effect.Effect<void> =>
  Effect.async((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill(signal)
  })

/** Starts a redis-server with `extra` arguments (e.g. `["--requirepass", "…"]`); stopped with the scope. */
export const startRedisServer = (
  extra: ReadonlyArray<string> = [],
  options: { readonly password?: string; readonly port?: number } = {}
): Effect.Effect<RedisServer, Error, Scope.Scope> =>
  options.port !== undefined
    ? startOn(options.port, extra, options.password)
    // A free port can be taken by another test's process before redis-server binds it: another port then.
    : Effect.retry(Effect.flatMap(freePort, (port) => startOn(port, extra, options.password)), {
      times: 4,
      while: (error) => error.message.includes("Address already in use")
    })

const startOn = (
  port: number,
  extra: ReadonlyArray<string>,
  password: string | undefined
): Effect.Effect<RedisServer, Error, Scope.Scope> =>
  Effect.gen(function*() {
    requireRedisServer()
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(path.join(os.tmpdir(), "a2a-redis-test-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn("redis-server", [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--save",
          "",
          "--appendonly",
          "no",
          "--dir",
          dir,
          ...extra
        ], { stdio: ["ignore", "pipe", "inherit"] })
      ),
      (child) => stop(child, "SIGTERM")
    )
    yield* waitReady(child)
    const admin = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const client = new Redis({ host: "127.0.0.1", port, password, lazyConnect: true })
        client.on("error", () => {})
        return client
      }),
      (client) => Effect.sync(() => client.disconnect())
    )
    return { port, url: `redis://127.0.0.1:${port}`, admin, kill: stop(child, "SIGKILL") }
  })

/** Every key and raw value in the server (`KEYS *`, `GET`). */
export const dump = (admin: Redis): Effect.Effect<ReadonlyArray<readonly [string, string]>> =>
  Effect.promise(async () => {
    const keys = await admin.keys("*")
    const values = await Promise.all(keys.map((key) => admin.get(key)))
    return keys.map((key, i) => [key, values[i] ?? ""] as const)
  })
