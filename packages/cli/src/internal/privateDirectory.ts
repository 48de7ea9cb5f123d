/**
 * A directory (0700 when made here), with its missing parents. Not `mkdir` with `recursive: true`: Node's
 * retries forever where the kernel refuses a new entry with ENOENT in a directory that exists (under `/proc`).
 * Plain Node: `runBundle.ts` uses it before anything of Effect is loaded.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

const codeOf = (error: unknown): unknown =>
  typeof error === "object" && error !== null && "code" in error ? error.code : undefined

const makeOne = (directory: string): void => {
  try {
    Fs.mkdirSync(directory, { mode: 0o700 })
  } catch (error) {
    if (codeOf(error) !== "EEXIST") throw error
  }
}

/** Throws what `mkdirSync` throws; an existing entry at `directory` is left as it is (the caller checks it). */
export const makePrivateDirectory = (directory: string): void => {
  try {
    makeOne(directory)
  } catch (error) {
    const parent = Path.dirname(directory)
    if (codeOf(error) !== "ENOENT" || parent === directory) throw error
    makePrivateDirectory(parent)
    makeOne(directory)
  }
}
