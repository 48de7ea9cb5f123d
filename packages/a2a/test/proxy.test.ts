// The proxy settings' exact words and edges (`internal/proxy.ts`): how a proxy value is read (trimmed,
// `host:port` as `http://`, a scheme only at the start, only http and https), the exact reasons of a bad
// value, through the environment (`proxyConfig`) and the layer's `proxy` option; and, without a real proxy,
// what undici's refusals become (`refusalStatus`, `ProxyRefused`) and when settings count as direct.
import { describe, expect, it } from "@effect/vitest"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { direct, isDirect, ProxyRefused, proxyRefusedCode, refusalStatus } from "../src/internal/proxy.js"
import * as A2ANode from "../src/node.js"

const read = (env: Record<string, string>) =>
  A2ANode.proxyConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

const httpProxyOf = (value: string) =>
  Effect.map(read({ http_proxy: value }), (settings) => Option.map(settings.httpProxy, Redacted.value))

const layerError = (proxy: string) => Effect.flip(Effect.scoped(Layer.build(A2ANode.layerHttpClient({ proxy }))))

const notUrl = "is not a URL (expected http://[user:password@]host:port)"
const notHttp = "must be an http:// or https:// proxy URL"

describe("a proxy value", () => {
  it.effect("is trimmed before it is read", () =>
    Effect.gen(function*() {
      expect(yield* httpProxyOf("  http://proxy.example:3128  ")).toEqual(Option.some("http://proxy.example:3128/"))
      expect(yield* httpProxyOf("\thttps://proxy.example:3129\n")).toEqual(Option.some("https://proxy.example:3129/"))
    }))

  it.effect("http: and https: proxies are kept as they are", () =>
    Effect.gen(function*() {
      expect(yield* httpProxyOf("http://proxy.example:3128")).toEqual(Option.some("http://proxy.example:3128/"))
      expect(yield* httpProxyOf("https://proxy.example:3129")).toEqual(Option.some("https://proxy.example:3129/"))
      expect(yield* httpProxyOf("HTTPS://user:pw@Proxy.Example:3129")).toEqual(
        Option.some("https://user:pw@proxy.example:3129/")
      )
    }))

  it.effect("without a scheme at its start it means http://, even with a scheme further on", () =>
    Effect.gen(function*() {
      expect(yield* httpProxyOf("proxy.example:3128")).toEqual(Option.some("http://proxy.example:3128/"))
      // `proxy.example:` would be a scheme if `http://` later in the value counted as the value's scheme
      expect(yield* httpProxyOf("proxy.example:3128/http://x")).toEqual(
        Option.some("http://proxy.example:3128/http://x")
      )
    }))

  it.effect("a scheme other than http and https is refused with its exact reason, named by its variable", () =>
    Effect.gen(function*() {
      for (const value of ["ftp://proxy.example:21", "socks5://user:s3cret@proxy.example:1080"]) {
        const error = yield* Effect.flip(read({ HTTPS_PROXY: value }))
        expect(error).toMatchObject({ _op: "InvalidData", path: ["HTTPS_PROXY"], message: notHttp })
      }
    }))

  it.effect("a value that is no URL is refused with its exact reason", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(read({ http_proxy: "http://user:s3cret@[bad" }))
      expect(error).toMatchObject({ _op: "InvalidData", path: ["http_proxy"], message: notUrl })
      const spaces = yield* Effect.flip(read({ http_proxy: "a b http://x" }))
      expect(spaces).toMatchObject({ _op: "InvalidData", path: ["http_proxy"], message: notUrl })
    }))

  it.effect("the layer's proxy option: the same reasons, under `proxy`", () =>
    Effect.gen(function*() {
      const scheme = yield* layerError("socks5://proxy.example:1080")
      expect(ConfigError.isConfigError(scheme)).toBe(true)
      expect(scheme).toMatchObject({ _op: "InvalidData", path: ["proxy"], message: `The proxy option ${notHttp}` })
      const url = yield* layerError("http://[bad")
      expect(url).toMatchObject({ _op: "InvalidData", path: ["proxy"], message: `The proxy option ${notUrl}` })
    }))
})

describe("undici's refusals", () => {
  it("the status only from undici's exact messages", () => {
    expect(refusalStatus(new Error("Proxy response (403) !== 200 when HTTP Tunneling"))).toBe(403)
    expect(refusalStatus(new Error("Proxy response (502) !== 200 when HTTP Tunneling"))).toBe(502)
    expect(refusalStatus(new Error("Proxy Authentication Required (407)"))).toBe(407)
    expect(refusalStatus(new Error("x Proxy response (403) !== 200 when HTTP Tunneling"))).toBeUndefined()
    expect(refusalStatus(new Error("Proxy response (403) !== 200 when HTTP Tunneling, again"))).toBeUndefined()
    expect(refusalStatus(new Error("x Proxy Authentication Required (407)"))).toBeUndefined()
    expect(refusalStatus(new Error(""))).toBeUndefined()
    expect(refusalStatus(new Error("connect ECONNREFUSED 127.0.0.1:3128"))).toBeUndefined()
  })

  it("a value that is no Error is no refusal, whatever its message", () => {
    expect(refusalStatus(undefined)).toBeUndefined()
    expect(refusalStatus(null)).toBeUndefined()
    expect(refusalStatus({ message: "Proxy Authentication Required (407)" })).toBeUndefined()
    expect(refusalStatus({ message: "Proxy response (403) !== 200 when HTTP Tunneling" })).toBeUndefined()
  })

  it("ProxyRefused: its name, message, code, proxy and status", () => {
    const refused = new ProxyRefused("http://proxy.example:3128", 407)
    expect(refused).toBeInstanceOf(Error)
    expect(refused.name).toBe("ProxyRefused")
    expect(refused.message).toBe("The proxy http://proxy.example:3128 refused the request (407)")
    expect(String(refused)).toBe("ProxyRefused: The proxy http://proxy.example:3128 refused the request (407)")
    expect(refused.code).toBe(proxyRefusedCode)
    expect(proxyRefusedCode).toBe("A2A_PROXY_REFUSED")
    expect([refused.proxy, refused.status]).toEqual(["http://proxy.example:3128", 407])
  })
})

describe("direct settings", () => {
  it("settings without an http and an https proxy are direct; with either, not", () => {
    const proxy = Option.some(Redacted.make("http://proxy.example:3128/"))
    expect(isDirect(direct)).toBe(true)
    expect(isDirect({ ...direct, noProxy: "*" })).toBe(true)
    expect(isDirect({ ...direct, http: proxy })).toBe(false)
    expect(isDirect({ ...direct, https: proxy })).toBe(false)
    expect(isDirect({ http: proxy, https: proxy, noProxy: "" })).toBe(false)
  })
})
