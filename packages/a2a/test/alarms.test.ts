import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { type Alarm, Alarms, longestSleepMillis, makeAlarmsByClock } from "../src/internal/alarms.js"

// The client's alarms (alarms.ts): one queue and one sleeping fiber per Clock for every call's deadline.
// Each alarm must ring at its own time, in time order, however alarms are set, moved and cleared.

/** Alarms on the test's clock, and what rang when (Clock millis). */
const onTestClock = (longestSleep = Number.POSITIVE_INFINITY) =>
  Effect.map(Clock.clockWith(Effect.succeed), (clock) => {
    const sleepers = new Set<Fiber.RuntimeFiber<void>>()
    const alarms = new Alarms(clock, sleepers, longestSleep)
    const rang: Array<[string, number]> = []
    const named = (name: string, ring?: (now: number) => void): Alarm => ({
      at: 0,
      slot: -1,
      ring: (now) => {
        rang.push([name, now])
        ring?.(now)
      }
    })
    return { alarms, sleepers, rang, named }
  })

describe("the client's alarms", () => {
  it.effect("alarms set in any order ring at their own times, earliest first; cleared ones never", () =>
    Effect.gen(function*() {
      const { alarms, named, rang } = yield* onTestClock()
      // 0..39 (seconds) in a fixed shuffled order (17 and 40 are coprime): set, reordered, emptied out of order
      const times = Array.from({ length: 40 }, (_, i) => (i * 17) % 40)
      const set = times.map((second) => ({ second, alarm: named(`a${second}`) }))
      for (const { alarm, second } of set) yield* alarms.set(alarm, (second + 1) * 1000)
      expect(alarms.size).toBe(40)
      const cleared = new Set([3, 38, 0, 20, 21, 39, 12])
      for (const { alarm, second } of set) if (cleared.has(second)) alarms.clear(alarm)
      // clearing one twice, or one never set, changes nothing
      const extra = named("extra")
      yield* alarms.set(extra, 18_500)
      alarms.clear(extra)
      alarms.clear(extra)
      alarms.clear(named("never"))
      expect(alarms.size).toBe(33)
      yield* TestClock.adjust("1 minute")
      const expected = Array.from({ length: 40 }, (_, second) => second)
        .filter((second) => !cleared.has(second))
        .map((second) => [`a${second}`, (second + 1) * 1000])
      expect(rang).toEqual(expected)
      expect(alarms.size).toBe(0)
    }))

  it.effect("the alarm cleared from the queue's last place is gone; the others ring", () =>
    Effect.gen(function*() {
      const { alarms, named, rang } = yield* onTestClock()
      const first = named("first")
      const last = named("last")
      yield* alarms.set(first, 1_000)
      yield* alarms.set(last, 2_000)
      alarms.clear(last)
      expect(alarms.size).toBe(1)
      alarms.clear(first)
      expect(alarms.size).toBe(0)
      yield* alarms.set(first, 3_000)
      yield* TestClock.adjust("10 seconds")
      expect(rang).toEqual([["first", 3_000]])
    }))

  it.effect("an alarm moved earlier or later rings at its new time only", () =>
    Effect.gen(function*() {
      const { alarms, named, rang } = yield* onTestClock()
      const a = named("a")
      const b = named("b")
      const c = named("c")
      yield* alarms.set(a, 10_000)
      yield* alarms.set(b, 20_000)
      yield* alarms.set(c, 30_000)
      yield* alarms.set(c, 5_000)
      yield* alarms.set(a, 25_000)
      yield* TestClock.adjust("40 seconds")
      expect(rang).toEqual([["c", 5_000], ["b", 20_000], ["a", 25_000]])
    }))

  it.effect("an alarm earlier than the sleeper's wake rings on time (a new sleeper replaces it)", () =>
    Effect.gen(function*() {
      const { alarms, named, rang, sleepers } = yield* onTestClock()
      yield* alarms.set(named("late"), 60_000)
      yield* TestClock.adjust("1 second")
      yield* alarms.set(named("early"), 2_500)
      yield* TestClock.adjust("1 minute")
      expect(rang).toEqual([["early", 2_500], ["late", 60_000]])
      expect(sleepers.size).toBe(0)
    }))

  it.effect("a ring may set its alarm again: it rings again at that time, alarms due together all ring", () =>
    Effect.gen(function*() {
      const { alarms, named, rang } = yield* onTestClock()
      let again = 2
      const repeating: Alarm = named("repeat", (now) => {
        if (again-- > 0) alarms.place(repeating, now + 3_000)
      })
      yield* alarms.set(repeating, 1_000)
      yield* alarms.set(named("x"), 4_000)
      yield* TestClock.adjust("20 seconds")
      // two alarms due at one instant ring in no set order
      const byTimeThenName = [...rang].sort(([a, at], [b, bt]) => at - bt || a.localeCompare(b))
      expect(byTimeThenName).toEqual([["repeat", 1_000], ["repeat", 4_000], ["x", 4_000], ["repeat", 7_000]])
      expect(rang.map(([, at]) => at)).toEqual([1_000, 4_000, 4_000, 7_000])
    }))

  it.effect("off the live clock the sleeper goes as soon as no alarm is left: no wake-up is left to play", () =>
    Effect.gen(function*() {
      const { alarms, named, rang, sleepers } = yield* onTestClock()
      const a = named("a")
      yield* alarms.set(a, 3_600_000)
      yield* TestClock.adjust(0)
      expect(sleepers.size).toBe(1)
      alarms.clear(a)
      yield* TestClock.adjust(0)
      expect(sleepers.size).toBe(0)
      yield* TestClock.adjust("2 hours")
      expect(rang).toEqual([])
    }))

  it.effect("with a longest sleep, the last sleep runs out instead: the sleeper ends that long after, not later", () =>
    Effect.gen(function*() {
      const { alarms, named, rang, sleepers } = yield* onTestClock(longestSleepMillis)
      const a = named("a")
      yield* alarms.set(a, 3_600_000)
      yield* TestClock.adjust(0)
      alarms.clear(a)
      // a later alarm reuses the sleeper still sleeping (no new one)
      const b = named("b")
      yield* alarms.set(b, 3_600_000)
      yield* TestClock.adjust(0)
      expect(sleepers.size).toBe(1)
      alarms.clear(b)
      yield* TestClock.adjust(longestSleepMillis - 1)
      expect(sleepers.size).toBe(1)
      yield* TestClock.adjust(1)
      expect(sleepers.size).toBe(0)
      expect(rang).toEqual([])
      // an alarm further than the longest sleep still rings exactly on time
      const now = yield* Clock.currentTimeMillis
      yield* alarms.set(named("c"), now + 10_500)
      yield* TestClock.adjust("11 seconds")
      expect(rang).toEqual([["c", now + 10_500]])
    }))

  it.effect("the longest sleep is 1 s on the built-in clock only; one queue per clock", () =>
    Effect.gen(function*() {
      const byClock = makeAlarmsByClock()
      const testClock = yield* Clock.clockWith(Effect.succeed)
      expect(byClock.of(testClock).longestSleep).toBe(Number.POSITIVE_INFINITY)
      expect(byClock.of(testClock)).toBe(byClock.of(testClock))
      // another clock made like the live one is not the live one: its timers are not known to be Node's
      expect(byClock.of(Clock.make()).longestSleep).toBe(Number.POSITIVE_INFINITY)
      // the clock a fiber has when no other is provided
      const builtIn = Effect.runSync(Clock.clockWith(Effect.succeed))
      expect(byClock.of(builtIn).longestSleep).toBe(1_000)
      expect(byClock.of(builtIn)).not.toBe(byClock.of(testClock))
    }))

  it.effect("a sleeper ends with the sleepers' owner: interrupting them leaves none", () =>
    Effect.gen(function*() {
      const { alarms, named, sleepers } = yield* onTestClock()
      yield* alarms.set(named("a"), 60_000)
      yield* TestClock.adjust(0)
      expect(sleepers.size).toBe(1)
      yield* Fiber.interruptAll(Array.from(sleepers))
      expect(sleepers.size).toBe(0)
    }))
})
