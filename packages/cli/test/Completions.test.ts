import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./support/runCli.js"

// What bash offers at the end of `line` (the last word is the one being completed), with the script sourced.
const offered = (script: string, line: ReadonlyArray<string>): ReadonlyArray<string> => {
  const driver = `${script}
COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=()
_mainsequence_completions mainsequence "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"`
  return execFileSync("bash", ["-c", driver, "bash", "mainsequence", ...line], { encoding: "utf8" })
    .split("\n").filter((word) => word !== "")
}

const uid = "0b2701a1-e777-4cfe-8437-b94025f00069"

const hasZsh = spawnSync("zsh", ["-c", "true"]).status === 0
const hasFish = spawnSync("fish", ["--no-config", "-c", "true"]).status === 0

describe("--completions", () => {
  it.scoped("bash: each group's commands at every depth, each command's flags, a flag's choices", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* runCli(["--completions", "bash"])
      expect(exitCode).toBe(0)
      expect(offered(stdout, [""])).toEqual(["agent", "dev", "--help", "--version"])
      expect(offered(stdout, ["agent", "session", "a2a", ""])).toEqual(["send", "task", "--help", "--version"])
      expect(offered(stdout, ["agent", "session", "a2a", "task", "w"])).toEqual(["wait"])
      expect(offered(stdout, ["dev", "platform", "--p"])).toEqual(["--port"])
      expect(offered(stdout, ["agent", "session", "a2a", "task", "get", uid, "t-1", "--"])).toEqual([
        "--timeout",
        "--output",
        "--debug",
        "--help"
      ])
      // a flag's value is never taken for a command: `--message task` stays in send
      expect(offered(stdout, ["agent", "session", "a2a", "send", uid, "--message", "task", "--response-k"]))
        .toEqual(["--response-kind"])
      expect(offered(stdout, ["agent", "session", "a2a", "send", uid, "--response-kind", ""])).toEqual([
        "message",
        "task"
      ])
      expect(offered(stdout, ["agent", "session", "a2a", "send", uid, "-o", "t"])).toEqual(["text"])
      // a path or a text: nothing of ours, so the shell offers file names
      expect(offered(stdout, ["agent", "session", "a2a", "send", uid, "--message-file", ""])).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("zsh: the bash script through bashcompinit; --completions=SHELL works too", () =>
    Effect.gen(function*() {
      const bash = yield* runCli(["--completions", "bash"])
      const zsh = yield* runCli(["--completions=zsh"])
      expect(zsh.exitCode).toBe(0)
      expect(zsh.stdout).toBe(`autoload -U +X bashcompinit && bashcompinit\n${bash.stdout}`)
    }).pipe(Effect.provide(NodeContext.layer)))

  // CI installs zsh (.ci/run); bashcompinit's `compgen -F` runs the function as zsh completion does.
  it.scoped.skipIf(!hasZsh)("zsh: offers each group's commands and a flag's choices", () =>
    Effect.gen(function*() {
      const { stdout } = yield* runCli(["--completions", "zsh"])
      const home = mkdtempSync(path.join(os.tmpdir(), "zsh-home-"))
      const inZsh = (line: ReadonlyArray<string>) =>
        execFileSync("zsh", [
          "-c",
          `autoload -U compinit && compinit -u\n${stdout}\nCOMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))\n` +
          "compgen -F _mainsequence_completions -- \"${@[-1]}\"",
          "zsh",
          "mainsequence",
          ...line
        ], { encoding: "utf8", env: { ...process.env, HOME: home, ZDOTDIR: home } }).split("\n").filter((w) => w !== "")
      expect(inZsh(["agent", "session", "a2a", ""])).toEqual(["send", "task", "--help", "--version"])
      expect(inZsh(["agent", "session", "a2a", "send", "uid", "-o", ""])).toEqual(["json", "text"])
      rmSync(home, { recursive: true, force: true })
    }).pipe(Effect.provide(NodeContext.layer)))

  // CI installs fish (.ci/run); `complete -C` lists what fish offers for a command line.
  it.scoped.skipIf(!hasFish)(
    "fish: each group's commands at every depth, each command's flags, a flag's choices",
    () =>
      Effect.gen(function*() {
        const { exitCode, stdout } = yield* runCli(["--completions", "fish"])
        expect(exitCode).toBe(0)
        const file = path.join(mkdtempSync(path.join(os.tmpdir(), "fish-")), "mainsequence.fish")
        writeFileSync(file, stdout)
        const inFish = (line: string) =>
          execFileSync("fish", ["--no-config", "-c", `source ${file}; complete -C '${line}'`], { encoding: "utf8" })
            .split("\n").filter((word) => word !== "").map((entry) => entry.split("\t")[0])
        expect(inFish("mainsequence ")).toEqual(["agent", "dev"])
        expect(inFish("mainsequence agent session a2a ")).toEqual(["send", "task"])
        expect(inFish("mainsequence agent session a2a task w")).toEqual(["wait"])
        expect(inFish("mainsequence dev platform --")).toEqual(["--help", "--port"])
        expect(inFish(`mainsequence agent session a2a send ${uid} --message task --resp`)).toEqual(["--response-kind"])
        expect(inFish(`mainsequence agent session a2a send ${uid} --response-kind `)).toEqual(["message", "task"])
        expect(inFish(`mainsequence agent session a2a send ${uid} -o `)).toEqual(["json", "text"])
        rmSync(path.dirname(file), { recursive: true, force: true })
      }).pipe(Effect.provide(NodeContext.layer))
  )

  it.scoped("the top-level help names it", () =>
    Effect.gen(function*() {
      const { stdout } = yield* runCli(["--help"])
      expect(stdout).toContain(
        "--completions bash | zsh | fish\n\n  A completion script for the shell: source <(mainsequence --completions bash)"
      )
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("another shell, or none, is a usage error naming the shells", () =>
    Effect.gen(function*() {
      for (const args of [["--completions", "powershell"], ["--completions"]]) {
        const result = yield* runCli(args)
        expect([args, result.exitCode, result.stdout]).toEqual([args, 2, ""])
        expect(result.stderr).toMatch(
          /^Invalid --completions( 'powershell')?: use bash, zsh, fish \(see mainsequence --help\)\n$/
        )
      }
    }).pipe(Effect.provide(NodeContext.layer)))
})
