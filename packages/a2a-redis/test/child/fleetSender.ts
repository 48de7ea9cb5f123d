/**
 * One process of a fleet: sends one message to each session named on the command line, through its own client
 * and the Redis store at `A2A_REDIS_URL` (encryption key `A2A_REDIS_KEY`), and prints one JSON line of results.
 */
import { A2AClient } from "@mainsequence/a2a"
import { demoUserAccessToken } from "@mainsequence/a2a-testing/node"
import * as A2ANode from "@mainsequence/a2a/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { RedisRuntimeAccessStore } from "../../src/index.js"

const backendUrl = process.env["A2A_BACKEND_URL"] ?? ""
const redisUrl = Redacted.make(process.env["A2A_REDIS_URL"] ?? "")
const key = Redacted.make(process.env["A2A_REDIS_KEY"] ?? "")

const layer = A2AClient.layer({ backendUrl, accessToken: demoUserAccessToken }).pipe(
  Layer.provide(A2ANode.layerHttpClient({ proxy: "none" })),
  Layer.provide(RedisRuntimeAccessStore.layer({ url: redisUrl, encryptionKeys: [{ id: "fleet", key }] }))
)

const program = Effect.flatMap(
  A2AClient.A2AClient,
  (client) =>
    Effect.forEach(
      process.argv.slice(2),
      (session) =>
        client.sendA2AMessage(session, { message: "hello from the fleet", timeout: 10 }).pipe(
          Effect.match({
            onFailure: (error) => `failed: ${error._tag}`,
            onSuccess: () => "answered"
          })
        )
    )
)

Effect.runPromise(Effect.provide(program, layer)).then(
  (results) => process.stdout.write(JSON.stringify({ results }) + "\n"),
  (error: unknown) => {
    process.stdout.write(JSON.stringify({ defect: String(error) }) + "\n")
    process.exitCode = 1
  }
)
