/**
 * Child-process entry for `runTask`: imports `../tasks/<name>.js`, runs its `run(args)` and sends the
 * result back over IPC.
 */
const task = process.argv[2] ?? ""

process.once("message", (m: unknown) => {
  const { args } = m as { args: unknown }
  void (async () => {
    try {
      const mod = (await import(`../tasks/${task}.js`)) as { run: (args: unknown) => Promise<unknown> }
      const result = await mod.run(args)
      process.send?.({ ok: true, result }, undefined, undefined, () => process.exit(0))
    } catch (e) {
      const error = e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ""}` : String(e)
      process.send?.({ ok: false, error }, undefined, undefined, () => process.exit(1))
    }
  })()
})
