// Loaded into the CLI's process with `--import`: a Ctrl-C while the CLI loads, made exact. The process sends itself
// SIGNAL_WHILE_LOADING when it first stats (`stat`, before it loads anything) or reads (`read`, after the last
// wait of the start) its bundle, as SIGNAL_WHILE_LOADING_AT says, and writes that it did to SIGNAL_WHILE_LOADING_MARK.
import Fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"

const signal = process.env["SIGNAL_WHILE_LOADING"]
const at = process.env["SIGNAL_WHILE_LOADING_AT"]
const mark = process.env["SIGNAL_WHILE_LOADING_MARK"]
let sent = false

const signalOnce = (path) => {
  if (sent || signal === undefined || mark === undefined || !String(path).endsWith("mainsequence.cjs")) return
  sent = true
  Fs.writeFileSync(mark, `${signal} at ${at}\n`)
  process.kill(process.pid, signal)
}

const wrap = (name) => {
  const original = Fs[name]
  Fs[name] = function(path, ...rest) {
    signalOnce(path)
    return original.call(this, path, ...rest)
  }
}

wrap(at === "stat" ? "statSync" : "readFileSync")
syncBuiltinESMExports()
