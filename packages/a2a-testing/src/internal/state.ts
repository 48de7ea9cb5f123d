/**
 * The mutable state of one simulated platform. It is only touched from the
 * platform's Effects; each mutation is a synchronous step, so fibers never
 * see it half-changed.
 *
 * @internal
 */
import type * as SessionScenario from "../SessionScenario.js"
import type { RequestLogEntry } from "./model.js"
import type { TaskRecord } from "./model.js"

/** @internal */
export interface RuntimeToken {
  readonly value: string
  readonly label: string
  readonly sessionUid: string
  readonly issuedAtMs: number
  readonly expiresAtMs: number | null
  revoked: boolean
}

/** @internal */
export interface SessionState {
  scenario: SessionScenario.SessionScenario
  createdAtMs: number
  wakeStartedAtMs: number | null
  wakeOperationUid: string | null
  currentToken: RuntimeToken | null
  scriptIndex: number
  rejectedFirstSends: number
  resolveCalls: number
  discoveryCalls: number
}

/** @internal */
export interface UserCredential {
  readonly value: string
  readonly label: string
  valid: boolean
}

/** @internal */
export type MutableLogEntry = {
  -readonly [K in keyof RequestLogEntry]: RequestLogEntry[K]
}

/** @internal */
export interface MutableCounters {
  readonly resolveCalls: Record<string, number>
  readonly sends: Record<string, number>
  readonly sessionDetailCalls: Record<string, number>
  readonly agentDetailCalls: Record<string, number>
  discoveryCalls: number
  taskGets: number
  taskCancels: number
  refreshes: number
  runtimeTokensIssued: number
}

/** @internal */
export const increment = (record: Record<string, number>, key: string): void => {
  record[key] = (record[key] ?? 0) + 1
}

/** @internal */
export class PlatformState {
  readonly sessions = new Map<string, SessionState>()
  readonly runtimeTokens = new Map<string, RuntimeToken>()
  readonly userTokens: Array<UserCredential> = []
  readonly refreshTokens: Array<UserCredential> = []
  /** every secret value ever known → its label */
  readonly secrets = new Map<string, string>()
  readonly tasks = new Map<string, TaskRecord>()
  readonly log: Array<MutableLogEntry> = []
  readonly counters: MutableCounters = {
    resolveCalls: {},
    sends: {},
    sessionDetailCalls: {},
    agentDetailCalls: {},
    discoveryCalls: 0,
    taskGets: 0,
    taskCancels: 0,
    refreshes: 0,
    runtimeTokensIssued: 0
  }
  private readonly sequences = {
    runtimeToken: 0,
    userToken: 0,
    refreshToken: 0,
    task: 0,
    agentMessage: 0,
    operation: 0,
    artifact: 0
  }
  private random: number

  constructor(seed: number) {
    this.random = seed >>> 0 || 0x9e3779b9
  }

  /** 32 hex digits from a xorshift generator seeded from Effect's Random. */
  private nextHex(): string {
    let out = ""
    for (let i = 0; i < 4; i++) {
      let x = this.random
      x ^= x << 13
      x >>>= 0
      x ^= x >>> 17
      x ^= x << 5
      x >>>= 0
      this.random = x
      out += x.toString(16).padStart(8, "0")
    }
    return out
  }

  private remember(value: string, label: string): void {
    this.secrets.set(value, label)
  }

  addUserToken(value: string | undefined): UserCredential {
    const n = ++this.sequences.userToken
    const credential: UserCredential = {
      value: value ?? `msim-user-access-${n}-${this.nextHex()}`,
      label: `user-token#${n}`,
      valid: true
    }
    this.userTokens.push(credential)
    this.remember(credential.value, credential.label)
    return credential
  }

  addRefreshToken(value: string | undefined): UserCredential {
    const n = ++this.sequences.refreshToken
    const credential: UserCredential = {
      value: value ?? `msim-user-refresh-${n}-${this.nextHex()}`,
      label: `refresh-token#${n}`,
      valid: true
    }
    this.refreshTokens.push(credential)
    this.remember(credential.value, credential.label)
    return credential
  }

  mintRuntimeToken(session: SessionState, nowMs: number): RuntimeToken {
    const n = ++this.sequences.runtimeToken
    const ttl = session.scenario.token.ttlSeconds
    const token: RuntimeToken = {
      value: `msim-runtime-${n}-${this.nextHex()}`,
      label: `runtime-token#${n}`,
      sessionUid: session.scenario.sessionUid,
      issuedAtMs: nowMs,
      expiresAtMs: ttl === null ? null : Math.floor((nowMs + ttl * 1000) / 1000) * 1000,
      revoked: false
    }
    this.runtimeTokens.set(token.value, token)
    this.remember(token.value, token.label)
    session.currentToken = token
    this.counters.runtimeTokensIssued++
    return token
  }

  nextTaskId(): string {
    return `task-${String(++this.sequences.task).padStart(6, "0")}`
  }

  nextAgentMessageId(): string {
    return `msg-agent-${String(++this.sequences.agentMessage).padStart(6, "0")}`
  }

  nextArtifactId(): string {
    return `artifact-${String(++this.sequences.artifact).padStart(6, "0")}`
  }

  nextOperationUid(): string {
    const n = ++this.sequences.operation
    return `0badc0de-0000-4000-8000-${n.toString(16).padStart(12, "0")}`
  }

  newSessionState(scenario: SessionScenario.SessionScenario, nowMs: number): SessionState {
    return {
      scenario,
      createdAtMs: nowMs,
      wakeStartedAtMs: null,
      wakeOperationUid: null,
      currentToken: null,
      scriptIndex: 0,
      rejectedFirstSends: 0,
      resolveCalls: 0,
      discoveryCalls: 0
    }
  }

  putSession(scenario: SessionScenario.SessionScenario, nowMs: number): void {
    const previous = this.sessions.get(scenario.sessionUid)
    if (previous?.currentToken) previous.currentToken.revoked = true
    this.sessions.set(scenario.sessionUid, this.newSessionState(scenario, nowMs))
    const counters = this.counters
    for (const record of [counters.resolveCalls, counters.sends, counters.sessionDetailCalls]) {
      record[scenario.sessionUid] ??= 0
    }
    counters.agentDetailCalls[scenario.agentUid] ??= 0
  }
}
