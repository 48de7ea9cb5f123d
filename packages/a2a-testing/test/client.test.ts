import { describe, expect, it } from "@effect/vitest"
import { A2AClient, A2AProtocol } from "@mainsequence/a2a"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { SimulatedA2AClient } from "../src/client.js"
import { SimulatedPlatform } from "../src/index.js"

const src = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src")

describe("SimulatedPlatform.make", () => {
  it.effect("platform options are checked as scenarios are: a misspelt, invalid or repeated one is refused", () =>
    Effect.gen(function*() {
      const issues: Array<string> = []
      const platforms: ReadonlyArray<SimulatedPlatform.Options> = [
        // @ts-expect-error a misspelt option, as JavaScript or parsed JSON could give it
        { messageLimitSecond: 5 },
        ...[0, -1, Number.NaN, Number.POSITIVE_INFINITY].map((messageLimitSeconds) => ({ messageLimitSeconds })),
        { baseUrl: "platform.example" },
        { sessions: [SimulatedA2AClient.session({}), SimulatedA2AClient.session({ agent: { workMs: 5 } })] }
      ]
      for (const platform of platforms) {
        issues.push((yield* Effect.flip(SimulatedPlatform.make(platform))).issue)
      }
      expect(issues).toEqual([
        expect.stringMatching(/^the platform's option messageLimitSecond: is unexpected, expected: "baseUrl"/),
        "the platform's option messageLimitSeconds: Expected a positive number, actual 0",
        "the platform's option messageLimitSeconds: Expected a positive number, actual -1",
        "the platform's option messageLimitSeconds: Expected a finite number, actual NaN",
        "the platform's option messageLimitSeconds: Expected a finite number, actual Infinity",
        "the platform's option baseUrl: an http(s) URL",
        `two sessions have the uid ${SimulatedA2AClient.sessionUid}; give each session once`
      ])
    }))
})

describe("SimulatedA2AClient (./client)", () => {
  it.effect("the SDK client on a simulated platform with the default uids, in one call", () =>
    Effect.gen(function*() {
      const client = yield* A2AClient.A2AClient
      const fiber = yield* Effect.fork(client.sendA2AMessage(SimulatedA2AClient.sessionUid, { message: "hi" }))
      yield* TestClock.adjust("3 seconds")
      expect(A2AProtocol.textOf(yield* Fiber.join(fiber))).toEqual(["You said: hi"])
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      const scenario = yield* platform.session(SimulatedA2AClient.sessionUid)
      expect(scenario).toMatchObject({
        agentUid: SimulatedA2AClient.agentUid,
        serviceUid: SimulatedA2AClient.serviceUid
      })
      expect((yield* platform.counters).sends).toEqual({ [SimulatedA2AClient.sessionUid]: 1 })
    }).pipe(Effect.provide(SimulatedA2AClient.layer({
      access: { _tag: "ColdStart", phases: [{ state: "waking", retryAfterMs: 500, durationMs: 2000 }] }
    }))))

  it.effect("platform options and client options pass through; the scenario may name its own uids", () =>
    Effect.gen(function*() {
      const client = yield* A2AClient.A2AClient
      const uid = "3f0a9b8c-7d6e-4f5a-8b4c-3d2e1f0a9b8c"
      const fiber = yield* Effect.fork(Effect.flip(client.sendA2AMessage(uid, { message: "think" })))
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "A2AMessageLimitExceededError", limitSeconds: 5 })
      const platform = yield* SimulatedPlatform.SimulatedPlatform
      expect(platform.baseUrl).toBe("https://other.sim.mainsequence.test")
    }).pipe(Effect.provide(SimulatedA2AClient.layer(
      { sessionUid: "3f0a9b8c-7d6e-4f5a-8b4c-3d2e1f0a9b8c", agent: { workMs: 60_000 } },
      { platform: { baseUrl: "https://other.sim.mainsequence.test/", messageLimitSeconds: 5 } }
    ))))

  it("only the ./client entry point's module imports the SDK", () => {
    const files = (dir: string): ReadonlyArray<string> =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]
      )
    const importers = files(src).filter((file) => /from "@mainsequence\/a2a[/"]/.test(readFileSync(file, "utf8")))
    expect(importers.map((file) => path.relative(src, file))).toEqual(["SimulatedA2AClient.ts"])
  })
})
