/**
 * What the network suites put between the client and the servers, all on 127.0.0.1:
 *
 * - a real forward proxy (the npm package `proxy`, the one undici's own tests use), recording every request
 *   it got (absolute-form or CONNECT) and, when asked, requiring credentials or refusing destinations as a
 *   proxy's access rules would (403, or 502 as a gateway that cannot reach them);
 * - a certificate authority and server certificates made at test time with `openssl` (trusted, for another
 *   host name, expired), never committed;
 * - a TLS front: an https origin that terminates TLS with one of those certificates and pipes the bytes to an
 *   http server of the suite (the reference backend, a fault runtime).
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Tls from "node:tls"
import { createProxy } from "proxy"
import type { ScenarioContext } from "./scenario.js"
import { secrets } from "./secrets.js"
import { listen } from "./wire.js"

/** Proxy credentials: distinctive secrets, so the secrecy suite finds them anywhere. */
export const proxyUser = secrets.proxyUser
export const proxyPassword = secrets.proxyPassword

export interface ProxyRequest {
  readonly method: string
  /** `http://host:port/path` for absolute-form requests, `host:port` for CONNECT. */
  readonly url: string
  readonly proxyAuthorization: string | undefined
}

export interface RunningProxy {
  /** `http://127.0.0.1:port`, without credentials. */
  readonly origin: string
  readonly port: number
  /** `http://user:password@127.0.0.1:port` when the proxy requires them, else {@link origin}. */
  readonly url: string
  readonly requests: Array<ProxyRequest>
  readonly close: () => Promise<void>
}

export interface ProxyOptions {
  /** Require these credentials (407 otherwise). */
  readonly credentials?: { readonly user: string; readonly password: string }
  /** Refuse a CONNECT (or a forwarded request) with this status, as an access rule would. */
  readonly refuse?: (request: ProxyRequest) => number | undefined
}

/** Starts the `proxy` package's server on 127.0.0.1:0, closed when the scenario ends. */
export const startProxy = async (ctx: ScenarioContext, options: ProxyOptions = {}): Promise<RunningProxy> => {
  const requests: Array<ProxyRequest> = []
  const server = createProxy(Http.createServer())
  const expected = options.credentials === undefined
    ? undefined
    : `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString("base64")}`
  if (expected !== undefined) server.authenticate = (req) => req.headers["proxy-authorization"] === expected
  const record = (req: Http.IncomingMessage): ProxyRequest => {
    const header = req.headers["proxy-authorization"]
    const request = { method: req.method ?? "", url: req.url ?? "", proxyAuthorization: header }
    requests.push(request)
    return request
  }
  // The proxy's own handlers run after the record (and the access rule, which answers in their place).
  for (const event of ["request", "connect"] as const) {
    const handlers = server.listeners(event)
    server.removeAllListeners(event)
    server.on(event, (req: Http.IncomingMessage, second: Http.ServerResponse | Net.Socket, head: Buffer) => {
      const request = record(req)
      const status = options.refuse?.(request)
      if (status === undefined) {
        for (const handler of handlers) Reflect.apply(handler, server, [req, second, head])
        return
      }
      if (second instanceof Net.Socket) {
        second.end(`HTTP/1.1 ${status} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
      } else {
        second.writeHead(status, { "content-length": "0", connection: "close" }).end()
      }
    })
  }
  const listening = await listen(server)
  ctx.defer(() => listening.close())
  const url = options.credentials === undefined
    ? listening.origin
    : `http://${encodeURIComponent(options.credentials.user)}:${
      encodeURIComponent(options.credentials.password)
    }@127.0.0.1:${listening.port}`
  return { origin: listening.origin, port: listening.port, url, requests, close: listening.close }
}

export interface Pki {
  readonly dir: string
  /** The CA's certificate (PEM file), for `NODE_EXTRA_CA_CERTS`. */
  readonly caFile: string
  readonly ca: string
  /** Valid for 127.0.0.1 and localhost, signed by the CA. */
  readonly trusted: { readonly key: string; readonly cert: string }
  /** Signed by the CA, for `other.example` only. */
  readonly otherHost: { readonly key: string; readonly cert: string }
  /** Signed by the CA, for 127.0.0.1, expired in 2020. */
  readonly expired: { readonly key: string; readonly cert: string }
}

const openssl = (dir: string, args: ReadonlyArray<string>): void => {
  ChildProcess.execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] })
}

let made: Pki | undefined

/** A certificate authority and three server certificates, made once per test process with `openssl`. */
export const testPki = (): Pki => {
  if (made !== undefined) return made
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ms-interop-pki-"))
  process.once("exit", () => Fs.rmSync(dir, { recursive: true, force: true }))
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
  openssl(dir, [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=Interop Test CA"
  ])
  Fs.writeFileSync(
    Path.join(dir, "ca.cnf"),
    [
      "[ca]",
      "default_ca = test",
      "[test]",
      "database = index.txt",
      "new_certs_dir = .",
      "serial = serial",
      "default_md = sha256",
      "policy = any",
      "copy_extensions = copy",
      "unique_subject = no",
      "[any]",
      "commonName = supplied",
      ""
    ].join("\n")
  )
  Fs.writeFileSync(Path.join(dir, "index.txt"), "")
  Fs.writeFileSync(Path.join(dir, "serial"), "01\n")
  const issue = (name: string, san: string, dates: ReadonlyArray<string>) => {
    openssl(dir, [
      "req",
      "-new",
      ...ec,
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
      "-subj",
      `/CN=${name}`,
      "-addext",
      `subjectAltName=${san}`
    ])
    openssl(dir, [
      "ca",
      "-batch",
      "-config",
      "ca.cnf",
      "-keyfile",
      "ca.key",
      "-cert",
      "ca.pem",
      "-in",
      `${name}.csr`,
      "-out",
      `${name}.pem`,
      "-notext",
      ...dates
    ])
    return {
      key: Fs.readFileSync(Path.join(dir, `${name}.key`), "utf8"),
      cert: Fs.readFileSync(Path.join(dir, `${name}.pem`), "utf8")
    }
  }
  made = {
    dir,
    caFile: Path.join(dir, "ca.pem"),
    ca: Fs.readFileSync(Path.join(dir, "ca.pem"), "utf8"),
    trusted: issue("trusted", "IP:127.0.0.1,DNS:localhost", ["-days", "2"]),
    otherHost: issue("other-host", "DNS:other.example", ["-days", "2"]),
    expired: issue("expired", "IP:127.0.0.1,DNS:localhost", [
      "-startdate",
      "20200101000000Z",
      "-enddate",
      "20200102000000Z"
    ])
  }
  return made
}

export interface TlsFront {
  /** `https://127.0.0.1:port` */
  readonly origin: string
  /** Connections whose TLS handshake completed. */
  readonly handshakes: () => number
}

/** An https origin in front of `target` (an http origin on 127.0.0.1), closed when the scenario ends. */
export const startTlsFront = async (
  ctx: ScenarioContext,
  target: string,
  certificate: { readonly key: string; readonly cert: string }
): Promise<TlsFront> => {
  const port = Number(new URL(target).port)
  let handshakes = 0
  const server = Tls.createServer({ key: certificate.key, cert: certificate.cert }, (socket) => {
    handshakes++
    const upstream = Net.connect(port, "127.0.0.1")
    socket.pipe(upstream).pipe(socket)
    const end = () => {
      socket.destroy()
      upstream.destroy()
    }
    socket.on("error", end).on("close", end)
    upstream.on("error", end).on("close", end)
  })
  server.on("tlsClientError", () => undefined)
  const listening = await listen(server)
  ctx.defer(() => listening.close())
  return { origin: `https://127.0.0.1:${listening.port}`, handshakes: () => handshakes }
}
