/**
 * Bundles the `mainsequence` executable into one CommonJS script, `dist/mainsequence.cjs` (+ `.map`), from the
 * compiled `dist/bin.js` (run `tsc -b` first). One file instead of ~1000 modules: Node's ES module loader was
 * half of the CLI's cold start (docs/BENCHMARKS.md §3). CommonJS, not an ES module, so that `bin/mainsequence.js`
 * can compile it as a `vm.Script` with a V8 code cache (`src/runBundle.ts`; Node 20 caches no ES module's code);
 * `runBundle` gives it `require`, `module` and strict mode.
 *
 * - `@mainsequence/a2a-testing` stays external: it reads its vendored JSON schema relative to its own module,
 *   which a bundle would break; only `dev platform` loads it, with a dynamic `import()`.
 * - `import()` of `@mainsequence/a2a-testing` becomes `__mainsequence_import()`, a parameter `runBundle` gives the
 *   script: Node 20 runs no `import()` in a `vm.Script` compiled from a code cache (and warns it is experimental
 *   without one). The build fails if any other `import()` of an external module is left.
 * - Minified: less text to read, hash and scan (docs/BENCHMARKS.md, "Lean send: CLI cold start"); names are
 *   kept (`keepNames`), so `Function.name` and stack traces still read as in the sources.
 * - Source maps are linked and embed their sources, so a defect's stack trace maps back to `src/*.ts`.
 *
 * `node packages/cli/scripts/bundle.mjs` (root `build`/`test`/`demo`/`smoke` run it after `tsc -b`; `prepack` too).
 */
import { build } from "esbuild"
import { existsSync, rmSync, statSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"

const entry = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
const outfile = fileURLToPath(new URL("../dist/mainsequence.cjs", import.meta.url))

if (!existsSync(entry)) {
  console.error(`bundle: ${entry} is missing — run \`tsc -b packages/cli\` first`)
  process.exit(1)
}

/**
 * undici's entry (`require("undici")`) loads all of undici: fetch, WebSocket, caches, cookies, mocks. Its cookies
 * module reads `globalThis.Headers`, which makes Node load its own copy of undici too. The CLI (through
 * `@effect/platform-node`) uses only its dispatchers (`Agent`, `Dispatcher` with the request API, the global
 * dispatcher): this entry loads those when the bundle starts, as undici's entry does, and every other export
 * only when first read.
 */
const leanUndici = {
  name: "lean-undici",
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, async (args) => {
      if (args.pluginData === "lean-undici") return undefined
      const real = await build.resolve("undici", {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: "lean-undici"
      })
      if (real.errors.length > 0) return { errors: real.errors }
      return { path: real.path, namespace: "lean-undici" }
    })
    build.onLoad({ filter: /.*/, namespace: "lean-undici" }, (args) => {
      const root = dirname(args.path)
      const lib = (path) => JSON.stringify(join(root, "lib", path))
      const names = Object.keys(createRequire(args.path)(args.path))
      const eager = ["Dispatcher", "Agent", "errors", "getGlobalDispatcher", "setGlobalDispatcher"]
      for (const name of eager) {
        if (!names.includes(name)) throw new Error(`lean-undici: undici no longer exports ${name}`)
      }
      const contents = [
        `const Dispatcher = require(${lib("dispatcher/dispatcher.js")})`,
        `Object.assign(Dispatcher.prototype, require(${lib("api/index.js")}))`,
        `const { getGlobalDispatcher, setGlobalDispatcher } = require(${lib("global.js")})`,
        `exports.Dispatcher = Dispatcher`,
        `exports.Agent = require(${lib("dispatcher/agent.js")})`,
        `exports.errors = require(${lib("core/errors.js")})`,
        `exports.getGlobalDispatcher = getGlobalDispatcher`,
        `exports.setGlobalDispatcher = setGlobalDispatcher`,
        `for (const name of ${JSON.stringify(names.filter((name) => !eager.includes(name)))}) {`,
        `  Object.defineProperty(exports, name, { enumerable: true, get: () => require(${
          JSON.stringify(args.path)
        })[name] })`,
        `}`
      ].join("\n")
      return { contents, loader: "js", resolveDir: root }
    })
  }
}

const external = ["@mainsequence/a2a-testing", "@mainsequence/a2a-testing/*"]
const externalImport = /\bimport\((["'])(@mainsequence\/a2a-testing(?:\/[^"']*)?)\1\)/g

/** `import("@mainsequence/a2a-testing…")` in the compiled CLI → `__mainsequence_import(…)` (see above). */
const importThroughRunner = {
  name: "import-through-runner",
  setup(build) {
    build.onLoad({ filter: /[\\/]packages[\\/]cli[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, "utf8")
      return { contents: text.replace(externalImport, "__mainsequence_import($1$2$1)"), loader: "js" }
    })
  }
}

const started = performance.now()
const result = await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: "linked",
  external,
  minify: process.env.MAINSEQUENCE_BUNDLE_MINIFY !== "0",
  keepNames: true,
  plugins: [leanUndici, importThroughRunner],
  metafile: true,
  logLevel: "warning"
})
const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports)
const dynamic = imports.filter((i) => i.kind === "dynamic-import").map((i) => i.path)
if (dynamic.length > 0) {
  console.error(`bundle: import() of ${dynamic.join(", ")} left in the bundle; runBundle cannot run it`)
  process.exit(1)
}
// The ES module bundle of earlier versions: `files` would still pack its source map.
for (const old of ["mainsequence.mjs", "mainsequence.mjs.map"]) {
  rmSync(fileURLToPath(new URL(`../dist/${old}`, import.meta.url)), { force: true })
}
const mib = (statSync(outfile).size / 2 ** 20).toFixed(1)
console.log(`bundle: dist/mainsequence.cjs (${mib} MiB) in ${(performance.now() - started).toFixed(0)} ms`)
