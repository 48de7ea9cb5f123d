#!/usr/bin/env node
// Runs the bundled CLI (`dist/mainsequence.mjs`, one module: a fast cold start; see scripts/bundle.mjs), or the
// compiled modules (`dist/bin.js`) when the bundle is missing or older than the last `tsc -b` of this package
// (`.tsbuild/`, present only in the workspace) — a stale bundle is never run.
import { statSync } from "node:fs"

const mtime = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs
const bundled = mtime("../dist/mainsequence.mjs")
const fresh = bundled !== undefined && bundled >= (mtime("../.tsbuild/src.tsbuildinfo") ?? 0)

await import(fresh ? "../dist/mainsequence.mjs" : "../dist/bin.js")
