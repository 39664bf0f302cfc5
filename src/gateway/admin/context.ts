import os from 'node:os'
import type { User } from '../../contract/auth'
import type { PlaygroundEvent } from '../../contract/playground'
import type { Gateway } from '../gateway'
import type { ClientAbort } from '../upstream/clientAbort'
import type { SignInThrottle } from '../auth/throttle'
import type { LogRotation } from '../rotatingLog'

/** What the gateway says of itself: where it listens, its version, where it keeps data and its log. */
export interface GatewayStatus {
  base_url: string
  version: string
  data_dir: string
  /** Null when the log goes to standard output. */
  log_file: string | null
  /** Null when the log is not rotated (standard output, or a file rotation is turned off for). */
  log_rotation: { max_bytes: number; keep: number } | null
  /** Where Prometheus scrapes this gateway, and whether it needs the token (never the token); null while metrics are off. */
  metrics: { url: string; token_required: boolean } | null
}

/** The log's rotation as the status shows it. */
export const logRotationStatus = (rotation: LogRotation | null): GatewayStatus['log_rotation'] =>
  rotation && { max_bytes: rotation.maxBytes, keep: rotation.keep }

/** Who is calling, as the transport established it. */
export interface Caller {
  user: User | null
  /** The session token the call came with, so sign-out can end it. */
  sessionToken: string | null
  /** Client address, for sign-in throttling ('local' for the CLI and the desktop window). */
  address: string
  /**
   * The person at this machine's shell (the CLI): as trusted as the store's file permissions
   * make them, so an admin, but not a dashboard user: keys they create belong to no user.
   */
  operator?: boolean
}

/** A session the transport must set (cookie, keychain) or clear after the call. */
export type SessionChange = { set: { token: string; expires_at: number; remember: boolean } } | { clear: true }

export interface AdminContext {
  gw: Gateway
  caller: Caller
  session: SessionChange | null
  /** Streaming operations deliver their events here. */
  emit: (event: PlaygroundEvent) => void
  /** Fires when the caller of a streaming operation gives up (Stop, a closed page): the upstream call ends. */
  abort: ClientAbort
  status: GatewayStatus
  throttle: SignInThrottle
}

/** The signed-in user; the dispatcher checks access before a handler runs. */
export const me = (ctx: AdminContext): User => ctx.caller.user!
export const isAdmin = (ctx: AdminContext) => ctx.caller.user?.role === 'admin'

/** Who made a change, for ledgers and preset history: the operator's name is already `cli:<login>`; dashboard users are `user:<name>`. */
export const actorOf = (ctx: AdminContext) => (ctx.caller.operator ? me(ctx).username : `user:${me(ctx).username}`)

/** The local operator (the CLI, or a caller presenting the running gateway's operator token): an admin that owns nothing. */
export const operatorCaller = (address = 'local'): Caller => ({
  user: { id: 'operator', username: `cli:${os.userInfo().username}`, role: 'admin', created_at: 0 },
  sessionToken: null,
  address,
  operator: true,
})
