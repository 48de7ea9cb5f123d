import { describe, expect, it } from "@effect/vitest"
import * as Redacted from "effect/Redacted"
import { makeKnownSecrets, maxKnownSecrets, scrubSecrets, scrubTexts } from "../src/internal/scrubSecrets.js"
import * as Redaction from "../src/Redaction.js"

const secret = (value: string) => Redacted.make(value)

describe("scrubSecrets", () => {
  it("replaces every occurrence of each known secret by the marker", () => {
    expect(scrubSecrets("a=secret-one b=secret-two c=secret-one", [secret("secret-one"), secret("secret-two")]))
      .toBe("a=<redacted> b=<redacted> c=<redacted>")
  })

  it("replaces a known secret echoed percent-encoded (either case of hex) or with its / escaped as \\/", () => {
    const token = "rt/SECRET+runtime-0123456789"
    const echoes = [
      "you sent Bearer%20rt%2FSECRET%2Bruntime-0123456789",
      "you sent Bearer%20rt%2fSECRET%2bruntime-0123456789",
      "{\"message\":\"you sent rt\\/SECRET+runtime-0123456789\"}"
    ]
    expect(echoes.map((text) => scrubSecrets(text, [secret(token)]))).toEqual([
      "you sent Bearer%20<redacted>",
      "you sent Bearer%20<redacted>",
      "{\"message\":\"you sent <redacted>\"}"
    ])
    // a secret with a lone surrogate (no percent-encoding) is still found as written
    expect(scrubSecrets("x \ud800-secret-value y", [secret("\ud800-secret-value")])).toBe("x <redacted> y")
  })

  it("Redaction.echoedForms lists each form the scrub hides, and no other", () => {
    const token = "rt/SECRET+runtime-é"
    const forms = Redaction.echoedForms(token)
    expect(forms).toEqual([
      token,
      "rt\\/SECRET+runtime-é",
      "rt%2FSECRET%2Bruntime-%C3%A9",
      "rt%2fSECRET%2bruntime-%c3%a9",
      // base64 of its UTF-8 bytes at offsets 0, 1 and 2 of an encoded value, each standard and URL-safe
      "cnQvU0VDUkVUK3J1bnRpbWUtw6",
      "cnQvU0VDUkVUK3J1bnRpbWUtw6",
      "J0L1NFQ1JFVCtydW50aW1lLcOp",
      "J0L1NFQ1JFVCtydW50aW1lLcOp",
      "ydC9TRUNSRVQrcnVudGltZS3Dq",
      "ydC9TRUNSRVQrcnVudGltZS3Dq"
    ])
    expect(forms.map((form) => scrubSecrets(`<${form}>`, [secret(token)]))).toEqual(forms.map(() => "<<redacted>>"))
    expect(Redaction.echoedForms("\ud800-secret-value")).toEqual(["\ud800-secret-value", "\ud800-secret-value"])
  })

  it("replaces a known secret echoed base64-encoded, alone or inside a longer value, in either alphabet", () => {
    const token = "rt-SECRET~runtime>>?0123"
    const around = ["", "a", "ab", "abc"].flatMap((before) =>
      ["", "x", "xy"].map((after) => `${before}${token}${after}`)
    )
    const encodings: ReadonlyArray<BufferEncoding> = ["base64", "base64url"]
    const echoes = encodings.flatMap((encoding) => around.map((value) => Buffer.from(value).toString(encoding)))
    expect(echoes.some((echo) => /[+/]/.test(echo)) && echoes.some((echo) => /[-_]/.test(echo))).toBe(true)
    for (const echo of echoes) {
      const scrubbed = scrubSecrets(`auth=${echo};`, [secret(token)])
      expect(scrubbed, echo).toContain("<redacted>")
      // what is left is the characters of the neighbouring bytes (at most four at each end), not the token's
      expect(scrubbed.replace(/^auth=|;$/g, "").replace("<redacted>", "").replace(/=+$/, "").length, echo)
        .toBeLessThanOrEqual(8)
    }
  })

  it("a secret made of one repeated character is replaced wherever it stands, however the text repeats it", () => {
    expect(scrubSecrets("aaaaaaaaaa", [secret("aaaaaaaaaa")])).toBe("<redacted>")
    expect(scrubSecrets("aaaaaaaaaaaaaaa", [secret("aaaaaaaaaa")])).toBe("<redacted>") // every a is in one
    expect(scrubSecrets("aaaaaaaaa", [secret("aaaaaaaaaa")])).toBe("aaaaaaaaa")
  })

  it("secrets that overlap are replaced together; one that holds an @ or a control character is still found", () => {
    expect(
      scrubSecrets("userTOKEN-0123456789abcdefRUNTIME", [secret("userTOKEN-0123"), secret("0123456789abcdefRUNTIME")])
    )
      .toBe("<redacted>")
    expect(scrubSecrets("http://u:p@ssRUNTIMESECRET99", [secret("p@ssRUNTIMESECRET99")])).toBe("http://u:<redacted>")
    expect(scrubSecrets("a tok\u0085en-secret-value-123 b", [secret("tok\u0085en-secret-value-123")])).toBe(
      "a <redacted> b"
    )
  })

  it("a secret that holds another ending before its own end is replaced whole", () => {
    expect(scrubSecrets("xxxxABCDEFGH12345678 y", [secret("xxxxABCDEFGH12345678"), secret("ABCDEFGH")])).toBe(
      "<redacted> y"
    )
  })

  it("replaces a secret that contains another whole (longest first)", () => {
    const short = secret("abcdefgh")
    const long = secret("abcdefgh-ijkl")
    expect(scrubSecrets("x abcdefgh-ijkl y", [short, long])).toBe("x <redacted> y")
  })

  it("leaves secrets under 8 characters alone (they would garble every text)", () => {
    expect(scrubSecrets("the state", [secret("t"), secret("abcdefg")])).toBe("the state")
    expect(scrubSecrets("key abcdefgh", [secret("abcdefgh")])).toBe("key <redacted>")
  })

  it("replaces the value of a \"token\", \"access\" or \"refresh\" member, escapes and spaces included", () => {
    expect(scrubSecrets(`{"token": "a\\"b", "access":"c", "refresh" :  "d", "other": "e"}`, [])).toBe(
      `{"token": "<redacted>", "access":"<redacted>", "refresh" :  "<redacted>", "other": "e"}`
    )
    // an escaped line break, and a member whose quote opens right after another's value closes
    expect(scrubSecrets(`"token":"a\\\nb" "token":"c\\`, [])).toBe(`"token":"<redacted>" "token":"<redacted>`)
    expect(scrubSecrets(`"access":"a"token":"b"`, [])).toBe(`"access":"<redacted>"token":"b"`)
    expect(scrubSecrets(`"x":"access":"a"`, [])).toBe(`"x":"access":"<redacted>"`)
  })

  it("replaces the credentials of a URL and a Basic value (a proxy's), keeping the rest", () => {
    expect(scrubSecrets("via http://alice:s3cret@proxy.internal:3128/ and HTTPS://bob@proxy:8443", [])).toBe(
      "via http://<redacted>@proxy.internal:3128/ and HTTPS://<redacted>@proxy:8443"
    )
    expect(scrubSecrets("Proxy-Authorization: Basic YWxpY2U6czNjcmV0 refused", [])).toBe(
      "Proxy-Authorization: Basic <redacted> refused"
    )
    expect(scrubSecrets("see https://runtime.example/a@b and mail alice@example.com, a Basic plan", [])).toBe(
      "see https://runtime.example/a@b and mail alice@example.com, a Basic plan"
    )
    expect(scrubSecrets("Basic YTpiYw==, then Basic YTpi", [])).toBe("Basic <redacted>, then Basic <redacted>")
    // not base64 (5 characters), or no `user:` once decoded: left alone
    expect(scrubSecrets("Basic abcde, Basic YWJjZGVm", [])).toBe("Basic abcde, Basic YWJjZGVm")
    // under 4 characters of base64 (a lone ":"): no credential
    expect(scrubSecrets("Basic Og==", [])).toBe("Basic Og==")
  })

  it("removes control characters other than whitespace first: a secret split by one is still replaced", () => {
    expect(scrubSecrets("a\u0007bc secret\u001b-one\u009b x\ty\nz", [secret("secret-one")])).toBe(
      "abc <redacted> x\ty\nz"
    )
  })

  it("removes escape sequences whole, unless their bytes split a known secret (then only their controls)", () => {
    const known = [secret("runtime-token-ABCDEFGH")]
    expect(scrubSecrets("Run\u001b[2J the\u001b]52;c;aGk=\u0007 update\u001b(B.", known)).toBe("Run the update.")
    // "\u001be" reads as an escape sequence: removed whole it would take the secret's "e" and show the rest.
    expect(scrubSecrets("x runtime-tok\u001ben-ABCDEFGH\u001b[2J y", known)).toBe("x <redacted>[2J y")
    // An escape sequence that joins a secret's two halves: the secret is still found.
    expect(scrubSecrets("x runtime-token-\u001b[31mABCDEFGH y", known)).toBe("x <redacted> y")
  })

  it("a URL's credentials are found within a bounded scheme and user part; longer runs are left as they are", () => {
    expect(scrubSecrets(`${"s".repeat(32)}://user:pw@host`, [])).toBe(`${"s".repeat(32)}://<redacted>@host`)
    expect(scrubSecrets(`x${"s".repeat(32)}://user:pw@host`, [])).toBe(`x${"s".repeat(32)}://user:pw@host`)
    expect(scrubSecrets(`${"s".repeat(33)}://user:pw@host`, [])).toBe(`${"s".repeat(33)}://user:pw@host`)
    // the scheme starts a word: after a dash yes, after a letter or an underscore no
    expect(scrubSecrets("a-http://u:p@h x_http://u:p@h 1http://u:p@h", [])).toBe(
      "a-http://<redacted>@h x_http://u:p@h 1http://u:p@h"
    )
    expect(scrubSecrets(`http://${"u".repeat(1024)}@host`, [])).toBe("http://<redacted>@host")
    expect(scrubSecrets(`http://${"u".repeat(1025)}@host`, [])).toBe(`http://${"u".repeat(1025)}@host`)
  })

  it("a text made for a backtracking pattern (1 MB of \"a-a-…\", of \"a://\") is scrubbed at once", () => {
    expect(scrubSecrets("a-".repeat(500_000), [])).toHaveLength(1_000_000)
    expect(scrubSecrets("a://".repeat(250_000), [])).toHaveLength(1_000_000)
  })

  it("a text made to overflow a backtracking pattern's stack (16 MiB in one value) is scrubbed", () => {
    const run = "A".repeat(16 * 1024 * 1024)
    expect(scrubSecrets(`"token":"${run}`, [])).toBe(`"token":"<redacted>`)
    expect(scrubSecrets(`"token":"${"A\\\"".repeat(4 * 1024 * 1024)}"`, [])).toBe(`"token":"<redacted>"`)
    expect(scrubSecrets(`Basic ${run}`, [])).toHaveLength(run.length + 6)
    expect(scrubSecrets(`Basic ${btoa(`user:${run}`)}`, [])).toBe("Basic <redacted>")
  })

  it("replaces a \"token\" value cut off at the end of an excerpt", () => {
    expect(scrubSecrets(`{"rpc_url":"x","token":"eyJhbGciOi`, [])).toBe(`{"rpc_url":"x","token":"<redacted>`)
  })
})

describe("scrubTexts", () => {
  it("scrubs every string of a JSON value, at any depth, and keeps everything else", () => {
    const value = { id: "t1", n: 2, ok: true, none: null, parts: [{ text: "a secret-one b" }, "secret-one"] }
    expect(scrubTexts(value, (text) => scrubSecrets(text, [secret("secret-one")]))).toEqual({
      id: "t1",
      n: 2,
      ok: true,
      none: null,
      parts: [{ text: "a <redacted> b" }, "<redacted>"]
    })
  })
})

describe("KnownSecrets", () => {
  it("scrubs the secrets added, of either kind", () => {
    const known = makeKnownSecrets()
    known.add("user", secret("user-token-1"))
    known.add("runtime", secret("runtime-token-1"))
    expect(known.scrub("user-token-1 runtime-token-1 other")).toBe("<redacted> <redacted> other")
  })

  it("remembers at most 256 runtime tokens, forgetting the oldest, and never pushes the user's out", () => {
    const known = makeKnownSecrets()
    known.add("user", secret("user-token-1"))
    known.add("runtime", secret("runtime-token-first"))
    for (let i = 0; i < maxKnownSecrets - 1; i++) known.add("runtime", secret(`runtime-token-${i}`))
    // the 256th: all remembered
    expect(known.scrub("runtime-token-first")).toBe("<redacted>")
    known.add("runtime", secret("runtime-token-last"))
    expect(known.scrub("runtime-token-first runtime-token-0 runtime-token-last user-token-1")).toBe(
      "runtime-token-first <redacted> <redacted> <redacted>"
    )
  })

  it("adding a known secret again makes it the newest", () => {
    const known = makeKnownSecrets()
    known.add("runtime", secret("runtime-token-first"))
    for (let i = 0; i < maxKnownSecrets - 1; i++) known.add("runtime", secret(`runtime-token-${i}`))
    known.add("runtime", secret("runtime-token-first"))
    known.add("runtime", secret("runtime-token-last"))
    expect(known.scrub("runtime-token-first runtime-token-0")).toBe("<redacted> runtime-token-0")
  })

  it("a secret is matched as written: characters that mean something in a pattern mean themselves", () => {
    const special = "a.b*c+d?e^f$g(h)i[j]k{l}m|n\\o/p"
    const known = makeKnownSecrets()
    known.add("runtime", secret(special))
    expect(known.scrub(`x ${special} y`)).toBe("x <redacted> y")
    expect(known.scrub("aXb*c+d?e^f$g(h)i[j]k{l}m|n\\o/p abbbc")).toBe("aXb*c+d?e^f$g(h)i[j]k{l}m|n\\o/p abbbc")
  })

  it("secrets are found however long and however alike: tokens of 40,000 and 100,000 characters, JWTs", () => {
    const known = makeKnownSecrets()
    const header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    const jwts = Array.from({ length: 300 }, (_, i) => `${header}eyJzdWIiOiJ${i}.c2lnbmF0dXJl${i}`)
    for (const jwt of jwts) known.add("runtime", secret(jwt))
    known.add("user", secret("L".repeat(40_000)))
    known.add("user", secret("M".repeat(100_000)))
    expect(known.scrub(`a ${"L".repeat(40_000)} b ${"M".repeat(100_000)} c ${jwts[299]} ${header}x`)).toBe(
      `a <redacted> b <redacted> c <redacted> ${header}x`
    )
  })

  it("a client that knows 512 secrets scrubs a million texts at once (found by their ends, in one pass)", () => {
    const known = makeKnownSecrets()
    for (let i = 0; i < maxKnownSecrets; i++) {
      known.add("user", secret(`user-token-${i}`))
      known.add("runtime", secret(`runtime-token-${i}`))
    }
    const texts = Array.from({ length: 1_000_000 }, (_, i) => `text ${i}`)
    expect(scrubTexts(texts, known.scrub)).toEqual(texts)
    expect(known.scrub("user-token-7 runtime-token-255")).toBe("<redacted> <redacted>")
  })

  it("remembers at most 256 user tokens of its own", () => {
    const known = makeKnownSecrets()
    for (let i = 0; i <= maxKnownSecrets; i++) known.add("user", secret(`user-token-${i}`))
    expect(known.scrub("user-token-0 user-token-1")).toBe("user-token-0 <redacted>")
  })
})
