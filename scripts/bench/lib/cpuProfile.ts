/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and summarises it: self time per function, self and
 * inclusive time per package / module, and the share of samples that have a frame of a given module on
 * their stack (e.g. "how much of the time is under effect/ParseResult").
 */
import { readFileSync } from "node:fs"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
  readonly startTime: number
  readonly endTime: number
}

export interface Row {
  readonly key: string
  readonly ms: number
  readonly share: number
}

export interface ProfileSummary {
  readonly totalMs: number
  /** Not idle. */
  readonly busyMs: number
  readonly topSelf: ReadonlyArray<Row>
  readonly selfByPackage: ReadonlyArray<Row>
  readonly inclusiveByModule: ReadonlyArray<Row>
}

/** `node_modules/.pnpm/<x>/node_modules/<pkg>/dist/esm/Foo.js` → `<pkg>`; our workspace packages by path. */
export const packageOf = (url: string): string => {
  if (url === "") return "(native / V8)"
  if (url.startsWith("node:")) return "node internals"
  const nm = url.lastIndexOf("/node_modules/")
  if (nm !== -1) {
    const rest = url.slice(nm + "/node_modules/".length).split("/")
    return rest[0]?.startsWith("@") === true ? `${rest[0]}/${rest[1] ?? ""}` : (rest[0] ?? url)
  }
  const ws = /\/packages\/([^/]+)\//.exec(url)
  if (ws !== null) return `@mainsequence/${ws[1] ?? ""}`
  if (url.includes("/scripts/")) return "bench harness"
  return url
}

/** A module key: package + file inside it (`effect/ParseResult.js`). */
export const moduleOf = (url: string): string => {
  const pkg = packageOf(url)
  if (pkg === "(native / V8)" || pkg === "node internals") return pkg === "node internals" ? url : pkg
  const file = url.slice(url.lastIndexOf("/") + 1)
  const internal = url.includes("/internal/") ? "internal/" : ""
  return `${pkg}/${internal}${file}`
}

export const summarizeProfile = (path: string, top = 25): ProfileSummary => {
  const profile = JSON.parse(readFileSync(path, "utf8")) as Profile
  const byId = new Map<number, ProfileNode>()
  const parent = new Map<number, number>()
  for (const n of profile.nodes) {
    byId.set(n.id, n)
    for (const c of n.children ?? []) parent.set(c, n.id)
  }
  const self = new Map<number, number>()
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] ?? 0
    const dt = (profile.timeDeltas[i] ?? 0) / 1000
    self.set(id, (self.get(id) ?? 0) + dt)
  }
  let totalMs = 0
  let idleMs = 0
  const selfByFn = new Map<string, number>()
  const selfByPkg = new Map<string, number>()
  const inclusiveByModule = new Map<string, number>()
  for (const [id, ms] of self) {
    const node = byId.get(id)
    if (node === undefined) continue
    totalMs += ms
    const cf = node.callFrame
    if (cf.functionName === "(idle)") {
      idleMs += ms
      continue
    }
    const special = cf.functionName.startsWith("(")
    const fnKey = special
      ? cf.functionName
      : `${cf.functionName || "(anonymous)"} ${moduleOf(cf.url)}:${cf.lineNumber + 1}`
    selfByFn.set(fnKey, (selfByFn.get(fnKey) ?? 0) + ms)
    const pkg = special ? cf.functionName : packageOf(cf.url)
    selfByPkg.set(pkg, (selfByPkg.get(pkg) ?? 0) + ms)
    // Inclusive per module: count each module once per sample stack.
    const seen = new Set<string>()
    let cur: number | undefined = id
    while (cur !== undefined) {
      const n = byId.get(cur)
      if (n === undefined) break
      if (n.callFrame.url !== "") seen.add(moduleOf(n.callFrame.url))
      cur = parent.get(cur)
    }
    for (const m of seen) inclusiveByModule.set(m, (inclusiveByModule.get(m) ?? 0) + ms)
  }
  const busyMs = totalMs - idleMs
  const rows = (m: Map<string, number>, limit: number): Array<Row> =>
    [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([key, ms]) => ({ key, ms, share: ms / busyMs }))
  return {
    totalMs,
    busyMs,
    topSelf: rows(selfByFn, top),
    selfByPackage: rows(selfByPkg, 15),
    inclusiveByModule: rows(inclusiveByModule, top)
  }
}
