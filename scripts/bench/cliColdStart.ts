/**
 * Benchmark 3: CLI cold start — wall time of one `mainsequence agent session a2a send` process against a
 * ready session of the reference platform (own process, real HTTP), vs the floor: `node -e` doing one
 * `fetch` of the same runtime request. Also: bare `node -e 0`, importing the CLI's modules without running
 * anything, the CLI's unbundled modules (`node packages/cli/dist/bin.js`: what `mainsequence` ran before it
 * shipped bundled), the ES module bundle it ran before the code cache (rebuilt here the way it was built), and a
 * CPU profile of one CLI run. `mainsequence` itself runs the esbuild bundle `packages/cli/dist/mainsequence.cjs`
 * (`packages/cli/scripts/bundle.mjs`) through `runBundle`, with a V8 code cache in `$XDG_CACHE_HOME` (here a
 * directory of the harness; "no code cache" points it at a path that cannot be created).
 */
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startServerChild } from "./lib/child.js"
import type { BenchContext, Section } from "./lib/context.js"
import { summarizeProfile } from "./lib/cpuProfile.js"
import { fmtBytes, fmtMs, fmtRatio, median, summarize } from "./lib/stats.js"
import { table } from "./lib/table.js"
import { MESSAGE_TEXT, RESPONSE_KIND_EXTENSION, runtimeUrl } from "./sides/side.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const cliBin = join(root, "packages/cli/bin/mainsequence.js")
const cliModules = join(root, "packages/cli/dist/Cli.js")
const cliUnbundled = join(root, "packages/cli/dist/bin.js")
const cliBundle = join(root, "packages/cli/dist/mainsequence.cjs")
const outDir = fileURLToPath(new URL("./cli-bundle/", import.meta.url))

interface RunResult {
  readonly wallMs: number
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const runProcess = (cmd: ReadonlyArray<string>, env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<RunResult> =>
  new Promise((resolve, reject) => {
    const [file, ...args] = cmd
    const t0 = performance.now()
    const child = spawn(file ?? process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.once("error", reject)
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ wallMs: performance.now() - t0, code, stdout, stderr })
    })
  })

/** esbuild from the workspace's own install; undefined when absent. */
const findEsbuild = (): string | undefined => {
  const pnpmDir = join(root, "node_modules/.pnpm")
  if (!existsSync(pnpmDir)) return undefined
  const dir = readdirSync(pnpmDir).find((d) => d.startsWith("esbuild@"))
  const bin = dir === undefined ? undefined : join(pnpmDir, dir, "node_modules/esbuild/bin/esbuild")
  return bin !== undefined && existsSync(bin) ? bin : undefined
}

interface Bundle {
  readonly file: string
  readonly bytes: number
  readonly buildMs: number
  /** How many modules the unbundled CLI loads: its import graph as esbuild sees it. */
  readonly modules: number
}

/**
 * Bundles the unbundled CLI's entry (`dist/bin.js`) to count its import graph, the way `mainsequence` was bundled
 * before the code cache (one ES module, not minified): the "before" row runs it.
 */
const bundleCli = async (minify: boolean): Promise<Bundle | undefined> => {
  const esbuild = findEsbuild()
  if (esbuild === undefined) return undefined
  mkdirSync(outDir, { recursive: true })
  const file = join(outDir, minify ? "mainsequence.min.mjs" : "mainsequence.mjs")
  const r = await runProcess(
    [
      esbuild,
      cliUnbundled,
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--target=node20",
      `--outfile=${file}`,
      `--metafile=${file}.meta.json`,
      "--log-level=error",
      ...(minify ? ["--minify"] : []),
      // CommonJS dependencies (undici, ws) call require(): give the ESM bundle one.
      "--banner:js=import { createRequire as __bench_createRequire } from 'node:module'; const require = __bench_createRequire(import.meta.url);"
    ],
    process.env,
    120_000
  )
  if (r.code !== 0) throw new Error(`esbuild failed: ${r.stderr}`)
  const meta = JSON.parse(readFileSync(`${file}.meta.json`, "utf8")) as { inputs: object }
  return { file, bytes: statSync(file).size, buildMs: r.wallMs, modules: Object.keys(meta.inputs).length }
}

const FLOOR_SCRIPT = "fetch(process.env.B_URL,{method:'POST',headers:{authorization:'Bearer '+process.env.B_TOKEN," +
  "'content-type':'application/a2a+json',accept:'application/a2a+json','a2a-extensions':process.env.B_EXT,'a2a-version':'1.0'}," +
  "body:JSON.stringify({message:{messageId:'msg-'+crypto.randomUUID(),role:'ROLE_USER',contextId:process.env.B_UID," +
  "parts:[{text:process.env.B_TEXT}]},configuration:{acceptedOutputModes:['text/plain'],responseKind:'message'}})})" +
  ".then(r=>r.json()).then(j=>process.stdout.write(JSON.stringify(j,null,2)+'\\n'))"

interface Variant {
  readonly id: string
  readonly label: string
  readonly cmd: () => ReadonlyArray<string>
  readonly env: () => NodeJS.ProcessEnv
  /** Expect an A2A answer on stdout. */
  readonly answers: boolean
}

export const cliColdStart = async (ctx: BenchContext): Promise<Section> => {
  const title = "3. CLI cold start (one send per process)"
  if (!ctx.cliAvailable || !existsSync(cliBin)) {
    return {
      id: "cli",
      title,
      body: "Not measured: CLI or reference platform not built.",
      data: undefined,
      targets: [{ target: "CLI cold start ≤ 2.5× node -e fetch", met: undefined, detail: "not built" }]
    }
  }
  const ref = await startServerChild<{ baseUrl: string; sessionUid: string; userToken: string }>(
    "../servers/referencePlatformChild.js"
  )
  const tmp = mkdtempSync(join(tmpdir(), "ms-bench-cli-"))
  try {
    const { sessionUid, userToken } = ref.info
    const resolved = await fetch(`${ref.baseUrl}/api/v1/agent-sessions/${sessionUid}/resolve-runtime-access/`, {
      method: "POST",
      headers: { authorization: `Bearer ${userToken}`, "content-type": "application/json" },
      body: "{}"
    })
    const access = (await resolved.json()) as { rpc_url: string; token: string }
    const baseEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", HOME: tmp }
    const codeCache = join(tmp, "xdg-cache")
    // A file where the cache directory's parent should be: the code cache can never be written nor read.
    const noCodeCache = join(tmp, "no-cache-here")
    writeFileSync(noCodeCache, "")
    let firstRuns = 0
    const cliEnv = (configDir: string, xdgCache = codeCache): NodeJS.ProcessEnv => ({
      ...baseEnv,
      XDG_CACHE_HOME: xdgCache,
      MAINSEQUENCE_ENDPOINT: ref.baseUrl,
      MAINSEQUENCE_ACCESS_TOKEN: userToken,
      MAINSEQUENCE_CONFIG_DIR: configDir
    })
    const sendArgs = ["agent", "session", "a2a", "send", sessionUid, "--message", MESSAGE_TEXT]
    let fresh = 0
    const freshDir = () => join(tmp, `cold-${fresh++}`)
    const warmDir = join(tmp, "warm")
    const unbundledWarmDir = join(tmp, "unbundled-warm")
    const esmWarmDir = join(tmp, "esm-warm")

    // Short mode only checks that the CLI and the floor run: no module count, no profile.
    const bundle = ctx.short ? undefined : await bundleCli(false).catch((e: unknown) => {
      ctx.log(`cli: bundling failed: ${String(e)}`)
      return undefined
    })
    const modules = bundle?.modules

    const variants: Array<Variant> = [
      {
        id: "node",
        label: "`node -e 0` (bare Node start)",
        cmd: () => [process.execPath, "-e", "0"],
        env: () => baseEnv,
        answers: false
      },
      {
        id: "floor",
        label: "floor: `node -e` one `fetch` of message:send",
        cmd: () => [process.execPath, "-e", FLOOR_SCRIPT],
        env: () => ({
          ...baseEnv,
          B_URL: runtimeUrl(access.rpc_url, "/api/a2a/v1/message:send"),
          B_TOKEN: access.token,
          B_EXT: RESPONSE_KIND_EXTENSION,
          B_UID: sessionUid,
          B_TEXT: MESSAGE_TEXT
        }),
        answers: true
      },
      {
        id: "import",
        label: "import the CLI's modules only (`packages/cli/dist/Cli.js`, nothing run)",
        cmd: () => [
          process.execPath,
          "--input-type=module",
          "-e",
          `await import(${JSON.stringify(pathToFileURL(cliModules).href)})`
        ],
        env: () => baseEnv,
        answers: false
      },
      {
        id: "unbundled-warm",
        label: "before: unbundled modules (`node packages/cli/dist/bin.js … send`), access cached",
        cmd: () => [process.execPath, cliUnbundled, ...sendArgs],
        env: () => cliEnv(unbundledWarmDir),
        answers: true
      },
      {
        id: "unbundled-cold",
        label: "before: unbundled modules, empty cache",
        cmd: () => [process.execPath, cliUnbundled, ...sendArgs],
        env: () => cliEnv(freshDir()),
        answers: true
      },
      ...(bundle === undefined ? [] : [{
        id: "esm-warm",
        label: "before: one ES module bundle, no code cache (`mainsequence` until now), access cached",
        cmd: () => [process.execPath, bundle.file, ...sendArgs],
        env: () => cliEnv(esmWarmDir),
        answers: true
      }]),
      {
        id: "cli-nocache",
        label: "`mainsequence … send`, code cache unusable (unwritable cache dir), access cached",
        cmd: () => [process.execPath, cliBin, ...sendArgs],
        env: () => cliEnv(warmDir, noCodeCache),
        answers: true
      },
      {
        id: "cli-first",
        label: "`mainsequence … send`, first run: no code cache yet (written at exit), access cached",
        cmd: () => [process.execPath, cliBin, ...sendArgs],
        env: () => cliEnv(warmDir, join(tmp, `first-${firstRuns++}`)),
        answers: true
      },
      {
        id: "cli-warm",
        label: "`mainsequence … send` (bundle + code cache), access cached (1 request)",
        cmd: () => [process.execPath, cliBin, ...sendArgs],
        env: () => cliEnv(warmDir),
        answers: true
      },
      {
        id: "cli-cold",
        label: "`mainsequence … send` (bundle + code cache), empty access cache (resolve + send)",
        cmd: () => [process.execPath, cliBin, ...sendArgs],
        env: () => cliEnv(freshDir()),
        answers: true
      }
    ]
    if (ctx.short) {
      for (const id of ["import", "unbundled-warm", "unbundled-cold", "cli-nocache", "cli-first"]) {
        variants.splice(variants.findIndex((v) => v.id === id), 1)
      }
    }
    // Prime the warm caches and check every variant works once.
    for (const v of variants) {
      const r = await runProcess(v.cmd(), v.env())
      if (r.code !== 0) throw new Error(`${v.id} failed (exit ${String(r.code)}): ${r.stderr.slice(0, 500)}`)
      if (v.answers && !r.stdout.includes("ROLE_AGENT")) {
        throw new Error(`${v.id}: no A2A answer on stdout: ${r.stdout.slice(0, 300)}`)
      }
    }
    const rounds = ctx.short ? 1 : 15
    const walls = new Map<string, Array<number>>(variants.map((v) => [v.id, []]))
    for (let round = 0; round < rounds; round++) {
      const order = [...variants].sort(() => Math.random() - 0.5)
      for (const v of order) {
        const r = await runProcess(v.cmd(), v.env())
        if (r.code !== 0) throw new Error(`${v.id} failed (exit ${String(r.code)}): ${r.stderr.slice(0, 500)}`)
        walls.get(v.id)?.push(r.wallMs)
      }
    }
    // One profiled CLI run (access cached). Node's options name the code cache file (see runBundle.ts): a first
    // run with the same options writes it, then its profile is dropped.
    const profDir = join(tmp, "prof")
    if (!ctx.short) {
      for (const _ of ["write the code cache", "profile"]) {
        rmSync(profDir, { recursive: true, force: true })
        await runProcess([
          process.execPath,
          "--cpu-prof",
          `--cpu-prof-dir=${profDir}`,
          "--cpu-prof-interval=200",
          cliBin,
          ...sendArgs
        ], cliEnv(warmDir))
      }
    }
    const profFile = ctx.short ? undefined : readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"))
    const prof = profFile === undefined ? undefined : summarizeProfile(join(profDir, profFile), 12)

    const codeCacheDir = join(codeCache, "mainsequence", "code-cache")
    const codeCacheFile = existsSync(codeCacheDir)
      ? readdirSync(codeCacheDir).find((f) => f.endsWith(".v8cache"))
      : undefined
    const codeCacheBytes = codeCacheFile === undefined ? undefined : statSync(join(codeCacheDir, codeCacheFile)).size
    const med = (id: string) => median(walls.get(id) ?? [])
    const floor = med("floor")
    const rows = variants.map((v) => {
      const s = summarize(walls.get(v.id) ?? [])
      return [v.label, String(s.n), fmtMs(s.median), fmtMs(s.min), fmtMs(s.max), fmtRatio(s.median / floor)]
    })
    const loaderMs = prof?.inclusiveByModule.filter((r) => r.key.startsWith("node:internal/modules/")).reduce(
      (m, r) => Math.max(m, r.ms),
      0
    )
    const body = [
      table(["command", "runs", "median", "min", "max", "÷ floor"], rows),
      "",
      `Each a fresh \`node\` process, ${
        Math.max(rounds, 1)
      } round(s) in shuffled order, wall time from spawn to exit, against the ` +
      "reference platform (`serveReferencePlatform`, its own process) and its ready demo session. The floor fetches " +
      "with the access the harness resolved once. \"Empty access cache\" = a fresh `MAINSEQUENCE_CONFIG_DIR` per " +
      "run; \"first run\" = a fresh `XDG_CACHE_HOME` per run (no code cache yet; the run writes it at exit).",
      "",
      `\`mainsequence\` runs the minified CommonJS bundle \`packages/cli/dist/mainsequence.cjs\` (${
        existsSync(cliBundle) ? fmtBytes(statSync(cliBundle).size) : "missing!"
      }) as a \`vm.Script\` with its V8 code cache (${
        codeCacheBytes === undefined ? "not found!" : fmtBytes(codeCacheBytes)
      }; \`@mainsequence/a2a-testing\` stays external, loaded only by \`dev platform\`)` +
      (bundle === undefined
        ? "."
        : `; unbundled, the CLI loads ${modules ?? "?"} modules (esbuild's count of \`dist/bin.js\`'s import ` +
          `graph; bundling it all took ${fmtMs(bundle.buildMs)}).`),
      ...(prof === undefined ? [] : [
        "",
        `CPU profile of one CLI run (access cached, code cache used): ${fmtMs(prof.busyMs)} on the main thread; ` +
        `${fmtMs(loaderMs ?? NaN)} of it under the ES module loader (node:internal/modules/*).`,
        "",
        table(
          ["module (inclusive)", "time", "share of busy"],
          prof.inclusiveByModule.slice(0, 10).map((r) => [
            r.key,
            fmtMs(r.ms),
            `${(100 * r.share).toFixed(1)} %`
          ])
        ),
        "",
        table(
          ["package (self time)", "time", "share of busy"],
          prof.selfByPackage.slice(0, 10).map((r) => [
            r.key,
            fmtMs(r.ms),
            `${(100 * r.share).toFixed(1)} %`
          ])
        )
      ])
    ].join("\n")
    const ratio = med("cli-warm") / floor
    const unbundled = med("unbundled-warm") / floor
    const esm = med("esm-warm") / floor
    return {
      id: "cli",
      title,
      body,
      data: { walls: Object.fromEntries(walls), modules, bundle, profile: prof },
      targets: [{
        target: "CLI cold start ≤ 1.75× `node -e fetch` floor",
        met: ratio <= 1.75,
        detail: `${fmtRatio(ratio)} (code cache, cached access; empty access cache ${
          fmtRatio(med("cli-cold") / floor)
        }; code cache unusable ${fmtRatio(med("cli-nocache") / floor)}; ES module bundle before ${
          fmtRatio(esm)
        }; unbundled ${fmtRatio(unbundled)})`
      }]
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
    await ref.stop()
  }
}
