import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/TestClock"
import { SimulatedTime } from "../src/index.js"

// Fibers that sleep, fork sleepers, tie and chain: the log says who woke when, by the clock in use.
const sleepers = Effect.gen(function*() {
  const log = yield* Ref.make<ReadonlyArray<string>>([])
  const note = (name: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.update(log, (entries) => [...entries, `${name}@${now}`]))
  const sleeper = (name: string, millis: number) => Effect.zipRight(Effect.sleep(millis), note(name))
  const fibers = yield* Effect.all([
    Effect.fork(sleeper("c", 3000)),
    Effect.fork(sleeper("a", 1000)),
    Effect.fork(sleeper("tie-1", 2000)),
    Effect.fork(sleeper("tie-2", 2000)),
    Effect.fork(Effect.zipRight(sleeper("b", 1500), Effect.zipRight(sleeper("b-then", 700), sleeper("b-last", 800)))),
    Effect.fork(Effect.repeatN(sleeper("tick", 1000), 3))
  ])
  yield* Fiber.joinAll(fibers)
  return yield* Ref.get(log)
})

describe("SimulatedTime.play", () => {
  it.effect("wakes sleeps in TestClock.adjust's order, each at its end, and sets the TestClock to the end", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(sleepers)
      yield* TestClock.adjust("4 seconds")
      const byTestClock = yield* Fiber.join(fiber)
      yield* TestClock.setTime(0)
      const played = yield* SimulatedTime.play(sleepers)
      expect(played).toEqual(byTestClock)
      // Equal ends: the sleep started last wakes first, as under TestClock.
      expect(played).toEqual([
        "tick@1000",
        "a@1000",
        "b@1500",
        "tick@2000",
        "tie-2@2000",
        "tie-1@2000",
        "b-then@2200",
        "b-last@3000",
        "tick@3000",
        "c@3000",
        "tick@4000"
      ])
      expect(yield* TestClock.currentTimeMillis).toBe(4000)
    }))

  it.effect("lets every fiber finish what it can do before the clock moves on", () =>
    Effect.gen(function*() {
      const log = yield* Ref.make<ReadonlyArray<string>>([])
      const note = (name: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.update(log, (entries) => [...entries, `${name}@${now}`]))
      // After its wake-up, `busy` yields 5,000 times (past the scheduler's 2,048 promise jobs in a row) and
      // waits for a chain of promises; `next` wakes 1 ms later and must see all of it done.
      const chain = () => Promise.resolve(1).then((n) => n + 1).then((n) => n + 1)
      const busy = Effect.sleep(1000).pipe(
        Effect.zipRight(Effect.repeatN(Effect.yieldNow(), 5000)),
        Effect.zipRight(Effect.promise(chain)),
        Effect.zipRight(note("busy"))
      )
      const next = Effect.zipRight(Effect.sleep(1001), note("next"))
      yield* SimulatedTime.play(Effect.all([busy, next], { concurrency: "unbounded" }))
      expect(yield* Ref.get(log)).toEqual(["busy@1000", "next@1001"])
    }))

  it.effect("returns the effect's value or failure; a sleep that lost a race wakes nobody and moves no clock", () =>
    Effect.gen(function*() {
      expect(yield* SimulatedTime.play(Effect.as(Effect.sleep("905 seconds"), "done"))).toBe("done")
      expect(yield* TestClock.currentTimeMillis).toBe(905_000)
      yield* TestClock.setTime(0)
      const winner = yield* SimulatedTime.play(Effect.race(Effect.as(Effect.sleep(1000), "short"), Effect.never))
      expect(winner).toBe("short")
      const timedOut = yield* SimulatedTime.play(
        Effect.timeout(Effect.sleep(1000), "100 seconds").pipe(Effect.zipRight(Clock.currentTimeMillis))
      )
      // The timeout's own 100 s sleep was interrupted: the clock stopped where the effect ended.
      expect(timedOut).toBe(2000)
      expect(yield* TestClock.currentTimeMillis).toBe(2000)
      expect(yield* Effect.flip(SimulatedTime.play(Effect.zipRight(Effect.sleep(5000), Effect.fail("late"))))).toBe(
        "late"
      )
      expect(yield* TestClock.currentTimeMillis).toBe(7000)
    }))

  it.effect("awaits what the effect waits for outside the clock, then plays its next sleeps", () =>
    Effect.gen(function*() {
      const outside = yield* Deferred.make<string>()
      const played = yield* Effect.fork(SimulatedTime.play(
        Deferred.await(outside).pipe(Effect.zipRight(Effect.sleep(1500)), Effect.zipRight(Clock.currentTimeMillis))
      ))
      yield* Effect.repeatN(Effect.yieldNow(), 50)
      expect(yield* Fiber.poll(played)).toEqual(expect.objectContaining({ _tag: "None" }))
      yield* Deferred.succeed(outside, "ready")
      expect(yield* Fiber.join(played)).toBe(1500)
    }))

  it.effect("plays 3,600 wake-ups (an hour of one-second ticks)", () =>
    Effect.gen(function*() {
      const ticks = yield* SimulatedTime.play(
        Effect.repeat(Effect.zipRight(Effect.sleep(1000), Clock.currentTimeMillis), {
          until: (now) => now >= 3_600_000
        })
      )
      expect(ticks).toBe(3_600_000)
      expect(yield* TestClock.currentTimeMillis).toBe(3_600_000)
    }))
})
