// A plain node:http server on 127.0.0.1 for the Node client's tests over real sockets: it records each request
// (method, URL, headers, the body's bytes) and answers with the test's handler; closed with the scope.
import * as Effect from "effect/Effect"
import * as Http from "node:http"

export interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: Buffer
}

/** A server on 127.0.0.1 that records each request and answers with `answer`; closed with the scope. */
export const serve = (answer: (req: Http.IncomingMessage, res: Http.ServerResponse) => void) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.async<{ readonly server: Http.Server; readonly seen: Array<Seen> }>((resume) => {
        const seen: Array<Seen> = []
        const server = Http.createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (chunk: Buffer) => chunks.push(chunk))
          req.on("end", () => {
            seen.push({
              method: req.method ?? "",
              url: req.url ?? "",
              headers: req.headers,
              body: Buffer.concat(chunks)
            })
            answer(req, res)
          })
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, seen })))
      }),
      ({ server }) =>
        Effect.async<unknown>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    ),
    ({ seen, server }) => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      return { url: `http://127.0.0.1:${port}`, seen }
    }
  )
