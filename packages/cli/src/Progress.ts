/**
 * The CLI's `A2AProgress`: while a transient runtime is awaited (SPEC §1 step 3), stderr shows what the
 * platform says, and while `task wait` waits, the Task's state. On a terminal, one live status line (state,
 * presence detail, "Next check in N s"), rewritten in place every second and cleared at the end; otherwise
 * one plain line per state change. A notice the backend admits a call with is one line (SPEC §3). stdout is
 * never touched.
 *
 * It also remembers the message id the SDK reports (`MessagePrepared`, once the request body is built, before
 * any request), so an interrupted send can still name the id that went on the wire, and whether the message
 * went to the runtime (`MessageSending`), so an interrupted send can say whether it may have arrived.
 *
 * @since 0.1.0
 */
import type { A2AProgress, RuntimeAccess } from "@mainsequence/a2a"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Ref from "effect/Ref"
import { Output } from "./Output.js"
import { underWay } from "./Resume.js"
import { oneLine } from "./TerminalText.js"

type Event = A2AProgress.RuntimeAccessProgress | A2AProgress.TaskProgress

const secondsText = (millis: number): string => {
  const seconds = millis / 1000
  return Number.isInteger(seconds) ? `${seconds} s` : `${seconds.toFixed(1)} s`
}

/** The text as a sentence: a full stop is added unless it already ends like one (the platform's texts often do). */
const sentence = (text: string): string => /[.!?…]$/.test(text.trimEnd()) ? text.trimEnd() : `${text.trimEnd()}.`

const noticeText = (notice: RuntimeAccess.RuntimeNotice | undefined): string =>
  [notice?.title, notice?.message].filter(Predicate.isString).map(oneLine).filter((text) => text !== "").join(": ")

const runtimeLine = (state: string, details: ReadonlyArray<string | undefined>): string => {
  const shown = details.filter(Predicate.isString).map(oneLine).filter((text) => text !== "")
  return `Agent runtime ${oneLine(state)}${shown.length === 0 ? "" : ` — ${shown.map(sentence).join(" ")}`}`
}

const describeEvent = (event: Event): string =>
  event._tag === "TaskProgress"
    ? underWay(oneLine(event.taskId), event.state)
    : runtimeLine(event.state, [event.presenceDetail, noticeText(event.notice)])

/**
 * The line for a notice the backend admitted the call with: `Agent runtime warning — Heads up: careful.`
 *
 * @since 0.2.0
 * @category rendering
 */
export const noticeLine = (event: A2AProgress.RuntimeAccessNotice): string =>
  sentence(runtimeLine(event.state, [noticeText(event.notice)]))

/**
 * The plain line for an event (non-terminal stderr).
 *
 * @since 0.1.0
 * @category rendering
 */
export const plainLine = (event: Event): string =>
  `${sentence(describeEvent(event))} Next check in ${secondsText(event.retryAfterMs)}`

/**
 * The live status line for an event, `remainingMillis` before the next check.
 *
 * @since 0.1.0
 * @category rendering
 */
export const statusLine = (event: Event, remainingMillis: number): string =>
  remainingMillis > 0
    ? `${sentence(describeEvent(event))} Next check in ${
      remainingMillis < 1000 ? secondsText(remainingMillis) : `${Math.ceil(remainingMillis / 1000)} s`
    }`
    : `${sentence(describeEvent(event))} Checking…`

const clearLine = "\r\u001b[2K"

const fit = (text: string, columns: number | undefined): string =>
  columns === undefined || columns < 2 || text.length < columns ? text : `${text.slice(0, columns - 2)}…`

/**
 * A progress reporter for one command.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  readonly service: A2AProgress.Service
  /** The message id of the send, once the SDK reported it. */
  readonly messageId: Effect.Effect<Option.Option<string>>
  /** Whether the SDK handed the message to the runtime's request (it may have arrived since). */
  readonly messageSending: Effect.Effect<boolean>
  /** Stops the live line and clears it (run it when the call ends, however it ends). */
  readonly clear: Effect.Effect<void>
}

/**
 * Makes the reporter.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Progress, never, Output> = Effect.gen(function*() {
  const output = yield* Output
  const messageId = yield* Ref.make(Option.none<string>())
  const messageSending = yield* Ref.make(false)
  const lastState = yield* Ref.make(Option.none<string>())
  const ticker = yield* Ref.make(Option.none<Fiber.RuntimeFiber<void>>())
  const drawn = yield* Ref.make(false)

  const stopTicker = Effect.flatMap(
    Ref.getAndSet(ticker, Option.none()),
    Option.match({
      onNone: () => Effect.void,
      onSome: Fiber.interrupt
    })
  )

  const draw = (event: Event) => {
    const countdown = (remaining: number): Effect.Effect<void> =>
      output.stderr(clearLine + fit(statusLine(event, remaining), output.stderrColumns)).pipe(
        Effect.zipRight(Ref.set(drawn, true)),
        Effect.zipRight(
          remaining <= 0
            ? Effect.void
            : Effect.sleep(Duration.millis(Math.min(1000, remaining))).pipe(
              Effect.zipRight(countdown(Math.max(0, remaining - 1000)))
            )
        )
      )
    return stopTicker.pipe(
      Effect.zipRight(Effect.forkDaemon(countdown(event.retryAfterMs))),
      Effect.flatMap((fiber) => Ref.set(ticker, Option.some(fiber)))
    )
  }

  const printOnStateChange = (event: Event) =>
    Effect.flatMap(
      Ref.getAndSet(lastState, Option.some(event.state)),
      (previous) => Option.contains(previous, event.state) ? Effect.void : output.stderr(`${plainLine(event)}\n`)
    )

  const clear = stopTicker.pipe(
    Effect.zipRight(Ref.getAndSet(drawn, false)),
    Effect.flatMap((wasDrawn) => wasDrawn ? output.stderr(clearLine) : Effect.void)
  )

  return {
    service: {
      report: (event) => {
        switch (event._tag) {
          case "MessagePrepared":
            return Ref.set(messageId, Option.some(event.messageId))
          case "MessageSending":
            return Ref.set(messageSending, true)
          case "RuntimeAccessProgress":
          case "TaskProgress":
            return output.stderrIsTTY ? draw(event) : printOnStateChange(event)
          case "RuntimeAccessNotice":
            return Effect.zipRight(clear, output.stderr(`${noticeLine(event)}\n`))
        }
      }
    },
    messageId: Ref.get(messageId),
    messageSending: Ref.get(messageSending),
    clear
  }
})
