import { describe, expect, it } from "@effect/vitest"
import type { A2AProgress } from "@mainsequence/a2a"
import { noticeLine, plainLine, statusLine } from "../src/Progress.js"

const event = (overrides: Partial<A2AProgress.RuntimeAccessProgress> = {}): A2AProgress.RuntimeAccessProgress => ({
  _tag: "RuntimeAccessProgress",
  agentSessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
  messageId: "msg-1",
  state: "checking",
  notice: undefined,
  presencePhase: undefined,
  presenceDetail: "Checking the runtime.",
  retryAfterMs: 300,
  attempt: 1,
  ...overrides
})

describe("progress lines read as sentences", () => {
  it("a detail that ends with a full stop is not given a second one", () => {
    expect(plainLine(event())).toBe("Agent runtime checking — Checking the runtime. Next check in 0.3 s")
    expect(statusLine(event(), 1200)).toBe("Agent runtime checking — Checking the runtime. Next check in 2 s")
    expect(statusLine(event(), 0)).toBe("Agent runtime checking — Checking the runtime. Checking…")
    // under a second: the time as the plain line gives it, not rounded up to "1 s"
    expect(statusLine(event(), 300)).toBe("Agent runtime checking — Checking the runtime. Next check in 0.3 s")
  })

  it("a detail without a full stop, or no detail, ends with one", () => {
    expect(plainLine(event({ presenceDetail: "Loading the Agent", retryAfterMs: 2000 }))).toBe(
      "Agent runtime checking — Loading the Agent. Next check in 2 s"
    )
    expect(plainLine(event({ presenceDetail: undefined, state: "waking", retryAfterMs: 1500 }))).toBe(
      "Agent runtime waking. Next check in 1.5 s"
    )
  })

  it("no line has the \".;\" or \". —\" glitch", () => {
    const lines = [
      plainLine(event({ notice: { title: "Waking up", message: "Almost there." } })),
      statusLine(event({ notice: { title: "Waking up", message: "Almost there." } }), 900)
    ]
    for (const line of lines) expect(line).not.toMatch(/[.!?]\s*[;—]|\.\./)
    expect(lines[0]).toBe("Agent runtime checking — Checking the runtime. Waking up: Almost there. Next check in 0.3 s")
  })

  it("a Task still under way: its id (one safe line) and state, then the wait", () => {
    const task: A2AProgress.TaskProgress = {
      _tag: "TaskProgress",
      agentSessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
      taskId: "task-7\u001b[2J\nnext",
      state: "TASK_STATE_WORKING",
      retryAfterMs: 2250
    }
    expect(plainLine(task)).toBe("The Task task-7 next is under way (TASK_STATE_WORKING). Next check in 2.3 s")
    expect(statusLine(task, 1200)).toBe("The Task task-7 next is under way (TASK_STATE_WORKING). Next check in 2 s")
    expect(statusLine(task, 0)).toBe("The Task task-7 next is under way (TASK_STATE_WORKING). Checking…")
  })

  it("a notice the call was admitted with: the state, then its title and message as one safe sentence", () => {
    const notice = (notice: A2AProgress.RuntimeAccessNotice["notice"]): A2AProgress.RuntimeAccessNotice => ({
      _tag: "RuntimeAccessNotice",
      agentSessionUid: "0b2701a1-e777-4cfe-8437-b94025f00069",
      messageId: "msg-1",
      state: "warning",
      notice
    })
    expect(noticeLine(notice({ title: "Heads up", message: "Maintenance\u001b[2J tonight" }))).toBe(
      "Agent runtime warning — Heads up: Maintenance tonight."
    )
    expect(noticeLine(notice({ message: "Restarting soon!" }))).toBe("Agent runtime warning — Restarting soon!")
    expect(noticeLine(notice({}))).toBe("Agent runtime warning.")
  })
})
