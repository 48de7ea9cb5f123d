/**
 * Long waits played cheaply. `TestClock.adjust` moves from one wake-up to the next only after it has
 * waited, in real time, for the fibers to settle: three `setTimeout(0)` per wake-up, at least 1 ms each
 * on Node. A budget of 600 re-resolves costs about 2 s of waiting on that alone.
 *
 * {@link play} runs an effect to its end on a clock of its own with the same rules as `TestClock`: time
 * stands still while any fiber can run, then jumps to the earliest pending sleep (the clock reads that
 * sleep's end), wakes it, and waits for the fibers to settle again. What differs is how it knows that
 * they settled: the effect's fibers run on a scheduler of its own that knows when it has nothing left to
 * run, so one turn of the event loop (`setImmediate`, which comes after every pending promise job) is
 * enough instead of three timers.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import type * as Scheduler from "effect/Scheduler"
import * as TestClock from "effect/TestClock"

interface Sleep {
  readonly end: number
  readonly seq: number
  readonly wake: () => void
}

// TestClock's order: earliest end first; among equal ends the sleep registered last wakes first.
const before = (a: Sleep, b: Sleep): boolean => a.end < b.end || (a.end === b.end && a.seq > b.seq)

/**
 * Pending sleeps, the next to wake last (sleeps pending at once are few). An interrupted sleep is removed
 * at once: it would wake nobody.
 */
class Sleeps {
  private readonly queue: Array<Sleep> = []
  peek(): Sleep | undefined {
    return this.queue[this.queue.length - 1]
  }
  pop(): Sleep | undefined {
    return this.queue.pop()
  }
  push(sleep: Sleep): void {
    const queue = this.queue
    let low = 0
    let high = queue.length
    while (low < high) {
      const middle = (low + high) >> 1
      const other = queue[middle]
      if (other !== undefined && before(other, sleep)) high = middle
      else low = middle + 1
    }
    queue.splice(low, 0, sleep)
  }
  remove(sleep: Sleep): void {
    const index = this.queue.lastIndexOf(sleep)
    if (index !== -1) this.queue.splice(index, 1)
  }
}

/** A clock that moves only when told to, with its sleeps in wake-up order. */
class SimulatedClock implements Clock.Clock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  readonly sleeps = new Sleeps()
  private seq = 0
  private onSleep: (() => void) | undefined = undefined
  constructor(public instant: number) {}
  unsafeCurrentTimeMillis(): number {
    return this.instant
  }
  unsafeCurrentTimeNanos(): bigint {
    return BigInt(Math.floor(this.instant * 1_000_000))
  }
  readonly currentTimeMillis: Effect.Effect<number> = Effect.sync(() => this.instant)
  readonly currentTimeNanos: Effect.Effect<bigint> = Effect.sync(() => this.unsafeCurrentTimeNanos())
  sleep(duration: Duration.DurationInput): Effect.Effect<void> {
    return Effect.suspend(() => {
      const millis = Duration.toMillis(Duration.decode(duration))
      if (!(millis > 0)) return Effect.void
      const end = this.instant + millis
      return Effect.async((resume: (wake: Effect.Effect<void>) => void) => {
        const sleep: Sleep = { end, seq: this.seq++, wake: () => resume(Effect.void) }
        this.sleeps.push(sleep)
        const onSleep = this.onSleep
        this.onSleep = undefined
        onSleep?.()
        return Effect.sync(() => this.sleeps.remove(sleep))
      })
    })
  }
  /** Moves to the earliest sleep and wakes it; false when no sleep that can end is pending. */
  wakeNext(): boolean {
    const next = this.sleeps.peek()
    if (next === undefined || !Number.isFinite(next.end)) return false
    this.sleeps.pop()
    this.instant = next.end
    next.wake()
    return true
  }
  /** Succeeds when a fiber starts a new sleep. */
  readonly nextSleep: Effect.Effect<void> = Effect.async((resume: (next: Effect.Effect<void>) => void) => {
    const pending = this.sleeps.peek()
    if (pending !== undefined && Number.isFinite(pending.end)) return resume(Effect.void)
    this.onSleep = () => resume(Effect.void)
    return Effect.sync(() => {
      this.onSleep = undefined
    })
  })
}

/**
 * Runs fibers like Effect's default scheduler (promise jobs, a turn of the event loop now and then so
 * that I/O is not starved), and knows whether it has anything left to run.
 */
class SettlingScheduler implements Scheduler.Scheduler {
  private tasks: Array<Scheduler.Task> = []
  private draining = false
  get idle(): boolean {
    return !this.draining
  }
  shouldYield(fiber: Fiber.RuntimeFiber<unknown, unknown>): number | false {
    return fiber.currentOpCount > fiber.getFiberRef(FiberRef.currentMaxOpsBeforeYield)
      ? fiber.getFiberRef(FiberRef.currentSchedulingPriority)
      : false
  }
  scheduleTask(task: Scheduler.Task): void {
    this.tasks.push(task)
    if (!this.draining) {
      this.draining = true
      this.schedule(0)
    }
  }
  private schedule(depth: number): void {
    if (depth >= 2048) setImmediate(() => this.drain(0))
    else void Promise.resolve().then(() => this.drain(depth + 1))
  }
  private drain(depth: number): void {
    const tasks = this.tasks
    this.tasks = []
    for (const task of tasks) task()
    if (this.tasks.length === 0) this.draining = false
    else this.schedule(depth)
  }
}

// One turn of the event loop: every pending promise job (and whatever it schedules) has run by then.
const turn: Effect.Effect<void> = Effect.async((resume: (next: Effect.Effect<void>) => void) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

const settle = (scheduler: SettlingScheduler): Effect.Effect<void> =>
  Effect.flatMap(turn, () => scheduler.idle ? Effect.void : settle(scheduler))

/**
 * Runs `effect` to its end with simulated time: it starts at the `TestClock`'s time, every sleep of its
 * fibers ends at once when all of them are waiting, in the order `TestClock.adjust` wakes them (earliest
 * end first, the clock reading that end), and no real time passes. At the end the `TestClock` is set to
 * the time the effect ended at (it never moves back).
 *
 * Semantics and limits: the effect's fibers (and those they fork, and layers built inside it) run on a
 * scheduler of `play`'s own, which tells exactly when they are all waiting; work they wait for through
 * promises counts as running. Fibers started outside `effect` do not see its clock, and real I/O or
 * real timers it waits for are not waited for: like `TestClock.adjust`, this is for in-memory effects such as
 * the simulated platform's `layerTest`. Inside `effect`, the clock is not a `TestClock`: do not call
 * `TestClock.adjust` there. An effect that waits for nothing it can wake (no sleep pending) is simply awaited.
 *
 * @example
 * ```ts
 * import { SimulatedTime } from "@mainsequence/a2a-testing"
 * import * as Effect from "effect/Effect"
 *
 * // 600 wake-ups of a 15-minute budget, in milliseconds of wall time.
 * const program = Effect.sleep("1500 millis").pipe(Effect.repeatN(599))
 * const played = SimulatedTime.play(program)
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const play = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const clock = new SimulatedClock(yield* TestClock.currentTimeMillis)
    const scheduler = new SettlingScheduler()
    const fiber = yield* Effect.fork(effect.pipe(Effect.withClock(clock), Effect.withScheduler(scheduler)))
    for (;;) {
      yield* settle(scheduler)
      if (Option.isSome(yield* Fiber.poll(fiber))) break
      // Nothing to wake: the effect waits for something outside; go on when it ends or sleeps again.
      if (!clock.wakeNext()) yield* Effect.raceFirst(Effect.asVoid(Fiber.await(fiber)), clock.nextSleep)
    }
    const exit = yield* Fiber.await(fiber)
    const now = yield* TestClock.currentTimeMillis
    if (clock.instant > now) yield* TestClock.adjust(clock.instant - now)
    return yield* exit
  })
