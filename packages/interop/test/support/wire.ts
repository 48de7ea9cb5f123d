/**
 * Small helpers shared by the harness servers: listening on 127.0.0.1:0, recording requests, reading bodies.
 */
import type * as Http from "node:http"
import * as Net from "node:net"

/** One request as a server saw it. `body` is the exact bytes received (possibly partial for faults). */
export interface RecordedRequest {
  readonly server: string
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  body: Buffer
  /** Whether the whole request body was received. */
  complete: boolean
  readonly at: number
}

export const flattenHeaders = (headers: Http.IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[key.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

export const readBody = (req: Http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

/** A listening server and a `close` that also destroys open sockets (hanging handlers included). */
export interface Listening {
  readonly port: number
  readonly origin: string
  readonly close: () => Promise<void>
}

export const listen = async (server: Http.Server | Net.Server): Promise<Listening> => {
  const sockets = new Set<Net.Socket>()
  server.on("connection", (socket: Net.Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("no port")
  const port = address.port
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/**
 * A port on 127.0.0.1 on which nothing listens, and none of the servers the tests start will: below the
 * ephemeral ranges (32768 and up on Linux, 49152 and up elsewhere), from which `listen(0)` takes its ports, and
 * refused when tried. A port bound and released instead is handed out again by the next `listen(0)`: a
 * backend started right after took it, and its session's "unreachable" runtime was the backend itself.
 */
export const closedPort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    if (await refuses(port)) return port
  }
  throw new Error("no refused port found on 127.0.0.1 between 20000 and 32000")
}

const refuses = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = Net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"))
  })

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves when `predicate` holds, polling every 10 ms, or rejects after `ms`. */
export const until = async (predicate: () => boolean, ms = 5_000, what = "condition"): Promise<void> => {
  const deadline = performance.now() + ms
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

export const json = (
  res: Http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
): void => {
  const bytes = Buffer.from(JSON.stringify(body))
  res.writeHead(status, { "content-type": "application/json", "content-length": String(bytes.length), ...headers })
  res.end(bytes)
}

/** The value, or a thrown error naming what was missing. */
export const must = <T>(value: T | undefined | null, what = "value"): T => {
  if (value === undefined || value === null) throw new Error(`missing ${what}`)
  return value
}
