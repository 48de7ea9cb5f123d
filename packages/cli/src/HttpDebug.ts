/**
 * `--debug`: each HTTP exchange of a call written to stderr as it happens, every line starting with
 * `debug #N` (N counts the exchanges of the run): the request (method, URL, headers, a body excerpt), then the
 * response head (status, time to it, headers) or the failure, then, once the SDK has read the body, its size,
 * the time to its end and an excerpt. Every credential is redacted (see `Redact.ts`), and so, from the request
 * that carries it on, is each token a request's `Authorization` or `Proxy-Authorization` holds (a runtime token
 * the CLI got from the backend or its cache, a refreshed one): a server that echoes it shows it redacted.
 *
 * It decorates the `HttpClient` the SDK is given (`HttpClient.transform`); the SDK's core is unchanged. The
 * body excerpt is taken from the chunks as the SDK reads them, never by reading the body itself: each chunk
 * goes on to the SDK as it came, when it came, so the call's read limit, its budget and `maxResponseBytes`
 * apply as without `--debug`. A body the SDK stops reading early gets no body line.
 *
 * @since 0.2.0
 */
import type * as Cookies from "@effect/platform/Cookies"
import type * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { Output } from "./Output.js"
import * as Redact from "./Redact.js"
import { escapeUnsafe } from "./TerminalText.js"

/**
 * How many bytes of a body the log shows.
 *
 * @since 0.2.0
 * @category constants
 */
export const excerptBytes = 2048

// Bytes kept beyond the excerpt, so that a credential the cut would split is still recognised whole.
const redactionMargin = 4096

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Writes text to the log (add the newline yourself). */
  readonly write: (text: string) => Effect.Effect<void>
  /** Values to hide wherever they appear (the tokens and proxy URL the CLI was given); requests add theirs. */
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
}

const utf8 = new TextDecoder()

// One line of text: line breaks and tabs shown escaped, anything else a terminal acts on (escape codes) a space.
const oneLine = (text: string): string => escapeUnsafe(text.replace(/\r?\n/g, "\\n").replace(/\t/g, "\\t"), () => " ")

// How far back a credential member may start in a body read chunk by chunk: longer than any token.
const memberReach = 64 * 1024

/** `values` made the newest of `newest`, which keeps the last {@link learnedSecrets}. */
const keepNewest = (newest: Set<string>, values: ReadonlyArray<string>): void => {
  for (const value of values) {
    newest.delete(value)
    newest.add(value)
  }
  for (const oldest of newest) {
    if (newest.size <= learnedSecrets) break
    newest.delete(oldest)
  }
}

/** The first bytes of a body, as they pass, and, when it `learns`, the credentials the whole body hands out. */
class Excerpt {
  private readonly kept: Array<Uint8Array> = []
  private keptBytes = 0
  private readonly decoder = new TextDecoder()
  private tail = ""
  private readonly handed = new Set<string>()
  size = 0

  constructor(private readonly learns: boolean) {}

  /** The credentials the body handed out, the newest {@link learnedSecrets}. */
  get handedOut(): ReadonlyArray<Redacted.Redacted<string>> {
    return Array.from(this.handed, (value) => Redacted.make(value))
  }

  add(chunk: Uint8Array): void {
    if (this.learns) {
      const text = this.tail + this.decoder.decode(chunk, { stream: true })
      keepNewest(this.handed, Redact.credentialsIn(text).map(Redacted.value))
      this.tail = text.slice(-memberReach)
    }
    this.size += chunk.byteLength
    const room = excerptBytes + redactionMargin - this.keptBytes
    if (room <= 0) return
    const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room)
    this.kept.push(part)
    this.keptBytes += part.byteLength
  }

  render(known: ReadonlyArray<string>): string {
    const bytes = new Uint8Array(this.keptBytes)
    let offset = 0
    for (const part of this.kept) {
      bytes.set(part, offset)
      offset += part.byteLength
    }
    const redacted = Redact.text(utf8.decode(bytes), known)
    const cut = this.size > excerptBytes
    return `${oneLine(cut ? redacted.slice(0, excerptBytes) : redacted)}${cut ? " …" : ""}`
  }
}

/**
 * How many credentials seen in requests (see `Redact.requestCredentials`) stay hidden, the newest kept.
 *
 * @since 0.2.0
 * @category constants
 */
export const learnedSecrets = 256

// The backend's answers that hand out tokens (SPEC §3, and the token refresh); an Agent's words are never learned.
const handsOutTokens = (url: string): boolean => /\/(resolve-runtime-access|token\/refresh)\/(\?|$)/.test(url)

/** The texts to hide: those the CLI was given, and the credentials its requests carried or answers gave since. */
class KnownSecrets {
  private readonly learned = new Set<string>()
  current: ReadonlyArray<string>

  constructor(private readonly given: ReadonlyArray<Redacted.Redacted<string>>) {
    this.current = Redact.knownSecrets(given)
  }

  learn(credentials: ReadonlyArray<Redacted.Redacted<string>>): void {
    const seen = Redact.knownSecrets(credentials)
    if (seen.every((value) => this.learned.has(value))) return
    keepNewest(this.learned, seen)
    this.current = Redact.knownSecrets([...this.given, ...Array.from(this.learned, (value) => Redacted.make(value))])
  }
}

const millis = (fromNanos: bigint, toNanos: bigint): string => `${(Number(toNanos - fromNanos) / 1e6).toFixed(1)} ms`

const bytesOf = (body: HttpBody.HttpBody): Option.Option<Uint8Array> => {
  if (body._tag === "Uint8Array") return Option.some(body.body)
  if (body._tag === "Raw" && typeof body.body === "string") return Option.some(new TextEncoder().encode(body.body))
  return Option.none()
}

const requestBodyLines = (body: HttpBody.HttpBody, known: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (body._tag === "Empty") return []
  return Option.match(bytesOf(body), {
    onNone: () => [`  body: (${body._tag})`],
    onSome: (bytes) => {
      const excerpt = new Excerpt(false)
      excerpt.add(bytes)
      return [`  body (${bytes.byteLength} bytes): ${excerpt.render(known)}`]
    }
  })
}

const urlOf = (request: HttpClientRequest.HttpClientRequest, known: ReadonlyArray<string>): string =>
  Redact.text(
    Either.match(UrlParams.makeUrl(request.url, request.urlParams, request.hash), {
      onLeft: () => request.url,
      onRight: (url) => url.toString()
    }),
    known
  )

/** How the reading of a body ended: at its end, with a failure, or stopped (a limit ran out, the run stopped). */
type BodyOutcome =
  | { readonly _tag: "End" }
  | { readonly _tag: "Failed"; readonly why: string }
  | { readonly _tag: "Stopped" }

/** A response whose body chunks pass through an {@link Excerpt}, which is logged when the body ends. */
class ObservedResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  private readonly excerpt: Excerpt

  constructor(
    private readonly response: HttpClientResponse.HttpClientResponse,
    private readonly ended: (excerpt: Excerpt, outcome: BodyOutcome) => Effect.Effect<void>
  ) {
    super()
    this.excerpt = new Excerpt(handsOutTokens(response.request.url))
  }

  get request(): HttpClientRequest.HttpClientRequest {
    return this.response.request
  }
  get status(): number {
    return this.response.status
  }
  get headers() {
    return this.response.headers
  }
  get cookies(): Cookies.Cookies {
    return this.response.cookies
  }
  get remoteAddress(): Option.Option<string> {
    return this.response.remoteAddress
  }
  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return this.response.formData
  }

  /** The body, noted chunk by chunk on its way to the reader (the SDK reads it this way). */
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return this.response.stream.pipe(
      Stream.tap((chunk) => Effect.sync(() => this.excerpt.add(chunk))),
      Stream.tapError((error) => this.ended(this.excerpt, { _tag: "Failed", why: error.message })),
      Stream.onEnd(this.ended(this.excerpt, { _tag: "End" })),
      Stream.ensuringWith((exit) =>
        Exit.isInterrupted(exit) ? this.ended(this.excerpt, { _tag: "Stopped" }) : Effect.void
      )
    )
  }

  private get bytes(): Effect.Effect<Uint8Array, HttpClientError.ResponseError> {
    return Effect.map(Stream.runCollect(this.stream), (chunks) => {
      const all = Chunk.toReadonlyArray(chunks)
      const bytes = new Uint8Array(all.reduce((size, chunk) => size + chunk.byteLength, 0))
      all.reduce((offset, chunk) => (bytes.set(chunk, offset), offset + chunk.byteLength), 0)
      return bytes
    })
  }
  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (bytes) => utf8.decode(bytes))
  }
  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => text === "" ? null : JSON.parse(text),
        catch: () => undefined
      }).pipe(Effect.orElse(() => this.response.json)))
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.map(this.text, (text) => UrlParams.fromInput(new URLSearchParams(text)))
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (bytes) => bytes.slice().buffer)
  }

  toJSON(): unknown {
    return { _id: "HttpClientResponse", status: this.status }
  }
}

/** The response, its body observed on its way to the reader. */
const observed = (
  response: HttpClientResponse.HttpClientResponse,
  ended: (excerpt: Excerpt, outcome: BodyOutcome) => Effect.Effect<void>
): HttpClientResponse.HttpClientResponse => new ObservedResponse(response, ended)

/**
 * The client, each of its exchanges logged through `options.write`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const wrap = (client: HttpClient.HttpClient, options: Options): HttpClient.HttpClient => {
  const secrets = new KnownSecrets(options.secrets)
  let exchanges = 0
  return HttpClient.transform(client, (effect, request) =>
    Effect.suspend(() => {
      const n = ++exchanges
      // A token the CLI got at run time (from the backend, its cache, a refresh) is hidden from this exchange on.
      secrets.learn(Redact.requestCredentials(request.headers))
      const log = (lines: ReadonlyArray<string>) => options.write(lines.map((line) => `debug #${n} ${line}\n`).join(""))
      // Read at each line: a token another exchange brought since is hidden too.
      const what = () => `${request.method} ${urlOf(request, secrets.current)}`
      const requestLines = log([
        `> ${what()}`,
        ...Redact.headerLines(request.headers, secrets.current).map((line) => `  ${line}`),
        ...requestBodyLines(request.body, secrets.current)
      ])
      // Times count from when the request is handed on, after its lines were written.
      return Effect.zipRight(
        requestLines,
        Effect.flatMap(Clock.currentTimeNanos, (started) => {
          const since = Effect.map(Clock.currentTimeNanos, (now) => millis(started, now))
          const ended = (excerpt: Excerpt, outcome: BodyOutcome) =>
            Effect.flatMap(since, (elapsed) => {
              // The tokens the backend hands out (a resolve, a refresh) are hidden wherever they show again.
              secrets.learn(excerpt.handedOut)
              return log([
                outcome._tag === "End"
                  ? `< body (${excerpt.size} bytes, ended after ${elapsed}): ${excerpt.render(secrets.current)}`
                  : outcome._tag === "Failed"
                  ? `< body failed after ${excerpt.size} bytes and ${elapsed}: ${
                    oneLine(Redact.text(outcome.why, secrets.current))
                  }`
                  : `< body stopped after ${excerpt.size} bytes and ${elapsed} (a limit ran out, or the run was stopped)`
              ])
            })
          return effect.pipe(
            Effect.onExit((exit) =>
              Exit.isSuccess(exit) ? Effect.void : Effect.flatMap(since, (elapsed) =>
                log([
                  Cause.isInterruptedOnly(exit.cause)
                    ? `! ${what()} stopped after ${elapsed} (a limit ran out, or the run was stopped)`
                    : `! ${what()} failed after ${elapsed}: ${
                      oneLine(Redact.text(Cause.pretty(exit.cause).split("\n")[0] ?? "", secrets.current))
                    }`
                ]))
            ),
            Effect.flatMap((response) =>
              Effect.flatMap(since, (elapsed) =>
                log([
                  `< ${response.status} ${what()} (head after ${elapsed})`,
                  ...Redact.headerLines(response.headers, secrets.current).map((line) => `  ${line}`)
                ]).pipe(Effect.as(observed(response, ended))))
            )
          )
        })
      )
    }))
}

/**
 * Decorates the `HttpClient` of `base`: each exchange is logged on stderr (the `Output` service).
 *
 * @since 0.2.0
 * @category layers
 */
export const decorate =
  (secrets: ReadonlyArray<Redacted.Redacted<string>>) =>
  <E, R>(base: Layer.Layer<HttpClient.HttpClient, E, R>): Layer.Layer<HttpClient.HttpClient, E, R | Output> =>
    Layer.effect(
      HttpClient.HttpClient,
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const output = yield* Output
        return wrap(client, { write: output.stderr, secrets })
      })
    ).pipe(Layer.provide(base))
