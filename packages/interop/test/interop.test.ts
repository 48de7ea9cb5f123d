/**
 * The interop, fault and secrecy suites over real sockets on 127.0.0.1, in one file so that every scenario
 * runs once and the secrecy checks at the end see everything every scenario captured:
 *
 * 1. interop with the official A2A v1 server (`@a2a-js/sdk@1.3.0`), through the SDK and the built CLI;
 * 2. faults (one named test per fault, SDK and CLI);
 * 3. representative core scenarios;
 * 4. proxies (a real forward proxy) and TLS (a CA made for the test), SDK and CLI;
 * 5. secrecy: with distinctive token and proxy-credential values, no such byte sequence may appear in stdout,
 *    stderr, config-dir files (except the 0600 cache file), Effect logs, spans, or any rendering of any error.
 *
 * Every `message:send` body any server received is validated against the A2A v1 JSON Schema (Main Sequence
 * profile) after its scenario; a body that breaks it fails that scenario's test.
 */
import { describe, expect, it } from "vitest"
import { coreScenarios } from "./scenarios/core.js"
import { cliFaultScenarios, sdkFaultScenarios, sigintScenario, sigtermScenario } from "./scenarios/faults.js"
import { cliScenarios, sdkScenarios } from "./scenarios/interop.js"
import { networkScenarios } from "./scenarios/network.js"
import { referenceCliScenarios, referenceSdkScenarios } from "./scenarios/reference.js"
import { runScenario, type Scenario } from "./support/scenario.js"
import { Captured, findLeaks, ownChannels, secrets } from "./support/secrets.js"

/** Everything every scenario captured, for the secrecy checks. */
const all = new Captured()
const ran = new Set<string>()

const named = (scenario: Scenario, defaultTimeoutMs: number) =>
  it(scenario.name, async () => {
    const captured = new Captured()
    try {
      await runScenario(scenario, captured)
    } finally {
      for (const entry of captured.entries) all.add(entry.where, entry.text)
      ran.add(scenario.name)
    }
    // Each scenario checks the SDK's and CLI's own outputs at once; span exits are checked below.
    expect(captured.leaks(ownChannels)).toEqual([])
  }, scenario.timeoutMs ?? defaultTimeoutMs)

describe.concurrent("interop with @a2a-js/sdk@1.3.0 (SDK)", () => {
  for (const scenario of sdkScenarios) named(scenario, 15_000)
})

describe.concurrent("interop with @a2a-js/sdk@1.3.0 (CLI)", () => {
  for (const scenario of cliScenarios) named(scenario, 30_000)
})

/** CPU-heavy in this process (50 MB through one event loop): run alone, so it cannot delay the timing of others. */
const heavy = (s: Scenario) => s.name.includes("50 MB")

describe.concurrent("faults over real sockets (SDK)", () => {
  for (const scenario of sdkFaultScenarios.filter((s) => !heavy(s))) named(scenario, 20_000)
})

describe("faults over real sockets (SDK, alone)", () => {
  for (const scenario of sdkFaultScenarios.filter(heavy)) named(scenario, 20_000)
})

describe.concurrent("faults over real sockets (CLI)", () => {
  for (const scenario of cliFaultScenarios) named(scenario, 25_000)
  named(sigintScenario, 20_000)
  named(sigtermScenario, 20_000)
})

describe.concurrent("proxies and TLS over real sockets (SDK and CLI)", () => {
  for (const scenario of networkScenarios) named(scenario, 20_000)
})

describe.concurrent("faults played by the reference platform (@mainsequence/a2a-testing/node)", () => {
  for (const scenario of referenceSdkScenarios) named(scenario, 20_000)
  for (const scenario of referenceCliScenarios) named(scenario, 25_000)
})

describe.concurrent("core scenarios (SDK and CLI)", () => {
  for (const scenario of coreScenarios) named(scenario, 20_000)
})

const everyScenario = [
  ...sdkScenarios,
  ...cliScenarios,
  ...sdkFaultScenarios,
  ...cliFaultScenarios,
  sigintScenario,
  sigtermScenario,
  ...networkScenarios,
  ...referenceSdkScenarios,
  ...referenceCliScenarios,
  ...coreScenarios
]

const leaksIn = (channels: ReadonlyArray<string>) =>
  all.leaks(channels).map((l) => `${l.secret} in ${l.where}: …${l.excerpt}…`)

describe("secrecy: no token in any output of any scenario above", () => {
  it("the scanner finds a planted token (sanity)", () => {
    expect(findLeaks("x", `a Bearer ${secrets.runtimeOne} b`)).not.toEqual([])
    expect(findLeaks("x", Buffer.from(secrets.userRefresh).toString("base64"))).not.toEqual([])
    expect(findLeaks("x", "token msim-runtime-3-0123456789abcdef0123456789abcdef.")).not.toEqual([])
    expect(findLeaks("x", `Proxy-Authorization: Basic ${secrets.proxyAuthorization}`)).not.toEqual([])
    expect(findLeaks("x", `http://u:${secrets.proxyPassword}@proxy`)).not.toEqual([])
    expect(findLeaks("x", "nothing here")).toEqual([])
  })

  it("every scenario above ran and every channel was captured", () => {
    expect(everyScenario.filter((s) => !ran.has(s.name)).map((s) => s.name)).toEqual([])
    for (
      const channel of [
        "stdout",
        "stderr",
        "file",
        "log",
        "span",
        "span-exit",
        "error:String",
        "error:JSON",
        "error:Cause.pretty"
      ]
    ) {
      expect(all.channels(), channel).toContain(channel)
    }
  })

  it("the CLI scenarios ran with --debug: their wire logs are scanned with stderr", () => {
    const logs = all.entries.filter((entry) => entry.where.startsWith("stderr ") && entry.where.endsWith(" --debug"))
    expect(logs.filter((entry) => /^debug #1 > (GET|POST) https?:\/\//m.test(entry.text)).length).toBeGreaterThan(10)
    expect(logs.some((entry) => /^debug #\d+ {3}authorization: <redacted>$/m.test(entry.text))).toBe(true)
  })

  it("no token in CLI stdout or stderr", () => {
    expect(leaksIn(["stdout", "stderr"])).toEqual([])
  })

  it("no token in files written to the config dir (except the 0600 cache file)", () => {
    expect(leaksIn(["file"])).toEqual([])
  })

  it("no token in Effect log output (every level)", () => {
    expect(leaksIn(["log"])).toEqual([])
  })

  it("no token in span names, attributes or events", () => {
    expect(leaksIn(["span"])).toEqual([])
  })

  it("no token in error renderings: String(error), JSON.stringify(error), Cause.pretty(cause), message", () => {
    expect(leaksIn(["error:String", "error:JSON", "error:Cause.pretty", "error:message", "error:inspect"])).toEqual([])
  })

  it("no token in successful results returned to the caller", () => {
    expect(leaksIn(["result"])).toEqual([])
  })

  it("no token in the failures spans end with (the span's exit, as Cause.pretty and JSON)", () => {
    expect(leaksIn(["span-exit"])).toEqual([])
  })
})
