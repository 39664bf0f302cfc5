import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import pg from 'pg'
import { migrate } from '../../src/gateway/store/db'
import { postgresBaseline } from '../../src/gateway/store/postgres/schema'
import { migrations } from '../../src/gateway/store/migrations'
import { postgresSkipReason, sharedPostgres } from '../support/postgres'

/** The SQLite INTEGER columns that hold 0/1 and stay `integer` (all others become `bigint`). */
const FLAGS = new Set(['prepaid', 'priced', 'stream', 'session_derived', 'old_priced', 'response_cache_shared', 'equal_candidates'])
/**
 * Indexes PostgreSQL has and SQLite does not need: its rowid B-tree, NOCASE uniqueness of user
 * names, and those of the limits several gateways hold together (migration 14).
 */
const PG_ONLY_INDEXES = ['requests_rowid', 'users_username', 'session_limits_used', 'limit_holds_key']
/** Tables of the limits several gateways hold together: one process on SQLite keeps them in memory. */
const PG_ONLY_TABLES = ['gateway_instances', 'key_limits', 'limit_holds', 'rate_buckets', 'session_limits']
const ON_DELETE: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' }

interface SqliteColumn {
  name: string
  type: string
  notnull: number
  dflt_value: string | null
  pk: number
}

/** The schema of a SQLite store brought to the latest version by the gateway's own migrations. */
function sqliteSchema() {
  const db = new Database(':memory:')
  migrate(db)
  const tables = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as Array<{
    name: string
    sql: string
  }>
  const indexes = db
    .prepare(`SELECT name, tbl_name AS tbl, sql FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%' ORDER BY name`)
    .all() as Array<{ name: string; tbl: string; sql: string }>
  const keyColumns = (index: string) =>
    (db.pragma(`index_xinfo(${JSON.stringify(index)})`) as Array<{ name: string; coll: string; key: number }>)
      .filter((c) => c.key)
      .map((c) => (c.coll === 'NOCASE' ? `lower(${c.name})` : c.name))
  const schema = {
    tables: tables.map((t) => ({
      ...t,
      columns: db.pragma(`table_info(${JSON.stringify(t.name)})`) as SqliteColumn[],
      foreignKeys: (db.pragma(`foreign_key_list(${JSON.stringify(t.name)})`) as Array<{ table: string; from: string; to: string; on_delete: string }>).map(
        (f) => `${t.name}.${f.from} -> ${f.table}.${f.to} ON DELETE ${f.on_delete}`,
      ),
      uniques: (db.pragma(`index_list(${JSON.stringify(t.name)})`) as Array<{ name: string; origin: string }>)
        .filter((i) => i.origin === 'u')
        .map((i) => keyColumns(i.name)),
    })),
    indexes: indexes.map((i) => ({ ...i, columns: keyColumns(i.name), where: /\bWHERE\b([\s\S]*)$/i.exec(i.sql)?.[1] ?? null })),
    version: db.pragma('user_version', { simple: true }) as number,
  }
  db.close()
  return schema
}

/** A WHERE clause as both engines print it, without their differences in parentheses and spacing. */
const predicate = (sql: string | null) => sql && sql.replace(/[()]/g, '').replace(/\s+/g, ' ').trim().toLowerCase()
/** A column default without PostgreSQL's casts: `'{}'::text` is SQLite's `'{}'`. */
const defaultOf = (sql: string | null) => sql && sql.replace(/::[a-z ]+$/, '')

describe('PostgreSQL schema: the baseline and the migrations after it', { skip: postgresSkipReason() ?? false }, () => {
  let client: pg.Client
  const sqlite = sqliteSchema()
  const baselineVersion = migrations.find((m) => m.postgres === postgresBaseline)!.version
  const applySchema = async () => {
    await client.query(postgresBaseline)
    for (const m of migrations.filter((m) => m.version > baselineVersion)) await client.query(m.postgres!)
  }

  before(async () => {
    const server = await sharedPostgres()
    client = new pg.Client({ connectionString: await server.createDatabase() })
    await client.connect()
    await applySchema()
  })
  after(() => client?.end())

  const rows = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await client.query<T>(sql, params)).rows

  it('reaches the version the SQLite migrations reach', () => {
    const latest = Math.max(...migrations.map((m) => m.version))
    assert.equal(sqlite.version, latest)
    assert.ok(migrations.filter((m) => m.version > baselineVersion).every((m) => m.postgres !== undefined))
  })

  it("has every table of a migrated SQLite store, the shared limits' and no other (price_overrides is gone)", async () => {
    const tables = await rows<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )
    assert.deepEqual(
      tables.map((t) => t.table_name),
      [...sqlite.tables.map((t) => t.name), ...PG_ONLY_TABLES].sort(),
    )
  })

  it('has every column of each table, with the mapped type, nullability and default (plus rowid on requests)', async () => {
    const columns = await rows<{
      table_name: string
      column_name: string
      data_type: string
      is_nullable: string
      column_default: string | null
      identity_generation: string | null
    }>(
      `SELECT table_name, column_name, data_type, is_nullable, column_default, identity_generation
       FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    )
    for (const table of sqlite.tables) {
      const pgColumns = columns.filter((c) => c.table_name === table.name)
      const expected = table.columns.map((c) => {
        const integerKey = c.type === 'INTEGER' && c.pk === 1 && table.columns.filter((o) => o.pk > 0).length === 1
        return {
          column_name: c.name,
          data_type: { TEXT: 'text', REAL: 'double precision', INTEGER: FLAGS.has(c.name) ? 'integer' : 'bigint' }[c.type],
          // A PostgreSQL primary key is NOT NULL; a SQLite one (other than INTEGER) is not.
          is_nullable: c.notnull || c.pk ? 'NO' : 'YES',
          column_default: c.dflt_value,
          identity_generation: integerKey ? 'BY DEFAULT' : null,
        }
      })
      // rowid stays where the baseline put it: columns added later come after it.
      if (table.name === 'requests') {
        assert.deepEqual(
          pgColumns.find((c) => c.column_name === 'rowid'),
          { table_name: 'requests', column_name: 'rowid', data_type: 'bigint', is_nullable: 'NO', column_default: null, identity_generation: 'ALWAYS' },
        )
      }
      assert.deepEqual(
        pgColumns.filter((c) => c.column_name !== 'rowid').map(({ table_name: _, ...c }) => ({ ...c, column_default: defaultOf(c.column_default) })),
        expected,
        `columns of ${table.name}`,
      )
    }
  })

  it('has every index of a migrated SQLite store under the same name, on the same columns, partial where it is', async () => {
    const named = await rows<{ indexname: string; tablename: string }>(`SELECT indexname, tablename FROM pg_indexes WHERE schemaname = current_schema()`)
    for (const index of sqlite.indexes) {
      assert.ok(
        named.some((i) => i.indexname === index.name && i.tablename === index.tbl),
        `index ${index.name} on ${index.tbl}`,
      )
    }
    const indexes = await rows<{ name: string; tbl: string; columns: string[]; unique: boolean; constraint: boolean; where: string | null }>(
      `SELECT i.relname AS name, t.relname AS tbl, ix.indisunique AS unique,
              EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid) AS constraint,
              ARRAY(SELECT pg_get_indexdef(ix.indexrelid, k, true) FROM generate_series(1, ix.indnkeyatts) k ORDER BY k) AS columns,
              pg_get_expr(ix.indpred, ix.indrelid) AS where
       FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
       WHERE t.relnamespace = current_schema()::regnamespace`,
    )
    const own = indexes.filter((i) => !i.constraint)
    assert.deepEqual(own.map((i) => i.name).sort(), [...sqlite.indexes.map((i) => i.name), ...PG_ONLY_INDEXES].sort(), 'no dropped index is back')
    for (const index of sqlite.indexes) {
      const pgIndex = own.find((i) => i.name === index.name)!
      assert.deepEqual(
        { tbl: pgIndex.tbl, columns: pgIndex.columns, where: predicate(pgIndex.where) },
        { tbl: index.tbl, columns: index.columns, where: predicate(index.where) },
        `index ${index.name}`,
      )
    }
    // UNIQUE constraints (SQLite's autoindexes) are unique indexes here; NOCASE is lower().
    for (const table of sqlite.tables) {
      for (const columns of table.uniques) {
        assert.ok(
          indexes.some((i) => i.tbl === table.name && i.unique && i.where === null && JSON.stringify(i.columns) === JSON.stringify(columns)),
          `unique (${columns.join(', ')}) on ${table.name}`,
        )
      }
    }
  })

  it('has the same primary keys, foreign keys with their ON DELETE actions, and CHECK constraints', async () => {
    const keys = await rows<{ tbl: string; columns: string[] }>(
      `SELECT t.relname AS tbl, ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS columns
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid WHERE c.contype = 'p' AND t.relnamespace = current_schema()::regnamespace`,
    )
    for (const table of sqlite.tables) {
      const pk = table.columns
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name)
      assert.deepEqual(keys.find((k) => k.tbl === table.name)?.columns, pk, `primary key of ${table.name}`)
    }

    const foreign = await rows<{ fk: string; deltype: string }>(
      `SELECT t.relname || '.' || a.attname || ' -> ' || r.relname || '.' || ar.attname AS fk, c.confdeltype AS deltype
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
       JOIN LATERAL unnest(c.conkey, c.confkey) AS k(col, refcol) ON true
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.col
       JOIN pg_attribute ar ON ar.attrelid = c.confrelid AND ar.attnum = k.refcol
       WHERE c.contype = 'f' AND t.relnamespace = current_schema()::regnamespace`,
    )
    assert.deepEqual(foreign.map((f) => `${f.fk} ON DELETE ${ON_DELETE[f.deltype]}`).sort(), sqlite.tables.flatMap((t) => t.foreignKeys).sort())

    const checks = await rows<{ tbl: string; n: number }>(
      `SELECT t.relname AS tbl, count(*)::int AS n FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
       WHERE c.contype = 'c' AND t.relnamespace = current_schema()::regnamespace GROUP BY t.relname`,
    )
    for (const table of sqlite.tables) {
      const n = (table.sql.match(/\bCHECK\s*\(/gi) ?? []).length
      assert.equal(checks.find((c) => c.tbl === table.name)?.n ?? 0, n, `CHECK constraints of ${table.name}`)
    }
  })

  it('behaves as the SQLite store does for the rows the gateway writes', async () => {
    assert.deepEqual(await rows(`SELECT key, value FROM meta`), [{ key: 'config_rev', value: '0' }])

    // requests: rowid assigned in insertion order, never by the writer; the SQLite queries' text runs as is.
    const insertRequest = `INSERT INTO requests (id, created_at, endpoint, status, outcome, detail) VALUES ($1, $2, 'chat.completions', 200, 'ok', $3)`
    const detail = '{"b": 1,\n  "a": [1.0e0, "\\u00e9", "é"], "b": 2}'
    for (const id of ['req_b', 'req_a', 'req_c']) await client.query(insertRequest, [id, 1000, detail])
    assert.deepEqual(
      (await rows<{ id: string }>(`SELECT r.id FROM requests r ORDER BY r.created_at, r.rowid`)).map((r) => r.id),
      ['req_b', 'req_a', 'req_c'],
    )
    assert.deepEqual(await rows(`SELECT max(rowid) AS max FROM requests`), [{ max: '3' }])
    await assert.rejects(
      client.query(`INSERT INTO requests (id, created_at, endpoint, status, outcome, detail, rowid) VALUES ('x', 1, 'e', 200, 'ok', '{}', 9)`),
    )
    const [stored] = await rows(`SELECT detail, stream, priced, session_derived, source FROM requests WHERE id = 'req_a'`)
    assert.deepEqual(stored, { detail, stream: 0, priced: 0, session_derived: 0, source: 'api' }, 'JSON text byte for byte; flags 0/1')

    // Money in exact integer pico-dollars, beyond a double's 2^53.
    await client.query(`INSERT INTO keys (id, name, lookup, hash, last4, created_at) VALUES ('key_1', 'k', 'abcdefgh', 'ff', 'wxyz', 1)`)
    const big = '9007199254740993'
    await client.query(`INSERT INTO ledger (key_id, created_at, amount_pico, kind, actor) VALUES ('key_1', 1, $1, 'top_up', 'admin')`, [big])
    assert.deepEqual(await rows(`SELECT id, COALESCE(SUM(amount_pico), 0) AS total FROM ledger GROUP BY id`), [{ id: '1', total: big }])
    await assert.rejects(client.query(`INSERT INTO ledger (key_id, created_at, amount_pico, kind, actor) VALUES ('key_1', 1, 1, 'gift', 'admin')`), /check/)
    await assert.rejects(
      client.query(`INSERT INTO ledger (key_id, created_at, amount_pico, kind, actor) VALUES ('nokey', 1, 1, 'usage', 'admin')`),
      /foreign key/,
    )

    // User names are unique whatever their case (SQLite's COLLATE NOCASE).
    await client.query(`INSERT INTO users (id, username, password_hash, role, created_at) VALUES ('usr_1', 'Alice', 'h', 'admin', 1)`)
    await assert.rejects(
      client.query(`INSERT INTO users (id, username, password_hash, role, created_at) VALUES ('usr_2', 'aLICE', 'h', 'member', 1)`),
      /users_username/,
    )
    await assert.rejects(client.query(`INSERT INTO users (id, username, password_hash, role, created_at) VALUES ('usr_3', 'bob', 'h', 'root', 1)`), /check/)

    // ON DELETE actions.
    await client.query(`UPDATE keys SET owner_id = 'usr_1'`)
    await client.query(`INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES ('t', 'usr_1', 1, 2)`)
    await client.query(`DELETE FROM users WHERE id = 'usr_1'`)
    assert.deepEqual(await rows(`SELECT owner_id FROM keys`), [{ owner_id: null }])
    assert.deepEqual(await rows(`SELECT * FROM sessions`), [])
    await client.query(`INSERT INTO request_tags (request_id, tag, created_at) VALUES ('req_a', 't', 1000)`)
    await client.query(`INSERT INTO request_dimensions (request_id, name, value, created_at) VALUES ('req_a', 'team', 'x', 1000)`)
    await client.query(`INSERT INTO request_bodies (request_id, request, response) VALUES ('req_a', '{}', '{}')`)
    await client.query(`INSERT INTO request_costs (request_id, repriced_at, old_priced, actor) VALUES ('req_a', 2000, 0, 'admin')`)
    await client.query(`DELETE FROM requests WHERE id = 'req_a'`)
    for (const table of ['request_tags', 'request_dimensions', 'request_bodies', 'request_costs']) {
      assert.deepEqual(await rows(`SELECT * FROM ${table}`), [], `${table} rows go with their request`)
    }
    await client.query(`INSERT INTO responses (id, key_id, request_id, created_at, expires_at, response) VALUES ('resp_1', 'key_1', 'req_b', 1, 2, '{}')`)
    await client.query(`INSERT INTO response_items (response_id, seq, id, part, item) VALUES ('resp_1', 0, 'msg_1', 'input', '{}')`)
    await assert.rejects(client.query(`INSERT INTO response_items (response_id, seq, id, part, item) VALUES ('resp_1', 1, 'msg_2', 'other', '{}')`), /check/)
    await client.query(`DELETE FROM responses`)
    assert.deepEqual(await rows(`SELECT * FROM response_items`), [])
  })

  it('creates its tables in the connection search_path schema', async () => {
    await client.query(`CREATE SCHEMA elsewhere`)
    await client.query(`SET search_path TO elsewhere`)
    try {
      await applySchema()
      const [{ n }] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'elsewhere'`)
      assert.equal(n, sqlite.tables.length + PG_ONLY_TABLES.length)
    } finally {
      await client.query(`RESET search_path`)
    }
  })
})
