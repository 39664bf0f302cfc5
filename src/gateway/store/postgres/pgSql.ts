import { createHash } from 'node:crypto'
import pg from 'pg'
import { postgresDialect, type ConfigChangeHook, type Sql, type SqlValue } from '../sql'

/** PostgreSQL's type ids the gateway reads as numbers: bigint (counts, times, ids) and numeric (sums of bigint). */
const INT8 = 20
const NUMERIC = 1700

/**
 * Counts, times and sums come back as JavaScript numbers, as on SQLite; pico-dollar amounts are
 * selected as text by the queries that need them exact. Per pool, not pg's global parsers: two
 * stores in one process (a copy between them) read alike.
 */
export const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
}

/**
 * The key of the transaction-scoped advisory lock every write transaction takes first, on every
 * gateway: writes are serialised as SQLite's write lock serialises them, so a read-then-write
 * (the next preset version, the current key row) sees no other writer in between.
 */
const WRITE_LOCK = 0x67770001

/**
 * The first half of the two-key advisory locks `exclusive` takes, the name's hash the second: a
 * key space of its own, apart from the one-key locks (`WRITE_LOCK`, the migration lock).
 */
const NAMED_LOCKS = 0x67770003

/**
 * The lock ids for names, distinct and ascending: every transaction takes its locks in this one
 * order, so two waiting on each other's cannot happen (names whose hashes collide share a lock).
 */
function lockIds(names: readonly string[]): number[] {
  const ids = new Set(names.map((name) => createHash('sha256').update(name).digest().readInt32BE(0)))
  return [...ids].sort((a, b) => a - b)
}

/** `?` placeholders as PostgreSQL's `$1, $2…`, outside quoted strings; each text converted once. */
const converted = new Map<string, string>()
function toPgPlaceholders(text: string): string {
  let out = converted.get(text)
  if (out !== undefined) return out
  let n = 0
  let quoted = false
  out = ''
  for (const ch of text) {
    if (ch === "'") quoted = !quoted
    out += ch === '?' && !quoted ? `$${++n}` : ch
  }
  if (converted.size >= 1000) converted.clear()
  converted.set(text, out)
  return out
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>

const query = async <T>(on: Queryable, text: string, params: readonly SqlValue[]): Promise<pg.QueryResult<T & pg.QueryResultRow>> =>
  on.query<T & pg.QueryResultRow>(toPgPlaceholders(text), params as SqlValue[])

/** `Sql` on a pg pool: a statement on any free connection, a transaction on one connection held for it. */
export class PgSql implements Sql, ConfigChangeHook {
  readonly dialect = postgresDialect
  onConfigChange: (() => void) | null = null

  constructor(readonly pool: pg.Pool) {}

  async all<T>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await query<T>(this.pool, text, params)).rows
  }

  async get<T>(text: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await query<T>(this.pool, text, params)).rows[0]
  }

  async run(text: string, params: readonly SqlValue[] = []): Promise<number> {
    return (await query(this.pool, text, params)).rowCount ?? 0
  }

  write<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN', (client) => client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]), fn)
  }

  exclusive<T>(names: readonly string[], fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN', (client) => lockNames(client, names), fn)
  }

  /** Writes that read nothing back (record batches): one transaction, without the write lock. */
  atomically<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN', null, fn)
  }

  /** REPEATABLE READ: every statement inside reads the snapshot the first one took. */
  read<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', null, fn)
  }

  configChanged(): void {
    this.onConfigChange?.()
  }

  /** `lock` runs first in the transaction (the locks it must hold); null when it needs none. */
  private async transaction<T>(begin: string, lock: ((client: pg.PoolClient) => Promise<unknown>) | null, fn: (tx: Sql) => Promise<T>): Promise<T> {
    const client = await this.pool.connect()
    let bumped = false
    const tx: Sql = {
      dialect: postgresDialect,
      all: async <R>(text: string, params: readonly SqlValue[] = []) => (await query<R>(client, text, params)).rows,
      get: async <R>(text: string, params: readonly SqlValue[] = []) => (await query<R>(client, text, params)).rows[0],
      run: async (text: string, params: readonly SqlValue[] = []) => (await query(client, text, params)).rowCount ?? 0,
      write: (inner) => inner(tx),
      exclusive: async (names, inner) => {
        await lockNames(client, names)
        return inner(tx)
      },
      read: (inner) => inner(tx),
      configChanged: () => (bumped = true),
    }
    let broken: Error | undefined
    try {
      await client.query(begin)
      if (lock) await lock(client)
      const value = await fn(tx)
      await client.query('COMMIT')
      if (bumped) this.onConfigChange?.()
      return value
    } catch (err) {
      // A connection that cannot roll back is not given back to the pool.
      await client.query('ROLLBACK').catch((e: Error) => (broken = e))
      throw err
    } finally {
      client.release(broken)
    }
  }
}

/** Takes the names' advisory locks, one at a time in `lockIds` order, until the transaction ends. */
async function lockNames(client: pg.PoolClient, names: readonly string[]): Promise<void> {
  for (const id of lockIds(names)) await client.query('SELECT pg_advisory_xact_lock($1, $2)', [NAMED_LOCKS, id])
}
