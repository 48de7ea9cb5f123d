/**
 * Bundles the `mainsequence` executable into one ES module, `dist/mainsequence.mjs` (+ `.map`), from the
 * compiled `dist/bin.js` (run `tsc -b` first). One file instead of ~1000 modules: Node's ES module loader was
 * half of the CLI's cold start (docs/BENCHMARKS.md §3).
 *
 * - `@mainsequence/a2a-testing` stays external: it reads its vendored JSON schema relative to its own module,
 *   which a bundle would break; only `dev platform` loads it, with a dynamic `import()`.
 * - CommonJS dependencies (undici, ws) call `require()`: the banner gives the ESM bundle one.
 * - Source maps are linked and embed their sources, so a defect's stack trace maps back to `src/*.ts`.
 *
 * `node packages/cli/scripts/bundle.mjs` (root `build`/`test`/`demo`/`smoke` run it after `tsc -b`; `prepack` too).
 */
import { build } from "esbuild"
import { existsSync, statSync } from "node:fs"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"

const entry = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
const outfile = fileURLToPath(new URL("../dist/mainsequence.mjs", import.meta.url))

if (!existsSync(entry)) {
  console.error(`bundle: ${entry} is missing — run \`tsc -b packages/cli\` first`)
  process.exit(1)
}

const started = performance.now()
await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  external: ["@mainsequence/a2a-testing", "@mainsequence/a2a-testing/*"],
  banner: {
    js: "import { createRequire as __mainsequence_createRequire } from \"node:module\";\n" +
      "const require = __mainsequence_createRequire(import.meta.url);"
  },
  logLevel: "warning"
})
const mib = (statSync(outfile).size / 2 ** 20).toFixed(1)
console.log(`bundle: dist/mainsequence.mjs (${mib} MiB) in ${(performance.now() - started).toFixed(0)} ms`)
