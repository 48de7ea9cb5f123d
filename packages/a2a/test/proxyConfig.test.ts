// The Node layer's proxy settings from the environment (Effect Config), and the words of a transport failure:
// a proxy's refusal and each TLS certificate failure. Over real sockets with a real proxy and real TLS:
// packages/interop/test/scenarios/network.ts.
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as A2AError from "../src/A2AError.js"
import * as A2ANode from "../src/node.js"

/** The proxy settings the Node layer reads from `env` as its environment. */
const read = (env: Record<string, string>) =>
  A2ANode.proxyConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromJson(env)))

const value = (option: Option.Option<Redacted.Redacted<string>>) => Option.map(option, Redacted.value)

describe("proxy settings from the environment", () => {
  it.effect("lowercase first, either case, each scheme its own variable; host:port means http://", () =>
    Effect.gen(function*() {
      const both = yield* read({
        http_proxy: "http://lower:3128",
        HTTP_PROXY: "http://upper:3128",
        HTTPS_PROXY: "proxy.example:8080",
        NO_PROXY: "localhost,.internal"
      })
      expect(value(both.httpProxy)).toEqual(Option.some("http://lower:3128/"))
      expect(value(both.httpsProxy)).toEqual(Option.some("http://proxy.example:8080/"))
      expect(both.noProxy).toBe("localhost,.internal")
      const upper = yield* read({ HTTP_PROXY: "http://upper:3128", no_proxy: "*", NO_PROXY: "other" })
      expect(value(upper.httpProxy)).toEqual(Option.some("http://upper:3128/"))
      expect(upper.httpsProxy).toEqual(Option.none())
      expect(upper.noProxy).toBe("*")
      const blank = yield* read({ http_proxy: " ", HTTP_PROXY: "http://upper:3128" })
      expect(value(blank.httpProxy)).toEqual(Option.some("http://upper:3128/"))
      const none = yield* read({})
      expect([none.httpProxy, none.httpsProxy, none.noProxy]).toEqual([Option.none(), Option.none(), ""])
    }))

  it.effect("a proxy URL stays redacted, credentials and all", () =>
    Effect.gen(function*() {
      const settings = yield* read({ https_proxy: "http://user:s3cret-pass@proxy:3128" })
      expect(String(settings.httpsProxy)).not.toContain("s3cret-pass")
      expect(JSON.stringify(settings)).not.toContain("s3cret-pass")
    }))

  it.effect("an invalid proxy URL is a ConfigError naming the variable, not its value", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(read({ HTTPS_PROXY: "socks5://user:s3cret-pass@proxy:1080" }))
      expect(String(error)).toContain("HTTPS_PROXY")
      expect(String(error)).toContain("must be an http:// or https:// proxy URL")
      expect(String(error)).not.toContain("s3cret-pass")
      const notUrl = yield* Effect.flip(read({ http_proxy: "http://user:s3cret-pass@[bad" }))
      expect(String(notUrl)).toContain("http_proxy")
      expect(String(notUrl)).not.toContain("s3cret-pass")
    }))
})

describe("A2ATransportError in words", () => {
  const base = {
    method: "POST",
    url: "https://127.0.0.1:8443/api/a2a/v1/message:send",
    step: "send-message" as const,
    messageMayHaveBeenSent: false
  }

  it("a proxy's refusal names the proxy and the status, and is retry-safe", () => {
    for (const [status, words] of [[407, /user and password/], [403, /NO_PROXY/], [502, /could not reach/]] as const) {
      const error = new A2AError.A2ATransportError({ ...base, proxy: "http://proxy:3128", proxyStatus: status })
      expect(error.message).toContain(`The proxy http://proxy:3128 refused POST ${base.url}`)
      expect(error.message).toContain(String(status))
      expect(error.message).toMatch(words)
      expect(error.message).toContain("nothing was sent")
      expect(A2AError.isRetrySafe(error)).toBe(true)
    }
    const gateway = new A2AError.A2ATransportError({ ...base, proxy: "http://proxy:3128", proxyStatus: 407 })
    expect(gateway.message).toContain("407 Proxy Authentication Required")
  })

  it("each certificate failure says what is wrong and what to do, with its code", () => {
    const messageOf = (code: string) => new A2AError.A2ATransportError({ ...base, code }).message
    for (
      const code of ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "SELF_SIGNED_CERT_IN_CHAIN", "DEPTH_ZERO_SELF_SIGNED_CERT"]
    ) {
      expect(messageOf(code)).toContain(`the server's certificate is not trusted (${code})`)
      expect(messageOf(code)).toContain("NODE_EXTRA_CA_CERTS")
    }
    expect(messageOf("ERR_TLS_CERT_ALTNAME_INVALID")).toContain("not valid for 127.0.0.1")
    expect(messageOf("CERT_HAS_EXPIRED")).toContain("has expired")
    expect(messageOf("CERT_NOT_YET_VALID")).toContain("not valid yet")
    for (const code of A2AError.tlsCertificateCodes) expect(messageOf(code)).toContain(`(${code})`)
    expect(messageOf("ECONNREFUSED")).toBe(`The connection failed during send-message to POST ${base.url}`)
  })
})
