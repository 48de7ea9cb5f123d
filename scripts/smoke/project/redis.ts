// (5) The installed @mainsequence/a2a-redis loads and runs with no Redis anywhere: without a key it refuses to
// start; with one, a Redis that does not answer is a miss, not a failure.
import { RuntimeAccessCache } from "@mainsequence/a2a"
import { RedisRuntimeAccessStore } from "@mainsequence/a2a-redis"
import { Console, Effect, Option, Redacted } from "effect"

const url = "redis://127.0.0.1:9" // the discard port: nothing answers Redis there

const program = Effect.gen(function*() {
  const refused = yield* Effect.flip(RedisRuntimeAccessStore.make({ url }))
  if (refused._tag !== "RedisStoreOptionsError") return yield* Effect.dieMessage(`unexpected: ${refused._tag}`)
  const store = yield* RedisRuntimeAccessStore.make({
    url,
    encryptionKeys: [{ id: "smoke", key: Redacted.make(Buffer.alloc(32, 5).toString("base64")) }],
    operationTimeout: "200 millis"
  })
  const cache = yield* RuntimeAccessCache.make(store)
  const read = yield* cache.get("any")
  if (Option.isSome(read)) return yield* Effect.dieMessage("a read without Redis found an entry")
  yield* Console.log(`redis store: ok (${refused._tag} without a key; a miss without Redis)`)
})

Effect.runPromise(Effect.scoped(program)).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
