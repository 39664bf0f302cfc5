import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { DB_FILE, openDatabase } from './db'
import { SqliteSql } from './sqliteSql'
import { bumpConfigRev, CONFIG_REV_SQL } from './configRev'
import { REQUEST_COLUMNS } from './requestsRepo'
import { placeholders, type Sql, type SqlValue } from './sql'
import { PgSql } from './postgres/pgSql'
import { describeConnectError, openPostgresStore, postgresClientConfig } from './postgres/openPostgres'
import { redactUrl } from './postgres/databaseUrl'

/**
 * Copies one store into another, empty one: a desktop's SQLite file into a team's PostgreSQL
 * database (`gw store copy`). Every table but the dashboard's login sessions and provider keys,
 * row for row, so that keys keep working (only their hashes are stored), balances are their
 * ledgers to the pico-dollar, and records, presets and kept Responses read back as they were.
 *
 * - One snapshot of the source (a read transaction) into one write transaction on the target:
 *   the copy is whole or nothing, and a gateway still writing to the source changes neither.
 * - Pages in primary-key order (requests in rowid order, so the target's rowid identity keeps
 *   their order), each the next after the last key read, and multi-row INSERTs: no table is
 *   ever held in memory whole, and the statement count is a thousandth of the row count.
 * - Explicit column lists; the source's columns are checked against them first, so a column or
 *   table this build does not know stops the copy rather than being left behind.
 * - Exact values: pico-dollar amounts are read as text and written as BigInt; text (JSON
 *   included) is passed through as it is; the ids of the two identity tables (ledger entries,
 *   repricings) are kept, so whatever names one still finds it, and the target's sequences are
 *   moved past them.
 */

interface Table {
  name: string
  /** Every column, in insert order. */
  columns: readonly string[]
  /** The order pages are read in: the primary key, or requests' rowid. */
  key: readonly string[]
  /** What its rows are called when a target already holds some: [one, many]. */
  noun: [string, string]
  /** The table these rows belong to: not named again in a refusal when that one is. */
  partOf?: string
  /** Integer columns read as text and written as BigInt: exact beyond 2^53. */
  exact?: readonly string[]
  /** An identity column whose values are copied: the target's sequence is moved past them afterwards. */
  identity?: string
  /** Rows that may be large (logged bodies, kept Responses items): pages start small. */
  large?: boolean
}

/** In dependency order: a row's references are copied before it. */
const TABLES: readonly Table[] = [
  { name: 'users', columns: ['id', 'username', 'password_hash', 'role', 'created_at'], key: ['id'], noun: ['user', 'users'] },
  {
    name: 'keys',
    columns: [
      'id',
      'name',
      'lookup',
      'hash',
      'last4',
      'created_at',
      'revoked_at',
      'last_used_at',
      'default_preset',
      'policy',
      'prepaid',
      'daily_limit_usd',
      'monthly_limit_usd',
      'owner_id',
      'response_cache_ttl_s',
    ],
    key: ['id'],
    noun: ['key', 'keys'],
  },
  {
    name: 'ledger',
    columns: ['id', 'key_id', 'created_at', 'amount_pico', 'kind', 'request_id', 'actor', 'note'],
    key: ['id'],
    noun: ['ledger entry', 'ledger entries'],
    partOf: 'keys',
    exact: ['amount_pico'],
    identity: 'id',
  },
  { name: 'presets', columns: ['name', 'version', 'created_at', 'updated_at', 'deleted_at'], key: ['name'], noun: ['preset', 'presets'] },
  {
    name: 'preset_versions',
    columns: [
      'name',
      'version',
      'model',
      'system_prompt',
      'temperature',
      'max_tokens',
      'top_p',
      'fallbacks',
      'description',
      'soft_cap',
      'created_at',
      'created_by',
      'response_cache_ttl_s',
      'response_cache_shared',
      'equal_candidates',
    ],
    key: ['name', 'version'],
    noun: ['preset version', 'preset versions'],
    partOf: 'presets',
  },
  { name: 'aliases', columns: ['pattern', 'target', 'note', 'created_at', 'updated_at'], key: ['pattern'], noun: ['alias', 'aliases'] },
  {
    name: 'providers',
    columns: ['id', 'kind', 'base_url', 'created_at', 'updated_at', 'timeouts', 'wire', 'dialect'],
    key: ['id'],
    noun: ['provider', 'providers'],
  },
  { name: 'price_rows', columns: ['model', 'row', 'as_of', 'note', 'updated_at'], key: ['model'], noun: ['price override', 'price overrides'] },
  { name: 'price_calendars', columns: ['name', 'calendar', 'updated_at'], key: ['name'], noun: ['calendar override', 'calendar overrides'] },
  { name: 'settings', columns: ['key', 'value'], key: ['key'], noun: ['setting', 'settings'] },
  { name: 'requests', columns: REQUEST_COLUMNS, key: ['rowid'], noun: ['request record', 'request records'] },
  {
    name: 'request_tags',
    columns: ['request_id', 'tag', 'created_at'],
    key: ['tag', 'created_at', 'request_id'],
    noun: ['request tag', 'request tags'],
    partOf: 'requests',
  },
  {
    name: 'request_dimensions',
    columns: ['request_id', 'name', 'value', 'created_at'],
    key: ['name', 'value', 'created_at', 'request_id'],
    noun: ['request dimension', 'request dimensions'],
    partOf: 'requests',
  },
  {
    name: 'request_bodies',
    columns: ['request_id', 'request', 'response'],
    key: ['request_id'],
    noun: ['logged body', 'logged bodies'],
    partOf: 'requests',
    large: true,
  },
  {
    name: 'request_costs',
    columns: ['id', 'request_id', 'repriced_at', 'old_cost_usd', 'old_priced', 'old_cost', 'new_cost_usd', 'actor'],
    key: ['id'],
    noun: ['repricing', 'repricings'],
    partOf: 'requests',
    identity: 'id',
  },
  {
    name: 'responses',
    columns: ['id', 'key_id', 'request_id', 'previous_response_id', 'created_at', 'expires_at', 'response'],
    key: ['id'],
    noun: ['stored response', 'stored responses'],
    large: true,
  },
  {
    name: 'response_items',
    columns: ['response_id', 'seq', 'id', 'part', 'item'],
    key: ['response_id', 'seq'],
    noun: ['stored response item', 'stored response items'],
    partOf: 'responses',
    large: true,
  },
]

/** Tables that exist and are not copied, with why. `meta` is the store's own: its revision is carried over, its schema version is the target's. */
const NOT_COPIED: Record<string, string> = {
  sessions: 'dashboard sign-ins, which end with the move: people sign in again on the new store',
  // A SQLite store's provider keys are in its machine's OS keychain, never in this table.
  provider_secrets:
    "provider API keys, which a desktop keeps in its OS keychain, not in its store: give them to the team's gateways " +
    '(gw providers set ID --api-key-stdin, kept encrypted under GW_SECRET_KEY, or ID_API_KEY in their environment)',
  response_cache: 'cached answers, which the new store makes again from the first repeat of each request',
}
/**
 * Tables the copy leaves alone. `sign_in_failures` counts failed sign-ins for a quarter of an
 * hour: not worth carrying over, and not held against an empty target either (a gateway already
 * running on it may have counted some).
 */
const OWN = ['meta', 'sign_in_failures', ...Object.keys(NOT_COPIED)]

/** Rows per INSERT, at most: fewer for a table whose rows would pass the parameters one statement may bind. */
const ROWS_PER_INSERT = 1000
/**
 * Parameters one statement may bind: SQLite's limit (PostgreSQL's is 65,535). A fixed row count
 * broke it once `requests` grew to 33 columns (1,000 rows of them are 33,000 parameters).
 */
const MAX_PARAMETERS = 32_766
/** Characters of text per INSERT (one statement's parameters go in one message). */
const CHARS_PER_INSERT = 16 * 1024 * 1024
/** Rows read per page: at most this, fewer while pages are large; large tables start small. */
const PAGE_ROWS = 1000
const LARGE_PAGE_ROWS = 50
/** Characters a page aims at: a page over it halves the next, one far under it doubles it. */
const PAGE_CHARS = 32 * 1024 * 1024

/** An identifier as both engines take it quoted (the schema's names are lower case: the same name). */
const q = (name: string) => `"${name}"`

export interface TableCopied {
  table: string
  rows: number
}

export interface CopyReport {
  tables: TableCopied[]
  rows: number
  /** Tables left out, with their row counts and why. */
  notCopied: Array<{ table: string; rows: number; why: string }>
}

/** The target already holds data: a copy goes into an empty store only. `holds` names what it holds ("2 keys and 1 user"). */
export class TargetNotEmpty extends Error {
  constructor(
    readonly holds: string,
    where = 'the target store',
  ) {
    super(`${where} already holds ${holds}: a copy goes only into an empty one, and nothing was copied`)
  }
}

/**
 * Copies every table of `from` into `to`, which must be empty (its schema created, as opening
 * the store creates it), in one transaction on `to` read from one snapshot of `from`. Both
 * schemas must be this build's (opening a store brings it there). `onTable` hears of each table
 * as it is written (its rows are committed with the rest, at the end).
 */
export async function copyStore(from: Sql, to: Sql, onTable?: (copied: TableCopied) => void): Promise<CopyReport> {
  return from.read((src) =>
    to.write(async (dst) => {
      await checkColumns(src, 'source')
      await checkColumns(dst, 'target')
      await refuseUnlessEmpty(dst)
      const tables: TableCopied[] = []
      for (const table of TABLES) {
        let rows: number
        try {
          rows = await copyTable(src, dst, table)
        } catch (err) {
          throw new Error(`copying ${table.name}: ${(err as Error).message} (nothing was copied)`, { cause: err })
        }
        tables.push({ table: table.name, rows })
        onTable?.({ table: table.name, rows })
      }
      if (dst.dialect.name === 'postgres') {
        for (const t of TABLES.filter((t) => t.identity)) {
          await dst.get(`SELECT setval(pg_get_serial_sequence('${t.name}', '${t.identity}'), max(${q(t.identity!)})) AS v FROM ${q(t.name)}`)
        }
      }
      // The revision never goes back (a gateway already on the target compares it), and moves on
      // once more, which tells every gateway there to load the configuration it now holds.
      const rev = async (sql: Sql) => (await sql.get<{ rev: number }>(CONFIG_REV_SQL))?.rev ?? 0
      await dst.run(`UPDATE meta SET value = ? WHERE key = 'config_rev'`, [String(Math.max(await rev(src), await rev(dst)))])
      await bumpConfigRev(dst)
      const notCopied: CopyReport['notCopied'] = []
      for (const [table, why] of Object.entries(NOT_COPIED)) notCopied.push({ table, rows: await count(src, table), why })
      return { tables, rows: tables.reduce((n, t) => n + t.rows, 0), notCopied }
    }),
  )
}

const count = async (sql: Sql, table: string) => (await sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${q(table)}`))!.n

/** Each table's columns, as the database has them. */
async function columnsOf(sql: Sql): Promise<Map<string, Set<string>>> {
  const rows =
    sql.dialect.name === 'sqlite'
      ? await sql.all<{ t: string; c: string }>(
          `SELECT m.name AS t, p.name AS c FROM sqlite_master AS m, pragma_table_info(m.name) AS p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%'`,
        )
      : await sql.all<{ t: string; c: string }>(
          `SELECT c.table_name AS t, c.column_name AS c FROM information_schema.columns AS c
           JOIN information_schema.tables AS t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
           WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`,
        )
  const tables = new Map<string, Set<string>>()
  for (const { t, c } of rows) {
    if (!tables.has(t)) tables.set(t, new Set())
    tables.get(t)!.add(c)
  }
  return tables
}

/**
 * Stops a copy that would leave something behind or miss a column: a table or column this build's
 * copy does not know. The target's schema may hold other tables (another application's): they are
 * not the store's and are left alone.
 */
async function checkColumns(sql: Sql, side: 'source' | 'target'): Promise<void> {
  const actual = await columnsOf(sql)
  const problems: string[] = []
  for (const [table, columns] of actual) {
    if (OWN.includes(table)) continue
    const known = TABLES.find((t) => t.name === table)
    if (!known) {
      if (side === 'source') problems.push(`table ${table}`)
      continue
    }
    for (const c of columns) if (!known.columns.includes(c) && !(table === 'requests' && c === 'rowid')) problems.push(`column ${table}.${c}`)
  }
  for (const t of TABLES) {
    const columns = actual.get(t.name)
    if (!columns) problems.push(`no table ${t.name}`)
    else for (const c of t.columns) if (!columns.has(c)) problems.push(`no column ${t.name}.${c}`)
  }
  if (problems.length > 0) {
    throw new Error(`the ${side} store's schema is not the one this build copies (${problems.join(', ')}): are both stores this version's?`)
  }
}

async function refuseUnlessEmpty(sql: Sql): Promise<void> {
  const held = new Map<string, number>()
  for (const t of [...TABLES.map((t) => t.name), ...Object.keys(NOT_COPIED)]) {
    const n = await count(sql, t)
    if (n > 0) held.set(t, n)
  }
  if (held.size === 0) return
  const nouns: Record<string, [string, string]> = {
    ...Object.fromEntries(TABLES.map((t) => [t.name, t.noun])),
    sessions: ['dashboard session', 'dashboard sessions'],
    provider_secrets: ['provider key', 'provider keys'],
  }
  const named = [...held]
    .filter(([t]) => {
      const parent = TABLES.find((x) => x.name === t)?.partOf
      return !(parent && held.has(parent))
    })
    .map(([t, n]) => `${n} ${nouns[t][n === 1 ? 0 : 1]}`)
  throw new TargetNotEmpty(named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`)
}

type Row = Record<string, SqlValue>

/** A table's rows, page after page in key order, each page written before the next is read. */
async function copyTable(src: Sql, dst: Sql, t: Table): Promise<number> {
  const exact = (c: string) => t.exact?.includes(c) ?? false
  const select = [
    ...t.columns.map((c) => (exact(c) ? `CAST(${q(c)} AS TEXT) AS ${q(c)}` : q(c))),
    ...t.key.filter((k) => !t.columns.includes(k)).map((k) => `${k} AS ${q(k)}`),
  ].join(', ')
  const order = t.key.map(q).join(', ')
  const after = t.key.length === 1 ? `${q(t.key[0])} > ?` : `(${order}) > (${placeholders(t.key.length)})`
  const first = `SELECT ${select} FROM ${q(t.name)} ORDER BY ${order} LIMIT ?`
  const next = `SELECT ${select} FROM ${q(t.name)} WHERE ${after} ORDER BY ${order} LIMIT ?`
  const insert = `INSERT INTO ${q(t.name)} (${t.columns.map(q).join(', ')}) VALUES `
  const one = `(${placeholders(t.columns.length)})`

  const rowsPerInsert = Math.min(ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / t.columns.length))
  let pageRows = t.large ? LARGE_PAGE_ROWS : PAGE_ROWS
  let last: SqlValue[] | null = null
  let copied = 0
  for (;;) {
    const rows: Row[] = await src.all<Row>(last ? next : first, [...(last ?? []), pageRows])
    let chars = 0
    let batch: SqlValue[][] = []
    let batchChars = 0
    const flush = async () => {
      if (batch.length === 0) return
      await dst.run(insert + batch.map(() => one).join(', '), batch.flat())
      batch = []
      batchChars = 0
    }
    for (const row of rows) {
      const values = t.columns.map((c) => {
        const v = row[c]
        return exact(c) && v !== null ? BigInt(v) : v
      })
      const size = values.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 8), 0)
      if (batch.length > 0 && (batch.length >= rowsPerInsert || batchChars + size > CHARS_PER_INSERT)) await flush()
      batch.push(values)
      batchChars += size
      chars += size
    }
    await flush()
    copied += rows.length
    if (rows.length < pageRows) return copied
    last = t.key.map((k) => rows[rows.length - 1][k])
    if (chars > PAGE_CHARS) pageRows = Math.max(1, Math.floor(pageRows / 2))
    else if (chars < PAGE_CHARS / 4) pageRows = Math.min(PAGE_ROWS, pageRows * 2)
  }
}

export interface CopyIntoPostgresOptions {
  /** The data dir whose SQLite store (`gateway.db`) is copied. */
  dataDir: string
  /** The target database's URL. */
  url: string
  /** The schema the tables go in (created when missing); null: the connection's search_path. */
  schema: string | null
  onTable?: (copied: TableCopied) => void
}

/**
 * A data dir's SQLite store into a PostgreSQL database: the target's schema is created as a
 * gateway opening it would (migrations), then the copy runs on a connection of its own.
 */
export async function copyIntoPostgres(o: CopyIntoPostgresOptions): Promise<CopyReport> {
  const file = path.join(o.dataDir, DB_FILE)
  if (!fs.existsSync(file)) throw new Error(`there is no store in ${o.dataDir} (no ${DB_FILE})`)
  const db = openDatabase(o.dataDir)
  let pool: pg.Pool | null = null
  try {
    // The URL checked, the schema created and brought to this build's version, a failure said in one line.
    await (await openPostgresStore({ url: o.url, schema: o.schema })).close()
    pool = new pg.Pool({ ...postgresClientConfig(o), application_name: 'gw-store-copy', max: 1 })
    pool.on('error', () => {})
    try {
      await pool.query('SELECT 1')
    } catch (err) {
      throw describeConnectError(o.url, err)
    }
    return await copyStore(new SqliteSql(db), new PgSql(pool), o.onTable)
  } catch (err) {
    if (err instanceof TargetNotEmpty) throw new TargetNotEmpty(err.holds, `the database at ${redactUrl(o.url)}${o.schema ? ` (schema ${o.schema})` : ''}`)
    throw err
  } finally {
    db.close()
    await pool?.end()
  }
}
