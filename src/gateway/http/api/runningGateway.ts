import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/** Where a running gateway says it listens, in its data dir. */
export const RUNNING_FILE = 'gateway.json'

/** The header that carries the operator token on `POST /api/<operation>`. */
export const OPERATOR_HEADER = 'x-gw-operator'

export interface RunningGateway {
  url: string
  pid: number
  /** Lets whoever can read the data dir act as the local operator over /api, as the CLI does in-process. */
  operator_token: string
}

/**
 * Tells the CLI on this machine where this gateway listens (`gw providers test` goes through it,
 * with its environment and keychain). The token in it is as secret as the store beside it: the
 * file is readable by its owner only, like the data dir, whose SQLite file already lets that user
 * do anything an operator can. `withdraw` removes it, unless another gateway has since replaced it.
 */
export function announceRunning(dataDir: string, url: string, token: string): { withdraw(): void } {
  const file = path.join(dataDir, RUNNING_FILE)
  const entry: RunningGateway = { url, pid: process.pid, operator_token: token }
  fs.writeFileSync(file, JSON.stringify(entry), { mode: 0o600 })
  return {
    withdraw() {
      if (readRunning(dataDir)?.operator_token === token) fs.rmSync(file, { force: true })
    },
  }
}

function readRunning(dataDir: string): RunningGateway | null {
  try {
    const entry = JSON.parse(fs.readFileSync(path.join(dataDir, RUNNING_FILE), 'utf8')) as RunningGateway
    return typeof entry.url === 'string' && typeof entry.operator_token === 'string' && Number.isInteger(entry.pid) ? entry : null
  } catch {
    return null
  }
}

/** The gateway running on `dataDir`, or null: none announced, or its process is gone (a crash leaves the file behind). */
export function findRunning(dataDir: string): RunningGateway | null {
  const entry = readRunning(dataDir)
  if (!entry) return null
  try {
    process.kill(entry.pid, 0)
    return entry
  } catch (err) {
    // EPERM: the process exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? entry : null
  }
}

export const newOperatorToken = () => crypto.randomBytes(32).toString('base64url')

/** Whether a request presents the operator token (compared in constant time). */
export function presentsOperatorToken(header: string | string[] | undefined, token: string): boolean {
  if (typeof header !== 'string') return false
  const given = Buffer.from(header)
  const expected = Buffer.from(token)
  return given.length === expected.length && crypto.timingSafeEqual(given, expected)
}
