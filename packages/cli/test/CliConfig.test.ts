import { NodePath } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as PathPatch from "effect/ConfigProviderPathPatch"
import * as Effect from "effect/Effect"
import * as HashSet from "effect/HashSet"
import * as Redacted from "effect/Redacted"
import * as CliConfig from "../src/CliConfig.js"

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("CliConfig", () => {
  it.effect("the config directory: MAINSEQUENCE_CONFIG_DIR, else $XDG_CONFIG_HOME/mainsequence, else ~/.config", () =>
    Effect.gen(function*() {
      const dir = (env: Record<string, string>) => CliConfig.configDirectory.pipe(withEnv(env))
      expect(yield* dir({ MAINSEQUENCE_CONFIG_DIR: "/x/ms", XDG_CONFIG_HOME: "/xdg", HOME: "/home/u" })).toBe("/x/ms")
      expect(yield* dir({ XDG_CONFIG_HOME: "/xdg", HOME: "/home/u" })).toBe("/xdg/mainsequence")
      expect(yield* dir({ MAINSEQUENCE_CONFIG_DIR: "  ", HOME: "/home/u" })).toBe("/home/u/.config/mainsequence")
      // a relative XDG_CONFIG_HOME is ignored, as the XDG Base Directory spec says
      expect(yield* dir({ XDG_CONFIG_HOME: "relative/xdg", HOME: "/home/u" })).toBe("/home/u/.config/mainsequence")
    }).pipe(Effect.provide(NodePath.layer)))

  it.effect("client options come from the SDK's config; tokens stay redacted", () =>
    Effect.gen(function*() {
      const options = yield* CliConfig.clientOptions.pipe(
        withEnv({
          MAINSEQUENCE_ENDPOINT: "http://127.0.0.1:1",
          MAINSEQUENCE_ACCESS_TOKEN: "secret-access",
          MAINSEQUENCE_USERNAME: "ada"
        })
      )
      expect(options.backendUrl).toBe("http://127.0.0.1:1")
      expect(Redacted.isRedacted(options.accessToken)).toBe(true)
      expect(Redacted.isRedacted(options.accessToken) && Redacted.value(options.accessToken)).toBe("secret-access")
      expect(String(options.accessToken)).not.toContain("secret-access")
      expect(options.username).toBe("ada")
      expect(options.refreshToken).toBeUndefined()
    }))

  it.effect("a missing or blank variable is named in one line", () =>
    Effect.gen(function*() {
      const failure = (env: Record<string, string>) =>
        CliConfig.clientOptions.pipe(withEnv(env), Effect.flip, Effect.map(CliConfig.fromConfigError))
      expect((yield* failure({})).message).toBe(
        "Missing configuration: MAINSEQUENCE_ENDPOINT, MAINSEQUENCE_ACCESS_TOKEN are not set in the environment"
      )
      expect((yield* failure({ MAINSEQUENCE_ENDPOINT: "http://h" })).message).toBe(
        "Missing configuration: MAINSEQUENCE_ACCESS_TOKEN is not set in the environment"
      )
      const blank = yield* failure({ MAINSEQUENCE_ENDPOINT: "", MAINSEQUENCE_ACCESS_TOKEN: "t" })
      expect(blank.message).toMatch(/MAINSEQUENCE_ENDPOINT/)
      expect(blank.message).not.toContain("\n")
    }))

  it.effect("an endpoint that is not an http(s) base URL is named in one line, without its value", () =>
    Effect.gen(function*() {
      const failure = (endpoint: string) =>
        CliConfig.clientOptions.pipe(
          withEnv({ MAINSEQUENCE_ENDPOINT: endpoint, MAINSEQUENCE_ACCESS_TOKEN: "t" }),
          Effect.flip,
          Effect.map(CliConfig.fromConfigError)
        )
      expect((yield* failure("api.main-sequence.app")).message).toBe(
        "Invalid configuration: MAINSEQUENCE_ENDPOINT is not an absolute URL; it must be an absolute http: or " +
          "https: URL"
      )
      expect((yield* failure("localhost:8080")).message).toBe(
        "Invalid configuration: MAINSEQUENCE_ENDPOINT is a host and a port without a scheme; it must be an absolute " +
          "http: or https: URL, such as http://host:port"
      )
      expect((yield* failure("ftp://user:secret@h")).message).toBe(
        "Invalid configuration: MAINSEQUENCE_ENDPOINT has the scheme ftp:; it must be an absolute http: or https: URL"
      )
      expect((yield* failure("https://h/?tenant=1")).message).toBe(
        "Invalid configuration: MAINSEQUENCE_ENDPOINT has a query or a fragment; it must be the backend's base " +
          "URL, such as https://api.main-sequence.app"
      )
      const options = yield* CliConfig.clientOptions.pipe(
        withEnv({ MAINSEQUENCE_ENDPOINT: " https://h/prefix/ ", MAINSEQUENCE_ACCESS_TOKEN: "t" })
      )
      expect(options.backendUrl).toBe(" https://h/prefix/ ")
    }))

  it.effect("an access token is read trimmed; one an HTTP header cannot carry is named in one line, never shown", () =>
    Effect.gen(function*() {
      const read = (token: string) =>
        CliConfig.clientOptions.pipe(withEnv({ MAINSEQUENCE_ENDPOINT: "https://h", MAINSEQUENCE_ACCESS_TOKEN: token }))
      const options = yield* read(" user-token-1\r\n")
      expect(Redacted.isRedacted(options.accessToken) && Redacted.value(options.accessToken)).toBe("user-token-1")
      for (const token of ["user\ntoken-1", "user token-1", "tök€n-1"]) {
        const error = CliConfig.fromConfigError(yield* Effect.flip(read(token)))
        expect(error.message).toBe(
          "Invalid configuration: MAINSEQUENCE_ACCESS_TOKEN must be visible ASCII characters without spaces or line " +
            "breaks (it is sent as a Bearer credential)"
        )
        expect(error.message).not.toContain("token-1")
      }
    }))

  it.effect("the variables the CLI knows are the ones it reads: the SDK's config and the config directory", () =>
    Effect.gen(function*() {
      const read = new Set<string>()
      const recording = ConfigProvider.fromFlat(ConfigProvider.makeFlat({
        load: (path) => {
          read.add(path.join("_"))
          return Effect.fail(ConfigError.MissingData([...path], "not set"))
        },
        enumerateChildren: () => Effect.succeed(HashSet.empty()),
        patch: PathPatch.empty
      }))
      yield* Effect.exit(CliConfig.clientOptions.pipe(Effect.withConfigProvider(recording)))
      yield* Effect.exit(CliConfig.configDirectory.pipe(Effect.withConfigProvider(recording)))
      expect([...read].filter((name) => name.startsWith("MAINSEQUENCE_")).sort()).toEqual(
        [...CliConfig.variables].sort()
      )
    }).pipe(Effect.provide(NodePath.layer)))

  it.effect("a MAINSEQUENCE_* variable set but not read is named, with the variable it is 2 edits from", () =>
    Effect.gen(function*() {
      const env = {
        MAINSEQUENCE_ENDPIONT: "https://h",
        MAINSEQUENCE_ACCESS_TOKEN: "t",
        MAINSEQUENCE_REFRESH_TOEKN: "r",
        MAINSEQUENCE_TOKEN: "t",
        MAINSEQUENCEX: "x",
        OTHER_MAINSEQUENCE_ENDPOINT: "x",
        PATH: "/bin"
      }
      const expected = [
        { name: "MAINSEQUENCE_ENDPIONT", closest: "MAINSEQUENCE_ENDPOINT" },
        { name: "MAINSEQUENCE_REFRESH_TOEKN", closest: "MAINSEQUENCE_REFRESH_TOKEN" },
        { name: "MAINSEQUENCE_TOKEN", closest: undefined }
      ]
      // As a map names them whole, and as the environment provider splits them at "_".
      for (const pathDelim of [".", "_"]) {
        const provider = ConfigProvider.fromMap(new Map(Object.entries(env)), { pathDelim })
        const unread = yield* CliConfig.unreadVariables.pipe(Effect.withConfigProvider(provider))
        expect(unread.map(({ closest, name }) => ({ name, closest })), pathDelim).toEqual(expected)
      }
      expect(CliConfig.unreadLine({ name: "MAINSEQUENCE_ENDPIONT", closest: "MAINSEQUENCE_ENDPOINT" })).toBe(
        "MAINSEQUENCE_ENDPIONT is set but not read (did you mean MAINSEQUENCE_ENDPOINT?)"
      )
      expect(CliConfig.unreadLine({ name: "MAINSEQUENCE_TOKEN" })).toBe("MAINSEQUENCE_TOKEN is set but not read")
      const known = Object.fromEntries(CliConfig.variables.map((name) => [name, "x"]))
      expect(yield* CliConfig.unreadVariables.pipe(withEnv(known))).toEqual([])
    }))

  it.effect("a missing variable's error names the MAINSEQUENCE_* variables set but not read", () =>
    Effect.gen(function*() {
      const env = { MAINSEQUENCE_ENDPIONT: "https://h", MAINSEQUENCE_ACCESS_TOKEN: "t", MAINSEQUENCE_URL: "u" }
      const error = yield* CliConfig.clientOptions.pipe(
        Effect.catchAll(CliConfig.failWith),
        withEnv(env),
        Effect.flip
      )
      expect(error.message).toBe(
        "Missing configuration: MAINSEQUENCE_ENDPOINT is not set in the environment; MAINSEQUENCE_ENDPIONT is set " +
          "but not read (did you mean MAINSEQUENCE_ENDPOINT?); MAINSEQUENCE_URL is set but not read"
      )
      expect(error.unread).toEqual([
        { name: "MAINSEQUENCE_ENDPIONT", closest: "MAINSEQUENCE_ENDPOINT" },
        { name: "MAINSEQUENCE_URL" }
      ])
      const invalid = yield* CliConfig.clientOptions.pipe(
        Effect.catchAll(CliConfig.failWith),
        withEnv({ ...env, MAINSEQUENCE_ENDPOINT: "ftp://h" }),
        Effect.flip
      )
      expect(invalid.message).toBe(
        "Invalid configuration: MAINSEQUENCE_ENDPOINT has the scheme ftp:; it must be an absolute http: or https: URL"
      )
    }))
})
