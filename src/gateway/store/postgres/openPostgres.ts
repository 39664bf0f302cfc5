import pg from 'pg'
import { Store } from '../store'
import { PgSql, pgTypes } from './pgSql'
import { NotifiedConfigWatch } from './notifiedConfigWatch'
import { PARALLEL_BATCHES, PgRecordWriter } from './pgRecordWriter'
import { migratePostgres } from './migratePostgres'
import { PgSharedLimits } from './pgSharedLimits'
import { postgresUrlProblem, redactUrl } from './databaseUrl'

export interface PostgresOptions {
  url: string
  /** The schema the tables live in, created when missing; null keeps the connection's search_path. */
  schema: string | null
  onRecordError?: (err: unknown) => void
  /** Connections in the pool (requests' reads and writes, record batches, transactions). */
  poolSize?: number
}

/** A connection failure as one line naming what failed: the URL, the server, the login or the database. */
export function describeConnectError(url: string, err: unknown): Error {
  const e = err as Error & { code?: string; address?: string; port?: number }
  const where = redactUrl(url)
  const why: Record<string, string> = {
    ECONNREFUSED: `no PostgreSQL server answers at ${e.address ?? 'that host'}:${e.port ?? ''} (connection refused)`,
    ENOTFOUND: 'its host name does not resolve',
    EAI_AGAIN: 'its host name does not resolve',
    ETIMEDOUT: 'the server did not answer in time',
    EHOSTUNREACH: 'the server cannot be reached',
    '28P01': `the server refused the login: ${e.message}`,
    '28000': `the server refused the login: ${e.message}`,
    '3D000': e.message,
    '42501': `the login may not do this: ${e.message}`,
  }
  return new Error(`cannot open the PostgreSQL store at ${where}: ${(e.code && why[e.code]) ?? e.message}`, { cause: err })
}

/**
 * How long opening a connection may take: a server that does not answer (a host down, a network
 * dropping packets) fails the attempt after this instead of holding its caller for ever.
 */
const CONNECT_TIMEOUT_MS = 5000

/**
 * The connection settings: the URL (sslmode, password, options…), with the schema as the
 * search_path when one is named; a connect timeout, and TCP keepalive so the operating system
 * notices a peer that vanished from an open connection.
 */
export function postgresClientConfig(o: Pick<PostgresOptions, 'url' | 'schema'>): pg.ClientConfig {
  const url = o.url.trim()
  const problem = postgresUrlProblem(url)
  if (problem) throw new Error(`--database-url: ${problem}`)
  return {
    connectionString: url,
    types: pgTypes,
    application_name: 'gw-gateway',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(o.schema !== null && { options: `-c search_path=${o.schema}` }),
  }
}

/**
 * A team's store: one PostgreSQL database that several gateways, the CLI and the dashboard
 * share. The schema is brought up to date under an advisory lock; configuration changes arrive by
 * LISTEN/NOTIFY; records are written in multi-row batches.
 */
export async function openPostgresStore(o: PostgresOptions): Promise<Store> {
  const config = postgresClientConfig(o)
  const pool = newPool(config, o.poolSize ?? 10)
  let watch: NotifiedConfigWatch | null = null
  try {
    await ensureSchema(pool, o.schema)
    await migratePostgres(pool)
    watch = new NotifiedConfigWatch(pool, () => new pg.Client(config))
    await watch.start()
  } catch (err) {
    await watch?.close()
    await pool.end().catch(() => {})
    throw describeConnectError(o.url, err)
  }
  const sql = new PgSql(pool)
  sql.onConfigChange = () => watch.invalidate()
  // Records have connections of their own, so a batch never waits behind requests waiting on a
  // key's limits; admissions have theirs, committed without waiting for the disk (see
  // PgSharedLimits). Both are opened now and kept open: a connection opened by the first batch
  // or admission would make it wait for a server process to start.
  const recordsPool = newPool(config, PARALLEL_BATCHES, true)
  const limitsPool = newPool({ ...config, options: [config.options, '-c synchronous_commit=off'].filter(Boolean).join(' ') }, LIMIT_CONNECTIONS, true)
  const close = () => Promise.all([pool, recordsPool, limitsPool].map((p) => p.end())).then(() => {})
  try {
    await Promise.all([warm(recordsPool, PARALLEL_BATCHES), warm(limitsPool, LIMIT_CONNECTIONS)])
  } catch (err) {
    await watch.close()
    await close().catch(() => {})
    throw describeConnectError(o.url, err)
  }
  const records = new PgRecordWriter(new PgSql(recordsPool), { onError: o.onRecordError })
  const limits = new PgSharedLimits(new PgSql(limitsPool), sql)
  const pools = { main: pool, records: recordsPool, limits: limitsPool }
  const use = () => Object.entries(pools).map(([name, p]) => ({ pool: name, inUse: p.totalCount - p.idleCount, idle: p.idleCount, waiting: p.waitingCount }))
  return new Store(sql, watch, records, close, limits, use)
}

/** Opens `n` connections of a pool and leaves them idle in it. */
async function warm(pool: pg.Pool, n: number): Promise<void> {
  const clients = await Promise.all(Array.from({ length: n }, () => pool.connect()))
  for (const c of clients) c.release()
}

/** Admissions of limited keys at once; each holds its key's row lock for well under a millisecond. */
const LIMIT_CONNECTIONS = 5

function newPool(config: pg.ClientConfig, max: number, keepOpen = false): pg.Pool {
  const pool = new pg.Pool({ ...config, max, ...(keepOpen && { idleTimeoutMillis: 0 }) })
  // An idle connection the server drops is replaced by the next query; it must not end the process.
  pool.on('error', () => {})
  // Nor one lost while it is lent out (a transaction between two statements when the server
  // restarts): pg emits that on the connection, which the pool listens to only while it is idle.
  // The caller learns of it from its next statement, which fails, and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}

/** The named schema, created when missing, or else the first of the connection's search_path that does not exist yet. */
async function ensureSchema(pool: pg.Pool, schema: string | null): Promise<void> {
  const current = await pool.query<{ schema: string | null }>(`SELECT current_schema() AS schema`)
  if (current.rows[0].schema !== null) return
  const first = schema ?? (await pool.query<{ search_path: string }>('SHOW search_path')).rows[0].search_path.split(',')[0].trim()
  if (!/^[a-z_][a-z0-9_]*$/.test(first)) throw new Error(`the search_path names no schema that exists (${first})`)
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${first}`)
}
