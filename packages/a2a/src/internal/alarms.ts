/**
 * The client's alarms: one sleeping fiber per `Clock` for all the deadlines of its calls in flight, instead
 * of a sleeping fiber (and a race) per call. An alarm is a time and what to do then; the queue is a binary
 * heap ordered by time, so setting and clearing an alarm is O(log n) however many calls are in flight.
 *
 * When the last call ends, the sleeper's sleep is left to run out rather than interrupted and forked again
 * for the next call (a fork and a timer per call cost more than the race they replace). On the live clock,
 * whose timers keep a Node process alive, the sleeper therefore never sleeps longer than
 * {@link longestSleepMillis}: a client whose scope is never closed still lets the process exit that soon after
 * its last call. On any other clock (`TestClock`) it sleeps until the next alarm, and is interrupted when no
 * alarm is left.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"

const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/**
 * Something to do at a time. `slot` is its place in the queue, `-1` while it is not set.
 *
 * @internal
 */
export interface Alarm {
  at: number
  slot: number
  /** Runs in the sleeper, synchronously, at or after `at`; it may set the alarm again. */
  readonly ring: (now: number) => void
}

/**
 * The longest one sleep of the sleeper on the live clock, in milliseconds.
 *
 * @internal
 */
export const longestSleepMillis = 1_000

/**
 * The alarms of one client, one queue per `Clock` its calls run with, and the sleepers running (for the
 * client's scope to interrupt when it closes).
 *
 * @internal
 */
export interface AlarmsByClock {
  readonly of: (clock: Clock.Clock) => Alarms
  readonly sleepers: Set<Fiber.RuntimeFiber<void>>
}

/** @internal */
export const makeAlarmsByClock = (): AlarmsByClock => {
  const byClock = new WeakMap<Clock.Clock, Alarms>()
  const sleepers = new Set<Fiber.RuntimeFiber<void>>()
  return {
    of: (clock) => {
      let alarms = byClock.get(clock)
      if (alarms === undefined) {
        alarms = new Alarms(clock, sleepers, clock === liveClock ? longestSleepMillis : Number.POSITIVE_INFINITY)
        byClock.set(clock, alarms)
      }
      return alarms
    },
    sleepers
  }
}

/**
 * The alarms of one client on one `Clock`.
 *
 * @internal
 */
export class Alarms {
  private readonly queue: Array<Alarm> = []
  /** The sleeper, while one runs, and the Clock millis it wakes at. */
  private sleeper: Fiber.RuntimeFiber<void> | undefined = undefined
  private wakeAt = Number.POSITIVE_INFINITY

  constructor(
    private readonly clock: Clock.Clock,
    private readonly sleepers: Set<Fiber.RuntimeFiber<void>>,
    /** The longest one sleep; a finite one lets the last sleep run out instead of interrupting it. */
    readonly longestSleep: number
  ) {}

  /** How many alarms are set. */
  get size(): number {
    return this.queue.length
  }

  /**
   * Sets `alarm` to ring at `at` (moving it if it is set). Only an alarm earlier than the sleeper's next
   * wake starts a sleeper.
   */
  set(alarm: Alarm, at: number): Effect.Effect<void> {
    this.place(alarm, at)
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent: a needless new sleeper rings the same alarms at the same times (it only costs a fork)
    if (at >= this.wakeAt) return Effect.void
    this.sleeper?.unsafeInterruptAsFork(this.sleeper.id())
    this.wakeAt = at
    // Interruptible even when set from inside a mask (as a call's alarm is).
    return Effect.map(Effect.forkDaemon(Effect.interruptible(this.sleep())), (fiber) => {
      this.sleeper = fiber
      this.sleepers.add(fiber)
      fiber.addObserver(() => this.sleepers.delete(fiber))
    })
  }

  /** Takes `alarm` out of the queue, if it is there. */
  clear(alarm: Alarm): void {
    this.remove(alarm)
    // Off the live clock a sleep left to run out would still be a wake-up to play (TestClock, SimulatedTime).
    if (this.queue.length === 0 && this.longestSleep === Number.POSITIVE_INFINITY && this.sleeper !== undefined) {
      this.sleeper.unsafeInterruptAsFork(this.sleeper.id())
      this.noSleeper()
    }
  }

  /** Sets `alarm` from inside a ring: the sleeper looks at the queue again once the ring returns. */
  place(alarm: Alarm, at: number): void {
    this.remove(alarm)
    alarm.at = at
    this.up(alarm, this.queue.length)
  }

  private remove(alarm: Alarm): void {
    const slot = alarm.slot
    if (slot < 0) return
    alarm.slot = -1
    const last = this.queue.pop()
    if (last !== undefined && last !== alarm) this.down(last, this.up(last, slot))
  }

  private noSleeper(): void {
    this.sleeper = undefined
    this.wakeAt = Number.POSITIVE_INFINITY
  }

  /** Rings every alarm due, then sleeps until the next (on the live clock at most 1 s) or ends. */
  private sleep(): Effect.Effect<void> {
    return Effect.withFiberRuntime((fiber) => {
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        // A sleeper replaced by an earlier one (its interruption not yet seen) does nothing more.
        if (this.sleeper !== undefined && this.sleeper !== fiber) return Effect.void
        const now = this.clock.unsafeCurrentTimeMillis()
        let due = this.queue[0]
        while (due !== undefined && due.at <= now) {
          this.remove(due)
          due.ring(now)
          due = this.queue[0]
        }
        if (due === undefined) {
          this.noSleeper()
          return Effect.void
        }
        this.wakeAt = Math.min(due.at, now + this.longestSleep)
        return Effect.zipRight(this.clock.sleep(Duration.millis(this.wakeAt - now)), loop)
      })
      return loop
    })
  }

  /** Puts `alarm` at `slot` or above it, wherever its time belongs; returns where it went. */
  private up(alarm: Alarm, slot: number): number {
    const queue = this.queue
    while (slot > 0) {
      const parent = (slot - 1) >> 1
      const above = queue[parent]
      if (above === undefined || above.at <= alarm.at) break
      queue[slot] = above
      above.slot = slot
      slot = parent
    }
    queue[slot] = alarm
    alarm.slot = slot
    return slot
  }

  /** Puts `alarm` at `slot` or below it, wherever its time belongs. */
  private down(alarm: Alarm, slot: number): void {
    const queue = this.queue
    for (;;) {
      const left = queue[2 * slot + 1]
      const right = queue[2 * slot + 2]
      const child = right !== undefined && left !== undefined && right.at < left.at ? right : left
      if (child === undefined || child.at >= alarm.at) break
      queue[slot] = child
      child.slot = slot
      slot = child === left ? 2 * slot + 1 : 2 * slot + 2
    }
    queue[slot] = alarm
    alarm.slot = slot
  }
}
