/**
 * Child processes for the benchmarks: the minimal platform server, and tasks that need a process of their
 * own (a clean heap, `--expose-gc`, `--cpu-prof`, or simply not sharing a core with the parent's work).
 * Every child has a hard kill timer, and is killed by its own pid only.
 */
import { type ChildProcess, fork } from "node:child_process"
import { fileURLToPath } from "node:url"

const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url))

export interface ServerHandle {
  readonly baseUrl: string
  readonly pid: number
  readonly stop: () => Promise<void>
}

const waitExit = (child: ChildProcess, ms: number): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const t = setTimeout(() => {
      child.kill("SIGKILL")
      resolve()
    }, ms)
    child.once("exit", () => {
      clearTimeout(t)
      resolve()
    })
  })

/** Forks the minimal platform (see `servers/minimalPlatform.ts`), or another server entry, and waits for it. */
export const startServerChild = <A extends { readonly baseUrl: string } = { readonly baseUrl: string }>(
  entry = "../servers/minimalPlatformChild.js"
): Promise<ServerHandle & { readonly info: A }> =>
  new Promise((resolve, reject) => {
    const child = fork(here(entry), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${entry} did not start within 10 s`))
    }, 10_000)
    child.once("error", reject)
    child.once("message", (m: unknown) => {
      clearTimeout(timer)
      const msg = m as A
      resolve({
        info: msg,
        baseUrl: msg.baseUrl,
        pid: child.pid ?? -1,
        stop: async () => {
          child.kill("SIGTERM")
          await waitExit(child, 3000)
        }
      })
    })
  })

/**
 * Extra Node flags for every task child, from `BENCH_CHILD_NODE_FLAGS` (diagnostics only, e.g. a smaller
 * young generation to see how much of a peak is garbage not yet collected; such a run is not comparable).
 */
const childNodeFlags = (process.env.BENCH_CHILD_NODE_FLAGS ?? "").split(/\s+/).filter((flag) => flag !== "")

export interface TaskOptions {
  readonly execArgv?: ReadonlyArray<string>
  readonly timeoutMs: number
  readonly env?: NodeJS.ProcessEnv
  readonly cwd?: string
}

/**
 * Runs `task` (a module under `bench/tasks/`, exporting `run(args)`) in a fresh Node process and returns
 * what it resolves to.
 */
export const runTask = <A>(task: string, args: unknown, options: TaskOptions): Promise<A> =>
  new Promise((resolve, reject) => {
    const child = fork(here("./taskChild.js"), [task], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      execArgv: [...(options.execArgv ?? []), ...childNodeFlags],
      env: options.env ?? process.env,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {})
    })
    let settled = false
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      child.kill("SIGKILL")
      reject(new Error(`task ${task} exceeded ${options.timeoutMs} ms`))
    }, options.timeoutMs)
    child.on("message", (m: unknown) => {
      const msg = m as { ok: true; result: A } | { ok: false; error: string }
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (msg.ok) resolve(msg.result)
      else reject(new Error(`task ${task} failed: ${msg.error}`))
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      if (settled) return
      settled = true
      reject(new Error(`task ${task} exited (code ${String(code)}, signal ${String(signal)}) without a result`))
    })
    child.send({ args })
  })
