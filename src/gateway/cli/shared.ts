import { parseArgs, type ParseArgsConfig } from 'node:util'
import { KeychainSecretStore, type SecretStore } from '../secrets/secretStore'

export interface CliIo {
  out(text: string): void
  err(text: string): void
  readStdin(): Promise<string>
  env: NodeJS.ProcessEnv
  secrets: SecretStore
  /** `gw serve` resolves this when the process should stop (signals in real use). */
  untilStopped(): Promise<void>
}

export type Command = (args: string[], io: CliIo) => Promise<number>

export const defaultIo = (): CliIo => ({
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : t + '\n'),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : t + '\n'),
  readStdin: async () => {
    const chunks: Buffer[] = []
    for await (const c of process.stdin) chunks.push(c as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  },
  env: process.env,
  secrets: new KeychainSecretStore(process.env.GW_KEYCHAIN_SERVICE),
  untilStopped: () =>
    new Promise((resolve) => {
      process.once('SIGINT', () => resolve())
      process.once('SIGTERM', () => resolve())
    }),
})

const common = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'database-schema': { type: 'string' },
  json: { type: 'boolean' },
} as const

/** Where every command finds the store: the data dir's SQLite file, or a PostgreSQL database. */
export interface StoreFlags {
  'data-dir'?: string
  'database-url'?: string
  'database-schema'?: string
}

/** The store flags as configuration overrides. */
export const storeOverrides = (where: StoreFlags) => ({
  dataDir: where['data-dir'],
  databaseUrl: where['database-url'],
  databaseSchema: where['database-schema'],
})

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  return parseArgs({ args, options: { ...common, ...options }, allowPositionals: true, strict: true })
}

export function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

/** `24h`, `7d` before now, or a date/time (ISO 8601, UTC unless it says otherwise). */
export function since(value: string, now = Date.now()): number {
  const ago = /^(\d+)([hd])$/.exec(value)
  if (ago) return now - Number(ago[1]) * (ago[2] === 'h' ? 3_600_000 : 86_400_000)
  const t = Date.parse(value)
  if (!Number.isFinite(t)) throw new Error(`--since must be a duration (24h, 7d) or a date (2026-11-23), got "${value}"`)
  return t
}

export const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'))

export function number(value: string, flag: string, check: (n: number) => boolean, what: string): number {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || !check(n)) throw new Error(`${flag} must be ${what}, got "${value}"`)
  return n
}

export const nonNegativeUsd = (value: string | undefined, flag: string): number | null =>
  value === undefined ? null : number(value, flag, (n) => n >= 0, 'a non-negative number of USD')

export const list = (v: string | undefined) =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
