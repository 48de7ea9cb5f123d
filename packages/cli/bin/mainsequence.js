#!/usr/bin/env node
// Runs the bundled CLI (`dist/mainsequence.cjs`, one script compiled with a V8 code cache: a fast cold start; see
// scripts/bundle.mjs and src/runBundle.ts), or the compiled modules (`dist/bin.js`) when the bundle is missing or
// older than the last `tsc -b` of this package (`.tsbuild/`, present only in the workspace) — a stale bundle is
// never run.
import { statSync } from "node:fs"
import { fileURLToPath } from "node:url"

// A signal while the CLI loads, before src/bin.ts has its own handlers, is held and then handed to them: the run
// still ends with the signal's exit code and, with --output json, its document.
let held
const hold = (signal) => {
  held ??= signal
}
const release = () => {
  process.removeListener("SIGINT", hold)
  process.removeListener("SIGTERM", hold)
}
process.on("SIGINT", hold)
process.on("SIGTERM", hold)

const bundle = new URL("../dist/mainsequence.cjs", import.meta.url)
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs
const bundled = mtime(bundle)
const fresh = bundled !== undefined && bundled >= (mtime(new URL("../.tsbuild/src.tsbuildinfo", import.meta.url)) ?? 0)

if (fresh) {
  const { cacheDirectory, runBundle } = await import("../dist/runBundle.js")
  runBundle(fileURLToPath(bundle), cacheDirectory())
} else {
  await import("../dist/bin.js")
}
release()
if (held !== undefined) process.emit(held, held)
