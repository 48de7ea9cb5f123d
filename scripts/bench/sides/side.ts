/**
 * A "side" is one client under test: it sends direct Messages to one ready session of the minimal
 * platform, in blocks, recording each send's wall latency.
 */
import { randomUUID } from "node:crypto"

export interface Target {
  /** The minimal platform (backend) base URL. */
  readonly baseUrl: string
  readonly sessionUid: string
  readonly userToken: string
  /** The admitted access (what a warm access cache holds), for the sides that have no resolve step. */
  readonly rpcUrl: string
  readonly runtimeToken: string
}

/** Options of the sides that have them (ours: the Node layer's per-origin connection limit). */
export interface SideOptions {
  readonly maxConnectionsPerOrigin?: number | undefined
}

export interface Side {
  readonly name: string
  /** Runs `n` sequential sends; pushes each one's latency in milliseconds to `out`. */
  readonly block: (n: number, out: Array<number>) => Promise<void>
  readonly close: () => Promise<void>
}

export const MESSAGE_TEXT = "What can you do?"
export const RESPONSE_KIND_EXTENSION = "https://mainsequence.ai/a2a/extensions/response-kind/v1"

/** The body of one direct-Message send to session `uid`, as JSON text (a fresh message id each time). */
export const sendBody = (uid: string): string =>
  JSON.stringify({
    message: { messageId: `msg-${randomUUID()}`, role: "ROLE_USER", contextId: uid, parts: [{ text: MESSAGE_TEXT }] },
    configuration: { acceptedOutputModes: ["text/plain"], responseKind: "message" }
  })

/** Joins a path onto the opaque `rpc_url` the SPEC §3 way: trim its trailing `/`, append. */
export const runtimeUrl = (rpcUrl: string, path: string): string => rpcUrl.replace(/\/+$/, "") + path
