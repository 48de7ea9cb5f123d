import * as Headers from "@effect/platform/Headers"
import { describe, expect, it } from "@effect/vitest"
import * as Redacted from "effect/Redacted"
import * as Redact from "../src/Redact.js"

const known = Redact.knownSecrets([
  Redacted.make("user-access-token-1"),
  Redacted.make("http://proxy-user:p%40ss-word@proxy.example:3128")
])

describe("Redact", () => {
  it("hides the values it was given, and a proxy URL's user and password as written and decoded", () => {
    expect(Redact.text("a user-access-token-1 b proxy-user c p%40ss-word d p@ss-word", known)).toBe(
      "a <redacted> b <redacted> c <redacted> d <redacted>"
    )
  })

  it("hides a known secret echoed percent-encoded (either case of hex), with its / escaped as \\/, or base64-encoded", () => {
    const runtime = Redact.knownSecrets([Redacted.make("rt/SECRET+runtime-0123456789")])
    expect(
      Redact.text(
        "a rt%2FSECRET%2Bruntime-0123456789 b rt%2fSECRET%2bruntime-0123456789 c rt\\/SECRET+runtime-0123456789",
        runtime
      )
    ).toBe("a <redacted> b <redacted> c <redacted>")
    // inside a longer encoded value: `id=<token>;`
    expect(Redact.text(`d ${btoa("id=rt/SECRET+runtime-0123456789;")}`, runtime)).toBe("d aWQ9<redacted>Ts=")
  })

  it("hides JSON members whose key names a credential, also when the excerpt cuts the value", () => {
    expect(
      Redact.text(
        "{\"token\": \"rt-1\", \"access_token\":\"a\", \"access\":\"b\", \"refresh\": null, \"client_secret\": 7, \"state\":\"ready\", \"id_token\": \"cut",
        []
      )
    ).toBe(
      "{\"token\": \"<redacted>\", \"access_token\":\"<redacted>\", \"access\":\"<redacted>\", \"refresh\": \"<redacted>\", " +
        "\"client_secret\": \"<redacted>\", \"state\":\"ready\", \"id_token\": \"<redacted>\""
    )
  })

  it("hides Bearer / Basic credentials, a URL's user info, credential query parameters and JWTs", () => {
    expect(
      Redact.text(
        "Bearer abc.def Basic dXNlcjpwdw== http://u:pw@host/x?access_token=1&page=2 eyJhbGciOiJI.eyJzdWIiOiIx.c2ln",
        []
      )
    ).toBe("Bearer <redacted> Basic <redacted> http://<redacted>@host/x?access_token=<redacted>&page=2 <redacted>")
    // Ordinary prose and ids stay readable.
    expect(Redact.text("{\"detail\":\"Given token not valid\",\"contextId\":\"c-1\",\"messageId\":\"m-1\"}", [])).toBe(
      "{\"detail\":\"Given token not valid\",\"contextId\":\"c-1\",\"messageId\":\"m-1\"}"
    )
  })

  it("a credential is named by a whole word: output_tokens, author, authenticated, www-authenticate are kept", () => {
    const text = "{\"usage\":{\"output_tokens\":567},\"author\":\"Jane Doe\",\"authenticated\":true," +
      "\"accessToken\":\"a1\",\"x_auth_token\":\"a2\",\"apiKey\":\"a3\"} max_tokens=512 author=Jane"
    expect(Redact.text(text, [])).toBe(
      "{\"usage\":{\"output_tokens\":567},\"author\":\"Jane Doe\",\"authenticated\":true," +
        "\"accessToken\":\"<redacted>\",\"x_auth_token\":\"<redacted>\",\"apiKey\":\"<redacted>\"} max_tokens=512 author=Jane"
    )
    const headers = Headers.fromInput({ "www-authenticate": "Bearer realm=\"api\"", "set-cookie": "s=1" })
    expect(Redact.headerLines(headers, [])).toEqual([
      "www-authenticate: Bearer realm=\"api\"",
      "set-cookie: <redacted>"
    ])
  })

  it("hides a credential's name=value wherever it stands, as it hides its JSON member", () => {
    expect(
      Redact.text(
        "denied token=rt-1 for x?access=a2&page=2,refresh=r3 \"password=p4\" api_key=\"k 5\" {\"token\": \"rt-6\"}",
        []
      )
    ).toBe(
      "denied token=<redacted> for x?access=<redacted>&page=2,refresh=<redacted> \"password=<redacted>\" " +
        "api_key=<redacted> {\"token\": \"<redacted>\"}"
    )
    // At the start of a URL too, and only names of credentials.
    expect(Redact.text("http://h/x?access=1&state=s", [])).toBe("http://h/x?access=<redacted>&state=s")
    expect(Redact.text("text/plain; charset=utf-8 page=2", [])).toBe("text/plain; charset=utf-8 page=2")
  })

  it("the tokens an answer hands out: values of token members, escaped keys too; not a token_type or a phrase", () => {
    const text = `{"token":"rt-1a2b3c4d","\\u0061ccess":"acc-5e6f7a8b","refresh_token":"ref-9c0d1e2f",` +
      `"token_type":"access_token","messages":[{"token_class":"AccessToken","message":"Token is invalid"}],` +
      `"refresh":"short","password":"has a space"}`
    expect(Redact.credentialsIn(text).map(Redacted.value)).toEqual(["rt-1a2b3c4d", "acc-5e6f7a8b", "ref-9c0d1e2f"])
  })

  it("a text made for a backtracking pattern (1 MB of \"+A\", of \"eyJeee-\") is redacted at once", () => {
    expect(Redact.text(`0${"+A".repeat(500_000)}`, [])).toHaveLength(1_000_001)
    expect(Redact.text("eyJeee-".repeat(150_000), [])).toHaveLength(1_050_000)
    // Within the bounds, both are still found.
    expect(Redact.text(`${"s".repeat(32)}://${"u".repeat(1024)}@host eyJ${"a".repeat(5000)}.eyJb.c`, [])).toBe(
      `${"s".repeat(32)}://<redacted>@host <redacted>`
    )
  })

  it("the credentials of a request's Authorization and Proxy-Authorization headers, without their scheme", () => {
    const headers = Headers.fromInput({
      authorization: "Bearer rt-Secret-Token-42",
      "proxy-authorization": `Basic ${btoa("proxy-user:p@ss-word")}`,
      "x-other": "Bearer not-this"
    })
    expect(Redact.requestCredentials(headers).map(Redacted.value)).toEqual([
      "rt-Secret-Token-42",
      btoa("proxy-user:p@ss-word"),
      "proxy-user",
      "p@ss-word"
    ])
    expect(Redact.requestCredentials(Headers.fromInput({ authorization: "raw-token-7" })).map(Redacted.value))
      .toEqual(["raw-token-7"])
    expect(Redact.requestCredentials(Headers.empty)).toEqual([])
  })

  it("hides every credential header whole, whatever its value", () => {
    const headers = Headers.fromInput({
      authorization: "Bearer x",
      "proxy-authorization": "Basic y",
      cookie: "s=1",
      "x-runtime-token": "z",
      "x-api-key": "k",
      "content-type": "application/json"
    })
    expect(Redact.headerLines(headers, known)).toEqual([
      "authorization: <redacted>",
      "proxy-authorization: <redacted>",
      "cookie: <redacted>",
      "x-runtime-token: <redacted>",
      "x-api-key: <redacted>",
      "content-type: application/json"
    ])
  })
})
