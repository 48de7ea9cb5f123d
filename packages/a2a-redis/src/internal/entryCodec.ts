/**
 * How one runtime access is written as a Redis value, and read back.
 *
 * - Encrypted (`msa1.<key id>.<iv>.<ciphertext>`, base64url): AES-256-GCM through WebCrypto over the JSON of the
 *   access; the associated data is the entry's Redis key, so an entry copied under another key does not decrypt.
 *   The first key encrypts; every key decrypts the entries written with its id (rotation).
 * - Clear (`clear.<JSON>`), only when the user opted in: the token in clear.
 *
 * A value of the other kind, of an unknown key id, tampered with or not parsing is `None` (a miss).
 */
import { RuntimeAccessCache } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/** An AES-256 key with the id written into each entry it encrypts. */
export interface EntryKey {
  readonly id: string
  readonly key: Redacted.Redacted<string>
}

export interface EntryCodec {
  /** The value to store; `None` if it cannot be made (the write is skipped). */
  readonly encode: (
    redisKey: string,
    access: RuntimeAccessCache.CachedRuntimeAccess
  ) => Effect.Effect<Option.Option<string>>
  readonly decode: (
    redisKey: string,
    raw: string
  ) => Effect.Effect<Option.Option<RuntimeAccessCache.CachedRuntimeAccess>>
}

const Payload = Schema.parseJson(Schema.Struct({
  rpcUrl: RuntimeAccessCache.StoredRpcUrl,
  token: Schema.Redacted(RuntimeAccessCache.StoredToken),
  validUntilMillis: Schema.Finite,
  serviceUid: Schema.optional(Schema.String)
}))
const encodePayload = Schema.encodeSync(Payload)
const decodePayload = Schema.decodeUnknownOption(Payload)

const payloadOf = (access: RuntimeAccessCache.CachedRuntimeAccess): string =>
  encodePayload({
    rpcUrl: access.rpcUrl,
    token: access.token,
    validUntilMillis: access.validUntilMillis,
    // an undefined serviceUid is left out of the JSON (JSON.stringify drops it)
    serviceUid: access.serviceUid
  })

const accessOf = (text: string): Option.Option<RuntimeAccessCache.CachedRuntimeAccess> =>
  Option.map(decodePayload(text), ({ rpcUrl, serviceUid, token, validUntilMillis }) => ({
    rpcUrl,
    token,
    validUntilMillis,
    serviceUid
  }))

const clearPrefix = "clear."
const encryptedPrefix = "msa1."

/** The codec of clear entries: the token is in the value as it is. */
export const clear: EntryCodec = {
  encode: (_redisKey, access) => Effect.sync(() => Option.some(clearPrefix + payloadOf(access))),
  decode: (_redisKey, raw) =>
    Effect.sync(() => raw.startsWith(clearPrefix) ? accessOf(raw.slice(clearPrefix.length)) : Option.none())
}

/** A key id: what may sit between the dots of an entry. */
export const keyIdPattern = /^[A-Za-z0-9_-]{1,64}$/

/** Why a key cannot be used (never its value). */
export type KeyProblem = string

type CryptoKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>

const textEncoder = new TextEncoder()
const textDecoder = new TextDecoder()
const associatedData = (redisKey: string) => textEncoder.encode(`@mainsequence/a2a-redis/1 ${redisKey}`)

// A key is named by its place in the list, never by its id: an id and a key given the wrong way round would
// put the key in the message.
const importKey = (entry: EntryKey, index: number): Effect.Effect<CryptoKey, KeyProblem> => {
  const named = `encryption key ${index + 1}`
  if (!keyIdPattern.test(entry.id)) {
    return Effect.fail(`the id of ${named} is not 1-64 letters, digits, "_" or "-"`)
  }
  const bytes = Encoding.decodeBase64(Redacted.value(entry.key).trim())
  if (Either.isLeft(bytes) || bytes.right.length !== 32) {
    return Effect.fail(`${named} is not 32 bytes in base64 (e.g. \`openssl rand -base64 32\`)`)
  }
  return Effect.tryPromise({
    try: () =>
      globalThis.crypto.subtle.importKey("raw", Uint8Array.from(bytes.right), "AES-GCM", false, ["encrypt", "decrypt"]),
    catch: () => `${named} was refused by WebCrypto`
  })
}

/** The codec of encrypted entries: `keys[0]` encrypts, every key decrypts. */
export const encrypted = (
  keys: readonly [EntryKey, ...Array<EntryKey>]
): Effect.Effect<EntryCodec, KeyProblem> =>
  Effect.gen(function*() {
    const ids = new Set(keys.map((k) => k.id))
    if (ids.size !== keys.length) return yield* Effect.fail("two encryption keys have the same id")
    const writerId = keys[0].id
    const writer = yield* importKey(keys[0], 0)
    const imported = new Map<string, CryptoKey>([[writerId, writer]])
    for (const [index, key] of keys.entries()) {
      if (index > 0) imported.set(key.id, yield* importKey(key, index))
    }
    return {
      encode: (redisKey, access) =>
        Effect.option(Effect.tryPromise(async () => {
          const iv = globalThis.crypto.getRandomValues(new Uint8Array(12))
          const sealed = await globalThis.crypto.subtle.encrypt(
            { name: "AES-GCM", iv, additionalData: associatedData(redisKey) },
            writer,
            textEncoder.encode(payloadOf(access))
          )
          return `${encryptedPrefix}${writerId}.${Encoding.encodeBase64Url(iv)}.${
            Encoding.encodeBase64Url(new Uint8Array(sealed))
          }`
        })),
      decode: (redisKey, raw) => {
        const parts = raw.startsWith(encryptedPrefix) ? raw.slice(encryptedPrefix.length).split(".") : []
        const [id = "", ivText = "", sealedText = ""] = parts
        const key = imported.get(id)
        const iv = Encoding.decodeBase64Url(ivText)
        const sealed = Encoding.decodeBase64Url(sealedText)
        if (parts.length !== 3 || key === undefined || Either.isLeft(iv) || Either.isLeft(sealed)) {
          return Effect.succeedNone
        }
        return Effect.tryPromise(() =>
          globalThis.crypto.subtle.decrypt(
            { name: "AES-GCM", iv: Uint8Array.from(iv.right), additionalData: associatedData(redisKey) },
            key,
            Uint8Array.from(sealed.right)
          )
        ).pipe(
          Effect.map((plain) => accessOf(textDecoder.decode(plain))),
          Effect.orElseSucceed(() => Option.none())
        )
      }
    }
  })
