// A call whose every wait hands its abort to the budget runs on its caller's fiber (the Node layer with the
// in-memory cache): the alarm ends the wait under way, and any wait the body starts after it rang, with the
// call's own timeout error; the caller interrupted interrupts the body there. Played on TestClock with bodies
// whose one wait is the test's own, so each rule is seen without a network.
import { describe, expect, it } from "@effect/vitest"
import { layerTest, SimulatedPlatform } from "@mainsequence/a2a-testing"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as A2AClient from "../src/A2AClient.js"
import { type A2AError, A2AInputError } from "../src/A2AError.js"
import { withinCallBudget } from "../src/internal/budget.js"
import type { CallContext, ClientEnv } from "../src/internal/callContext.js"
import { makeClientEnv } from "../src/internal/clientEnv.js"
import * as RuntimeAccessCache from "../src/RuntimeAccessCache.js"
import * as Timeout from "../src/Timeout.js"
import { session, sessionUid } from "./fixtures.js"

/** A client environment on the simulated platform, told that every wait hands its abort (`handTheirAbort`). */
const withEnv = <A, E>(handTheirAbort: boolean, use: (env: ClientEnv) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(
    makeClientEnv({
      backendUrl: SimulatedPlatform.defaultBaseUrl,
      accessToken: SimulatedPlatform.defaultUserAccessToken
    }, A2AClient.defaultMaxResponseBytes),
    (env) => use({ ...env, waitsHandTheirAbort: handTheirAbort })
  )).pipe(
    Effect.provide(Timeout.layerInstantConnect),
    Effect.provide(Layer.merge(layerTest({ sessions: [session()] }), RuntimeAccessCache.layerMemory))
  )

const budget = (seconds: number, phases?: { connect: number; read: number }): Timeout.Budget => ({
  total: Duration.seconds(seconds),
  connect: phases === undefined ? undefined : Duration.seconds(phases.connect),
  read: phases === undefined ? undefined : Duration.seconds(phases.read),
  totalSeconds: seconds
})

/** A wait of the call that hands its abort to the budget, as the Node layer's request and the resolution do. */
class HandedWait {
  aborts = 0
  wait(call: CallContext): Effect.Effect<never> {
    return Effect.withFiberRuntime((fiber) =>
      Effect.async<never>((resume) => {
        call.phase.takeAbort(fiber, () => {
          this.aborts++
          resume(Effect.interrupt)
        })
      })
    )
  }
}

/** A wait the budget cannot end (it hands no abort): the test resumes it. */
type Resume = (effect: Effect.Effect<void>) => void

class ResumedByTest {
  private resume: Resume | undefined = undefined
  readonly wait: Effect.Effect<void> = Effect.async((resume: Resume) => {
    this.resume = resume
  })
  go(): void {
    this.resume?.(Effect.void)
  }
}

const sendCall = <E extends A2AError>(
  env: ClientEnv,
  seconds: number,
  use: (call: CallContext) => Effect.Effect<string, E>,
  phases?: {
    connect: number
    read: number
  }
) =>
  withinCallBudget(env, {
    agentSessionUid: sessionUid,
    messageId: "m-1",
    budget: budget(seconds, phases),
    step: "send-message",
    onCallerFiber: true
  }, use)

describe("budget: a call whose every wait hands its abort runs on its caller's fiber", () => {
  it.effect("no fiber of its own; its alarm ends the wait with the call's total timeout, aborting it once", () =>
    withEnv(true, (env) =>
      Effect.gen(function*() {
        const handed = new HandedWait()
        const caller = yield* Effect.fork(Effect.flip(sendCall(env, 2, (call) => handed.wait(call))))
        yield* TestClock.adjust("1 second")
        expect(yield* caller.children).toEqual([])
        expect(handed.aborts).toBe(0)
        expect(env.sessions.size()).toBe(1)
        yield* TestClock.adjust("1 second")
        const error = yield* Fiber.join(caller)
        expect(error).toMatchObject({
          _tag: "A2ATimeoutError",
          agentSessionUid: sessionUid,
          messageId: "m-1",
          step: "send-message",
          limit: "total",
          seconds: 2
        })
        expect(handed.aborts).toBe(1)
        expect(env.sessions.size()).toBe(0)
      })))

  it.effect("the same call runs on a fiber of its own when a wait may not hand its abort, or it was not asked", () =>
    Effect.gen(function*() {
      const forked = (handTheirAbort: boolean, onCallerFiber: boolean) =>
        withEnv(handTheirAbort, (env) =>
          Effect.gen(function*() {
            const handed = new HandedWait()
            const caller = yield* Effect.fork(withinCallBudget(env, {
              agentSessionUid: sessionUid,
              messageId: "m-1",
              budget: budget(2),
              step: "send-message",
              onCallerFiber
            }, (call) => handed.wait(call)))
            yield* TestClock.adjust("1 second")
            const children = (yield* caller.children).length
            yield* TestClock.adjust("1 second")
            expect(yield* Effect.flip(Fiber.join(caller))).toMatchObject({ _tag: "A2ATimeoutError", limit: "total" })
            return children
          }))
      expect(yield* forked(false, true)).toBe(1)
      expect(yield* forked(true, false)).toBe(1)
      expect(yield* forked(true, true)).toBe(0)
    }))

  it.effect("the phase limit set by the body ends the wait with its own limit", () =>
    withEnv(true, (env) =>
      Effect.gen(function*() {
        const handed = new HandedWait()
        const caller = yield* Effect.fork(Effect.flip(sendCall(env, 100, (call) =>
          Effect.zipRight(
            Effect.clockWith((clock) =>
              Effect.sync(() => call.phase.set(clock.unsafeCurrentTimeMillis() + 2000, "read"))
            ),
            handed.wait(call)
          ), { connect: 1, read: 2 })))
        yield* TestClock.adjust("1999 millis")
        expect(handed.aborts).toBe(0)
        yield* TestClock.adjust("1 milli")
        expect(yield* Fiber.join(caller)).toMatchObject({ _tag: "A2ATimeoutError", limit: "read", seconds: 2 })
        expect(handed.aborts).toBe(1)
      })))

  it.effect("a wait the body starts after the alarm rang is ended at once; a body that goes on ends with the timeout", () =>
    withEnv(true, (env) =>
      Effect.gen(function*() {
        const paused = new ResumedByTest()
        const handed = new HandedWait()
        const later = yield* Effect.fork(
          Effect.flip(sendCall(env, 2, (call) => Effect.zipRight(paused.wait, handed.wait(call))))
        )
        yield* TestClock.adjust("3 seconds")
        expect(handed.aborts).toBe(0)
        paused.go()
        expect(yield* Fiber.join(later)).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", seconds: 2 })
        expect(handed.aborts).toBe(1)

        const goingOn = new ResumedByTest()
        const answered = yield* Effect.fork(Effect.flip(sendCall(env, 2, () => Effect.as(goingOn.wait, "answer"))))
        yield* TestClock.adjust("3 seconds")
        goingOn.go()
        expect(yield* Fiber.join(answered)).toMatchObject({ _tag: "A2ATimeoutError", limit: "total", seconds: 2 })
        expect(env.sessions.size()).toBe(0)
      })))

  it.effect("a body that ends in time keeps its outcome, and leaves no alarm behind", () =>
    withEnv(true, (env) =>
      Effect.gen(function*() {
        const alarms = env.alarms.of(yield* Clock.clockWith(Effect.succeed))
        const paused = new ResumedByTest()
        const answered = yield* Effect.fork(sendCall(env, 2, () => Effect.as(paused.wait, "answer")))
        yield* TestClock.adjust("1 second")
        expect(alarms.size).toBe(1)
        paused.go()
        expect(yield* Fiber.join(answered)).toBe("answer")
        expect(alarms.size).toBe(0)
        const blank = new A2AInputError({ field: "message", reason: "must not be blank" })
        expect(yield* Effect.flip(sendCall(env, 2, () => Effect.fail(blank)))).toBe(blank)
        expect(alarms.size).toBe(0)
      })))

  it.effect("interrupting the caller interrupts the body there, ends its wait once, and releases the call", () =>
    withEnv(true, (env) =>
      Effect.gen(function*() {
        const alarms = env.alarms.of(yield* Clock.clockWith(Effect.succeed))
        const handed = new HandedWait()
        const caller = yield* Effect.fork(sendCall(env, 2, (call) => handed.wait(call)))
        yield* TestClock.adjust("1 second")
        const exit = yield* Fiber.interrupt(caller)
        expect(Exit.isInterrupted(exit)).toBe(true)
        expect(handed.aborts).toBe(1)
        expect(env.sessions.size()).toBe(0)
        expect(alarms.size).toBe(0)
        yield* TestClock.adjust("5 seconds")
        expect(handed.aborts).toBe(1)
      })))
})
