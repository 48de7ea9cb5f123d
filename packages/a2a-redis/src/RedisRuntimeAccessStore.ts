/**
 * A Redis `RuntimeAccessStore`: the processes of a fleet share each session's runtime access, so a session is
 * resolved once per token lifetime for the whole fleet rather than once per process.
 *
 * - Each entry expires in Redis with its access (`SET … PX`, the time left until the access's `validUntilMillis`,
 *   which the SDK's cache computes), and is written and replaced atomically.
 * - Each entry is encrypted (AES-256-GCM through WebCrypto) with the first of the keys, bound to its Redis key;
 *   the other keys still decrypt the entries written with them (rotation). Clear entries only on request.
 * - Redis never fails a send: every command is bounded by `operationTimeout` (default 250 ms); a failing,
 *   slow or refusing Redis, or an entry that does not decrypt or parse, is a miss and a skipped write. An outage
 *   is logged once (a warning, with no secret in it) and every failure counted in the
 *   `a2a.client.cache.store_errors` counter (attribute `error.type`).
 *
 * @since 0.1.0
 */
import { RuntimeAccessCache } from "@mainsequence/a2a"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import * as EntryCodec from "./internal/entryCodec.js"

/**
 * An AES-256 key (32 bytes, base64: `openssl rand -base64 32`) and the id written into each entry it
 * encrypts (1-64 letters, digits, `_` or `-`).
 *
 * @since 0.1.0
 * @category models
 */
export interface EncryptionKey {
  readonly id: string
  readonly key: Redacted.Redacted<string>
}

/**
 * Where Redis is: a URL (`redis://[:password@]host:port[/db]`, `rediss://` for TLS; the store opens the
 * connection and closes it with its scope) or an ioredis client of the program's (used as it is, not closed).
 *
 * @since 0.1.0
 * @category models
 */
export type Connection =
  | { readonly url: Redacted.Redacted<string> | string; readonly client?: undefined }
  | { readonly client: Redis; readonly url?: undefined }

/**
 * @since 0.1.0
 * @category models
 */
export type Options = Connection & {
  /** Prepended to every key; default {@link defaultKeyPrefix}. */
  readonly keyPrefix?: string | undefined
  /**
   * The first key encrypts new entries; every key decrypts the entries written with its id. Required unless
   * `clearEntries` is `true`.
   */
  readonly encryptionKeys?: ReadonlyArray<EncryptionKey> | undefined
  /**
   * Store the runtime tokens in clear (no encryption keys): whoever can read the Redis can call the runtimes
   * until the tokens expire, and whoever can write it can send the fleet's messages to a server of their own.
   */
  readonly clearEntries?: boolean | undefined
  /**
   * The most each Redis command may take before it counts as a miss or a skipped write; default 250 ms, above 0
   * and at most 2^31 - 1 ms less a second (Node's timers).
   */
  readonly operationTimeout?: Duration.DurationInput | undefined
}

/**
 * The default key prefix.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultKeyPrefix = "mainsequence:a2a:runtime-access:"

/**
 * The default bound of one Redis command.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultOperationTimeout: Duration.Duration = Duration.millis(250)

/**
 * The largest value the store writes or reads, in bytes (1 MiB, the CLI's cache file's bound; an entry takes a
 * few KiB). Of a larger value, written by something else, no more is read: it is a miss.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxEntryBytes = 1024 * 1024

/**
 * The options are unusable (no encryption key and no explicit `clearEntries`, a key that is not 32 bytes, …).
 * The message never holds a key or a URL.
 *
 * @since 0.1.0
 * @category errors
 */
export class RedisStoreOptionsError extends Schema.TaggedError<RedisStoreOptionsError>()("RedisStoreOptionsError", {
  reason: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Redis runtime-access store: ${this.reason}`
  }
}

/**
 * The counter of the store's failures (`error.type`: `timeout`, `connection`, the Redis reply's code in lower
 * case such as `noauth`, `wrongpass`, `readonly` or `oom`, or `invalid_entry` for a key of another Redis type or
 * a value that does not decrypt or parse, or is larger than {@link maxEntryBytes}).
 *
 * @since 0.1.0
 * @category metrics
 */
export const storeErrors: Metric.Metric.Counter<number> = Metric.counter("a2a.client.cache.store_errors", {
  description: "Operations of the shared runtime-access store that failed (read as a miss, write skipped)",
  incremental: true
})

/** The Redis reply codes reported by name; any other reply error is `reply_error`. */
const replyCodes = new Set(["NOAUTH", "WRONGPASS", "READONLY", "OOM", "LOADING", "MISCONF", "NOPERM", "BUSY"])

const invalidEntryType = "invalid_entry"

const replyErrorType = (error: unknown): string | undefined => {
  if (!(error instanceof Error) || error.name !== "ReplyError") return undefined
  const code = error.message.split(" ", 1)[0] ?? ""
  // a key of another Redis type under the store's prefix: the entry is unusable, Redis is fine
  if (code === "WRONGTYPE") return invalidEntryType
  return replyCodes.has(code) ? code.toLowerCase() : "reply_error"
}

// `connectionError`: the last error of the connection the store opened (a refused password, say).
const errorTypeOf = (failure: Cause.UnknownException | Cause.TimeoutException, connectionError: unknown): string => {
  if (Cause.isTimeoutException(failure)) return "timeout"
  const error = failure.error
  // ioredis' own `commandTimeout` (the connections the store opens), a little after the store's limit
  if (error instanceof Error && error.message === "Command timed out") return "timeout"
  return replyErrorType(error) ?? replyErrorType(connectionError) ?? "connection"
}

const makeClient = (url: Redacted.Redacted<string> | string, timeoutMillis: number): Redis => {
  const client = new Redis(Redacted.isRedacted(url) ? Redacted.value(url) : url, {
    lazyConnect: true,
    // offline, a command fails at once instead of waiting in a queue for the connection
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: timeoutMillis + 50,
    connectTimeout: Math.max(timeoutMillis, 1_000),
    retryStrategy: (times) => Math.min(100 * times, 2_000)
  })
  return client
}

interface Connected {
  readonly client: Redis
  /** The last error of a connection the store opened, until it is ready again. */
  readonly connectionError: () => unknown
}

const acquireClient = (
  options: Options,
  timeout: Duration.Duration
): Effect.Effect<Connected, never, Scope.Scope> => {
  if (options.client !== undefined) return Effect.succeed({ client: options.client, connectionError: () => undefined })
  const url = options.url
  return Effect.acquireRelease(
    Effect.sync(() => {
      const client = makeClient(url, Duration.toMillis(timeout))
      let connectionError: unknown = undefined
      // the failures are reported by the operations (once per outage), not printed by ioredis
      client.on("error", (error) => connectionError = error)
      client.on("ready", () => connectionError = undefined)
      return { client, connectionError: () => connectionError }
    }).pipe(
      // a Redis that is down when the program starts is an outage like any other: the layer still starts
      Effect.tap(({ client }) => Effect.ignore(Effect.timeout(Effect.tryPromise(() => client.connect()), timeout)))
    ),
    ({ client }) =>
      Effect.tryPromise(() => client.quit()).pipe(
        Effect.timeout(timeout),
        Effect.ignore,
        Effect.ensuring(Effect.sync(() => client.disconnect()))
      )
  )
}

// Decoded only for its fields: a misspelt one (`keyprefix`) would leave its option at the default in silence.
const OptionFields = Schema.Struct(
  {
    url: Schema.optional(Schema.Unknown),
    client: Schema.optional(Schema.Unknown),
    keyPrefix: Schema.optional(Schema.Unknown),
    encryptionKeys: Schema.optional(Schema.Unknown),
    clearEntries: Schema.optional(Schema.Unknown),
    operationTimeout: Schema.optional(Schema.Unknown)
  } satisfies Record<keyof Options, Schema.optional<typeof Schema.Unknown>>
)

const knownFields = (options: Options): Effect.Effect<void, RedisStoreOptionsError> =>
  Schema.decodeUnknown(OptionFields, { onExcessProperty: "error" })(options).pipe(
    Effect.mapError((error) => {
      const [unexpected] = ParseResult.ArrayFormatter.formatErrorSync(error)
      const field = unexpected?.path[0]
      return new RedisStoreOptionsError({
        reason: `unknown option ${typeof field === "string" ? JSON.stringify(field) : "given"} (the options are ${
          Object.keys(OptionFields.fields).join(", ")
        })`
      })
    }),
    Effect.asVoid
  )

// Node's timers hold at most 2^31 - 1 ms; ioredis' command timeout is a little longer than the store's.
const maxOperationTimeoutMillis = 2 ** 31 - 1 - 1_000

const operationTimeoutOf = (options: Options): Effect.Effect<Duration.Duration, RedisStoreOptionsError> =>
  Option.match(
    Option.filter(
      Duration.decodeUnknown(options.operationTimeout ?? defaultOperationTimeout),
      (timeout) => Duration.toMillis(timeout) > 0 && Duration.toMillis(timeout) <= maxOperationTimeoutMillis
    ),
    {
      onSome: Effect.succeed,
      onNone: () =>
        Effect.fail(
          new RedisStoreOptionsError({
            reason: `operationTimeout must be a duration above 0 and at most ${maxOperationTimeoutMillis} ms`
          })
        )
    }
  )

const codecOf = (options: Options): Effect.Effect<EntryCodec.EntryCodec, RedisStoreOptionsError> => {
  const keys = options.encryptionKeys ?? []
  const [first, ...rest] = keys
  if (first === undefined) {
    return options.clearEntries === true ? Effect.succeed(EntryCodec.clear) : Effect.fail(
      new RedisStoreOptionsError({
        reason: "no encryption key; give `encryptionKeys`, or `clearEntries: true` to store the tokens in clear"
      })
    )
  }
  return Effect.mapError(EntryCodec.encrypted([first, ...rest]), (reason) => new RedisStoreOptionsError({ reason }))
}

/**
 * The store over Redis, its connection a resource of the scope (unless a client was given). Fails only on
 * unusable options; an unreachable Redis is an outage (misses) until it answers.
 *
 * @example
 * import { RedisRuntimeAccessStore } from "@mainsequence/a2a-redis"
 * import { RuntimeAccessCache } from "@mainsequence/a2a"
 * import * as Effect from "effect/Effect"
 * import * as Redacted from "effect/Redacted"
 *
 * // the cache over the Redis store, for as long as the scope lasts
 * export const cache = Effect.flatMap(
 *   RedisRuntimeAccessStore.make({
 *     url: Redacted.make("redis://127.0.0.1:6379"),
 *     encryptionKeys: [{ id: "2026-12", key: Redacted.make("base64 of 32 random bytes") }]
 *   }),
 *   RuntimeAccessCache.make
 * )
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<RuntimeAccessCache.RuntimeAccessStore, RedisStoreOptionsError, Scope.Scope> =>
  Effect.gen(function*() {
    yield* knownFields(options)
    const codec = yield* codecOf(options)
    const prefix = options.keyPrefix ?? defaultKeyPrefix
    const timeout = yield* operationTimeoutOf(options)
    const { client, connectionError } = yield* acquireClient(options, timeout)
    let inOutage = false
    const failed = (failure: Cause.UnknownException | Cause.TimeoutException) =>
      Effect.suspend(() => {
        const errorType = errorTypeOf(failure, connectionError())
        const counted = Metric.increment(Metric.tagged(storeErrors, "error.type", errorType))
        if (inOutage || errorType === invalidEntryType) return counted
        inOutage = true
        return Effect.zipRight(
          counted,
          Effect.logWarning(
            `Redis runtime-access store unavailable (${errorType}): reads are misses and writes are skipped until it answers`
          )
        )
      })
    const answered = Effect.suspend(() => {
      if (!inOutage) return Effect.void
      inOutage = false
      return Effect.logInfo("Redis runtime-access store answers again")
    })
    /** One command, bounded; its failure reported and turned into `None`. */
    const command = <A>(run: () => Promise<A>): Effect.Effect<Option.Option<A>> =>
      Effect.tryPromise(run).pipe(
        Effect.timeout(timeout),
        Effect.matchEffect({
          onFailure: (failure) => Effect.as(failed(failure), Option.none()),
          onSuccess: (value) => Effect.as(answered, Option.some(value))
        })
      )
    const invalidEntry = Metric.increment(Metric.tagged(storeErrors, "error.type", invalidEntryType))
    return {
      get: (key) =>
        // One byte past the bound is read, to tell a value larger than the bound; an absent key reads as empty.
        Effect.flatMap(command<unknown>(() => client.getrangeBuffer(prefix + key, 0, maxEntryBytes)), (raw) => {
          if (Option.isNone(raw) || raw.value === null) return Effect.succeedNone
          // A server that only speaks Redis may answer another type.
          if (!Buffer.isBuffer(raw.value)) return Effect.as(invalidEntry, Option.none())
          if (raw.value.byteLength === 0) return Effect.succeedNone
          if (raw.value.byteLength > maxEntryBytes) return Effect.as(invalidEntry, Option.none())
          return Effect.tap(
            codec.decode(prefix + key, raw.value.toString("utf8")),
            (access) => Option.isNone(access) ? invalidEntry : Effect.void
          )
        }),
      set: (key, access) =>
        Effect.flatMap(Effect.clockWith((clock) => clock.currentTimeMillis), (now) => {
          const ttl = Math.floor(access.validUntilMillis - now)
          if (ttl <= 0) return Effect.void
          return Effect.flatMap(
            codec.encode(prefix + key, access),
            Option.match({
              onNone: () => Effect.void,
              onSome: (value) =>
                Buffer.byteLength(value) > maxEntryBytes
                  ? Effect.void
                  : Effect.asVoid(command(() => client.set(prefix + key, value, "PX", ttl)))
            })
          )
        }),
      remove: (key) => Effect.asVoid(command(() => client.del(prefix + key)))
    }
  })

/**
 * The SDK's `RuntimeAccessCache` over Redis ({@link make}).
 *
 * @example
 * import { RedisRuntimeAccessStore } from "@mainsequence/a2a-redis"
 * import * as Redacted from "effect/Redacted"
 *
 * // provide it beside the client layer (A2AClient.layer + A2ANode.layerHttpClient)
 * export const CacheLive = RedisRuntimeAccessStore.layer({
 *   url: Redacted.make("redis://:a-password@redis.internal:6379"),
 *   keyPrefix: "orders-service:a2a:",
 *   encryptionKeys: [
 *     { id: "2026-12", key: Redacted.make("base64 of 32 random bytes") }, // writes
 *     { id: "2026-11", key: Redacted.make("base64 of the previous key") } // still read
 *   ],
 *   operationTimeout: "300 millis"
 * })
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<RuntimeAccessCache.RuntimeAccessCache, RedisStoreOptionsError> =>
  Layer.scoped(RuntimeAccessCache.RuntimeAccessCache, Effect.flatMap(make(options), RuntimeAccessCache.make))

/**
 * `MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS`: `id:base64key` pairs separated by commas, the writing key first.
 */
const encryptionKeysConfig: Config.Config<ReadonlyArray<EncryptionKey>> = Config.redacted(
  "MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS"
).pipe(
  Config.mapOrFail((keys) => {
    const pairs = Redacted.value(keys).split(",").map((pair) => pair.trim()).filter((pair) => pair !== "")
    const parsed = pairs.map((pair) => {
      const colon = pair.indexOf(":")
      return colon === -1 ? undefined : { id: pair.slice(0, colon), key: Redacted.make(pair.slice(colon + 1)) }
    })
    return parsed.every((k) => k !== undefined) && parsed.length > 0
      ? Either.right(parsed)
      : Either.left(
        // never the value
        ConfigError.InvalidData([], "expected `id:base64key` pairs separated by commas, the writing key first")
      )
  }),
  Config.withDefault([])
)

/**
 * The options from the environment: `MAINSEQUENCE_A2A_REDIS_URL` (required, redacted),
 * `MAINSEQUENCE_A2A_REDIS_KEY_PREFIX`, `MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS` (redacted: `id:base64key` pairs
 * separated by commas, the writing key first), `MAINSEQUENCE_A2A_REDIS_CLEAR_ENTRIES` (default `false`) and
 * `MAINSEQUENCE_A2A_REDIS_TIMEOUT` (a duration such as `300 millis`; default 250 ms).
 *
 * @since 0.1.0
 * @category config
 */
export const config: Config.Config<Options> = Config.all({
  url: Config.redacted("MAINSEQUENCE_A2A_REDIS_URL"),
  keyPrefix: Config.withDefault(Config.string("MAINSEQUENCE_A2A_REDIS_KEY_PREFIX"), defaultKeyPrefix),
  encryptionKeys: encryptionKeysConfig,
  clearEntries: Config.withDefault(Config.boolean("MAINSEQUENCE_A2A_REDIS_CLEAR_ENTRIES"), false),
  operationTimeout: Config.withDefault(Config.duration("MAINSEQUENCE_A2A_REDIS_TIMEOUT"), defaultOperationTimeout)
})

/**
 * {@link layer} with the options from `Config` (default {@link config}: the environment).
 *
 * @example
 * import { RedisRuntimeAccessStore } from "@mainsequence/a2a-redis"
 *
 * // MAINSEQUENCE_A2A_REDIS_URL=redis://redis.internal:6379
 * // MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS=2026-12:<base64 of 32 bytes>,2026-11:<the previous key>
 * export const CacheLive = RedisRuntimeAccessStore.layerConfig()
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Config.Config<Options> = config
): Layer.Layer<RuntimeAccessCache.RuntimeAccessCache, RedisStoreOptionsError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(options, layer))
