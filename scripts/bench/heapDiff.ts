/**
 * `node scripts/dist/bench/heapDiff.js <before.heapsnapshot> <after.heapsnapshot> [top] [--per=N]
 * [--retainers=<name>]`: the objects
 * of the second snapshot that the first does not hold (V8 keeps an object's id across snapshots of one
 * process), summed by kind and constructor — what the calls in flight between the two are made of. Write the
 * snapshots with the `inFlightMemory` task's `snapshots` option (`--snapshots=<prefix>` of `memory-in-flight`).
 */
import { readFileSync } from "node:fs"

interface Snapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: Array<string>
      readonly node_types: [Array<string>]
      readonly edge_fields: Array<string>
      readonly edge_types: [Array<string>]
    }
  }
  readonly nodes: Array<number>
  readonly edges: Array<number>
  readonly strings: Array<string>
}

interface Node {
  readonly type: string
  readonly name: string
  readonly id: number
  readonly size: number
}

const at = <A>(array: ReadonlyArray<A>, index: number): A => {
  const value = array[index]
  if (value === undefined) throw new Error(`heap snapshot: no entry at ${index}`)
  return value
}

const nodesOf = (file: string, retainersOf?: (node: Node) => boolean): Array<Node> => {
  const s = JSON.parse(readFileSync(file, "utf8")) as Snapshot
  const fields = s.snapshot.meta.node_fields
  const types = s.snapshot.meta.node_types[0]
  const width = fields.length
  const [t, n, i, z] = [
    fields.indexOf("type"),
    fields.indexOf("name"),
    fields.indexOf("id"),
    fields.indexOf("self_size")
  ]
  const out: Array<Node> = []
  for (let k = 0; k < s.nodes.length; k += width) {
    const type = types[at(s.nodes, k + t)] ?? "?"
    const raw = s.strings[at(s.nodes, k + n)] ?? "?"
    // Strings and code are summed by kind only; a closure by its function name.
    const name = type === "string" || type === "concatenated string" || type === "sliced string" || type === "code"
      ? `(${type})`
      : type === "closure"
      ? `closure ${raw === "" ? "(anonymous)" : raw}`
      : raw.length > 80
      ? `${raw.slice(0, 80)}…`
      : raw
    out.push({ type, name, id: at(s.nodes, k + i), size: at(s.nodes, k + z) })
  }
  if (retainersOf !== undefined) {
    // `--retainers=<name>`: who holds the new objects of that name (retainer kind/name and edge), summed.
    const edgeWidth = s.snapshot.meta.edge_fields.length
    const edgeTypes = s.snapshot.meta.edge_types[0]
    const ec = fields.indexOf("edge_count")
    const edgeFields = s.snapshot.meta.edge_fields
    const [et, en, eto] = [
      edgeFields.indexOf("type"),
      edgeFields.indexOf("name_or_index"),
      edgeFields.indexOf("to_node")
    ]
    const held = new Map<string, number>()
    let e = 0
    for (let k = 0; k < s.nodes.length; k += width) {
      const from = at(out, k / width)
      for (let c = 0; c < at(s.nodes, k + ec); c++, e += edgeWidth) {
        const to = at(out, at(s.edges, e + eto) / width)
        if (!retainersOf(to)) continue
        const type = edgeTypes[at(s.edges, e + et)] ?? "?"
        const edge = type === "element" || type === "hidden" ? `[${type}]` : s.strings[at(s.edges, e + en)] ?? "?"
        const key = `${to.name} <- ${from.type} ${from.name} .${edge}`
        held.set(key, (held.get(key) ?? 0) + 1)
      }
    }
    for (const [key, count] of [...held.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
      process.stdout.write(`${count}\t${key}\n`)
    }
  }
  return out
}

const [beforeFile, afterFile, topArg] = process.argv.slice(2).filter((a) => !a.startsWith("--"))
const perArg = process.argv.find((a) => a.startsWith("--per="))
if (beforeFile === undefined || afterFile === undefined) {
  process.stderr.write("usage: heapDiff <before.heapsnapshot> <after.heapsnapshot> [top] [--per=N]\n")
  process.exit(2)
}
const per = perArg === undefined ? 1 : Number(perArg.slice("--per=".length))
const top = Number(topArg ?? 40)
const known = new Set(nodesOf(beforeFile).map((node) => node.id))
const retainersArg = process.argv.find((a) => a.startsWith("--retainers="))?.slice("--retainers=".length)
if (retainersArg !== undefined) {
  nodesOf(afterFile, (node) => !known.has(node.id) && node.name === retainersArg)
  process.exit(0)
}
const groups = new Map<string, { type: string; count: number; size: number }>()
let total = 0
for (const node of nodesOf(afterFile)) {
  if (known.has(node.id)) continue
  const key = `${node.type}\t${node.name}`
  const g = groups.get(key) ?? { type: node.type, count: 0, size: 0 }
  g.count++
  g.size += node.size
  groups.set(key, g)
  total += node.size
}
const rows = [...groups.entries()].sort((a, b) => b[1].size - a[1].size).slice(0, top)
process.stdout.write(`new objects: ${(total / per).toFixed(0)} B per call (${per} calls)\n`)
process.stdout.write("bytes/call\tcount/call\tkind\tname\n")
for (const [key, g] of rows) {
  process.stdout.write(`${(g.size / per).toFixed(0)}\t${(g.count / per).toFixed(2)}\t${key}\n`)
}
