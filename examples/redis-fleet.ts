/**
 * One process of a fleet: send a message through a client whose runtime-access cache is the Redis store, so
 * every process of the fleet reuses the access one of them resolved (encrypted in Redis, expiring with it).
 *
 *   redis-server --port 6379 --save '' --appendonly no &
 *   mainsequence dev platform     # or your real platform: export MAINSEQUENCE_ENDPOINT / MAINSEQUENCE_ACCESS_TOKEN
 *   export MAINSEQUENCE_A2A_REDIS_URL=redis://127.0.0.1:6379
 *   export MAINSEQUENCE_A2A_REDIS_ENCRYPTION_KEYS="k1:$(openssl rand -base64 32)"  # the same in every process
 *   node examples/dist/redis-fleet.js <agent-session-uid> "What can you do?"   # run it twice: one resolve
 */
import { NodeRuntime } from "@effect/platform-node"
import { A2AClient, A2AProtocol } from "@mainsequence/a2a"
import { RedisRuntimeAccessStore } from "@mainsequence/a2a-redis"
import * as A2ANode from "@mainsequence/a2a/node"
import { Console, Effect, Layer } from "effect"

const [agentSessionUid = "", message = "What can you do?"] = process.argv.slice(2)

// the client (options from MAINSEQUENCE_ENDPOINT / MAINSEQUENCE_ACCESS_TOKEN) over the Redis-backed cache
const ClientLive = A2AClient.layerConfig().pipe(
  Layer.provide(Layer.merge(A2ANode.layerHttpClient(), RedisRuntimeAccessStore.layerConfig()))
)

const program = Effect.gen(function*() {
  const client = yield* A2AClient.A2AClient
  const answer = yield* client.sendA2AMessage(agentSessionUid, { message })
  yield* Console.log(A2AProtocol.textOf(answer).join("\n"))
})

program.pipe(Effect.provide(ClientLive), NodeRuntime.runMain)
