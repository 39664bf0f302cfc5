import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { connect, DB_FILE, migrate, openDatabase, schemaVersion } from '../../src/gateway/store/db'
import { migrations, type Migration } from '../../src/gateway/store/migrations'
import { PricesRepo } from '../../src/gateway/store/pricesRepo'
import { SqliteSql } from '../../src/gateway/store/sqliteSql'
import { migratePostgres, postgresSchemaVersion } from '../../src/gateway/store/postgres/migratePostgres'
import { pgTypes } from '../../src/gateway/store/postgres/pgSql'
import { sharedPostgres } from '../support/postgres'
import { describeEachStore, type StoreName } from '../support/stores'
import { tempDir } from '../support/tempDir'

const latest = Math.max(...migrations.map((m) => m.version))
const schemaOf = (db: Database.Database) => db.prepare(`SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`).all()

/** An empty database of either kind and what a migration test does with it. */
interface EmptyStore {
  /** Applies the migrations as the store does when it opens; resolves to the version reached. */
  migrate(list?: Migration[]): Promise<number>
  version(): Promise<number>
  /** Marks the store as written by a build that knows `version`. */
  setVersion(version: number): Promise<void>
  hasTable(name: string): Promise<boolean>
  /** Runs SQL both engines take (no parameters), and reads rows back. */
  exec(sql: string): Promise<void>
  rows(sql: string): Promise<unknown[]>
  close(): Promise<void>
}

async function emptyStore(name: StoreName): Promise<EmptyStore> {
  if (name === 'sqlite') {
    // The connection every gateway opens (WAL mode), with nothing in it yet.
    const db = connect(path.join(tempDir(), DB_FILE))
    return {
      migrate: async (list) => migrate(db, list),
      version: async () => schemaVersion(db),
      setVersion: async (version) => void db.pragma(`user_version = ${version}`),
      hasTable: async (table) => db.prepare(`SELECT count(*) FROM sqlite_master WHERE name = ?`).pluck().get(table) === 1,
      exec: async (sql) => void db.exec(sql),
      rows: async (sql) => db.prepare(sql).all(),
      close: async () => void db.close(),
    }
  }
  const pool = new pg.Pool({ connectionString: await (await sharedPostgres()).createDatabase(), types: pgTypes, allowExitOnIdle: true })
  const version = async () => {
    const client = await pool.connect()
    try {
      return await postgresSchemaVersion(client)
    } finally {
      client.release()
    }
  }
  return {
    migrate: (list) => migratePostgres(pool, list),
    version,
    setVersion: async (v) => void (await pool.query(`UPDATE meta SET value = $1 WHERE key = 'schema_version'`, [String(v)])),
    hasTable: async (table) => (await pool.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [table])).rows[0].present,
    exec: async (sql) => void (await pool.query(sql)),
    rows: async (sql) => (await pool.query(sql)).rows,
    close: () => pool.end(),
  }
}

describe('store migrations: the list', () => {
  it('are numbered 1..N without gaps', () => {
    assert.deepEqual(
      migrations.map((m) => m.version),
      Array.from({ length: latest }, (_, i) => i + 1),
    )
  })

  it('have a PostgreSQL script from version 13 on, where the PostgreSQL store began, and none before', () => {
    assert.deepEqual(
      migrations.filter((m) => m.postgres !== undefined).map((m) => m.version),
      Array.from({ length: latest - 12 }, (_, i) => i + 13),
    )
  })
})

describeEachStore('store migrations', (under) => {
  it('bring an empty store to the latest version, and find it there the next time', async () => {
    const store = await emptyStore(under.name)
    assert.equal(await store.version(), 0)
    assert.equal(await store.migrate(), latest)
    assert.equal(await store.version(), latest)
    assert.ok(await store.hasTable('requests'))
    assert.equal(await store.migrate(), latest)
    await store.close()
  })

  it('refuse a store written by a newer version', async () => {
    const store = await emptyStore(under.name)
    await store.migrate()
    await store.setVersion(latest + 1)
    await assert.rejects(store.migrate(), /newer than this build knows/)
    await store.close()
  })

  it('leave the previous version intact when a migration fails', async () => {
    const store = await emptyStore(under.name)
    await store.migrate()
    const broken: Migration[] = [
      ...migrations,
      {
        version: latest + 1,
        description: 'broken',
        up: (d: Database.Database) => d.exec('CREATE TABLE t (x); SELECT nope FROM missing'),
        postgres: 'CREATE TABLE t (x integer); SELECT nope FROM missing',
      },
    ]
    await assert.rejects(store.migrate(broken))
    assert.equal(await store.version(), latest)
    assert.equal(await store.hasTable('t'), false)
    await store.close()
  })
})

describeEachStore('store migrations: version 19', (under) => {
  const GOOGLE_OPENAI_LAYER = 'https://generativelanguage.googleapis.com/v1beta/openai'
  const PROXY = 'https://llm-proxy.corp.example/gemini/v1'

  const literal = (v: string | null) => (v === null ? 'NULL' : `'${v}'`)

  /** A store at version 18 with these provider rows (id, kind, base URL, dialect), each with a wire, brought to the latest version. */
  async function migrated(providers: Array<[string, string, string | null, string | null]>) {
    const store = await emptyStore(under.name)
    await store.migrate(migrations.filter((m) => m.version <= 18))
    for (const [id, kind, baseUrl, dialect] of providers) {
      await store.exec(
        `INSERT INTO providers (id, kind, base_url, created_at, updated_at, timeouts, wire, dialect)
         VALUES ('${id}', '${kind}', ${literal(baseUrl)}, 1, 2, '{"idle_ms":60000}', 'chat', ${literal(dialect)})`,
      )
    }
    assert.equal(await store.migrate(), latest)
    const rows = await store.rows(`SELECT id, kind, base_url, wire, dialect, timeouts FROM providers ORDER BY id`)
    await store.close()
    return rows
  }
  const moved = { id: 'gemini', kind: 'gemini', base_url: null, wire: null, dialect: null, timeouts: '{"idle_ms":60000}' }
  const kept = (id: string, baseUrl: string, dialect: string | null) => ({
    id,
    kind: 'openai',
    base_url: baseUrl,
    wire: 'chat',
    dialect,
    timeouts: '{"idle_ms":60000}',
  })

  it("moves the built-in gemini's row of kind openai at its built-in address to kind gemini, keeping its timeouts; another id stays", async () => {
    assert.deepEqual(
      await migrated([
        ['gemini', 'openai', null, null],
        ['google', 'openai', GOOGLE_OPENAI_LAYER, null],
      ]),
      [moved, kept('google', GOOGLE_OPENAI_LAYER, null)],
    )
  })

  it("moves one set to Google's OpenAI layer by hand, with or without the trailing slash, whatever its dialect", async () => {
    assert.deepEqual(await migrated([['gemini', 'openai', GOOGLE_OPENAI_LAYER, 'gemini']]), [moved])
    assert.deepEqual(await migrated([['gemini', 'openai', `${GOOGLE_OPENAI_LAYER}/`, null]]), [moved])
  })

  it('leaves one pointing elsewhere (a proxy) at its kind and address, with the gemini dialect it had from the built-in unless another was set', async () => {
    assert.deepEqual(await migrated([['gemini', 'openai', PROXY, null]]), [kept('gemini', PROXY, 'gemini')])
    assert.deepEqual(await migrated([['gemini', 'openai', PROXY, 'generic']]), [kept('gemini', PROXY, 'generic')])
  })
})

describeEachStore('price rows, the shape version 9 moved price overrides into', (under) => {
  it('read back with every rate and note, by model', async () => {
    const { sql, close } = await under.open()
    const at = Date.UTC(2026, 9, 5, 12)
    await new PricesRepo(sql).setMany(
      [
        { model: 'openai/embed-y', row: { input: 0.02 }, as_of: '2026-10-05', note: null },
        {
          model: 'anthropic/claude-x',
          row: { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75, context_length: 200000 },
          as_of: '2026-10-05',
          note: 'negotiated',
        },
      ],
      at,
    )
    assert.deepEqual(await new PricesRepo(sql).all(), [
      {
        model: 'anthropic/claude-x',
        row: { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75, context_length: 200000 },
        as_of: '2026-10-05',
        note: 'negotiated',
        updated_at: at,
      },
      { model: 'openai/embed-y', row: { input: 0.02 }, as_of: '2026-10-05', note: null, updated_at: at },
    ])
    await close()
  })
})

/** Migrations 1–12 exist only on SQLite (the PostgreSQL store began at 13), and so does its file. */
describe('store migrations: SQLite', () => {
  it('bring an empty file to the latest version in WAL mode', () => {
    const dir = tempDir()
    const db = openDatabase(dir)
    assert.equal(schemaVersion(db), latest)
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal')
    db.close()
  })

  for (let from = 0; from < latest; from++) {
    it(`upgrade a store at version ${from} to the same schema as a new one, keeping its data`, () => {
      const dir = tempDir()
      const old = new Database(path.join(dir, DB_FILE))
      migrate(old, migrations, from)
      assert.equal(schemaVersion(old), from)
      if (from >= 1) {
        old.prepare(`INSERT INTO keys (id, name, lookup, hash, last4, created_at) VALUES ('key_1', 'kept', 'abcdefgh', 'ff', 'wxyz', 1)`).run()
      }
      old.close()
      const upgraded = openDatabase(dir)
      const fresh = openDatabase(tempDir())
      assert.equal(schemaVersion(upgraded), latest)
      assert.deepEqual(schemaOf(upgraded), schemaOf(fresh))
      if (from >= 1) assert.equal(upgraded.prepare(`SELECT name FROM keys WHERE id = 'key_1'`).pluck().get(), 'kept')
      upgraded.close()
      fresh.close()
    })
  }

  it('move price overrides of version 8 into whole price rows, keeping every rate and note', async () => {
    const dir = tempDir()
    const old = new Database(path.join(dir, DB_FILE))
    migrate(old, migrations, 8)
    const at = Date.UTC(2026, 9, 5, 12)
    const insert = old.prepare(
      `INSERT INTO price_overrides (model, input, output, cached_input, cache_write, context_length, note, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    insert.run('anthropic/claude-x', 3, 15, 0.3, 3.75, 200000, 'negotiated', at)
    insert.run('openai/embed-y', 0.02, null, null, null, null, null, at)
    old.close()
    const db = openDatabase(dir)
    assert.deepEqual(await new PricesRepo(new SqliteSql(db)).all(), [
      {
        model: 'anthropic/claude-x',
        row: { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75, context_length: 200000 },
        as_of: '2026-10-05',
        note: 'negotiated',
        updated_at: at,
      },
      { model: 'openai/embed-y', row: { input: 0.02 }, as_of: '2026-10-05', note: null, updated_at: at },
    ])
    db.close()
  })
})

describeEachStore('store migrations: version 24', (under) => {
  /** A record's detail as records made before version 24 keep it: only the parts the migration reads. */
  const detail = (parts: Record<string, unknown>) => JSON.stringify(parts).replaceAll("'", "''")
  const usage = (cached: number, written: number, oneHour = 0) => ({
    prompt_tokens: 5000,
    completion_tokens: 10,
    cached_tokens: cached,
    cache_write_tokens: written,
    cache_write_1h_tokens: oneHour,
  })

  it('fills the cache columns of records made before from their JSON, as the cache doctor counts them: none for a replay or a request without usage', async () => {
    const store = await emptyStore(under.name)
    await store.migrate(migrations.filter((m) => m.version <= 22))
    const rows: Array<[string, string | null, string | null, string]> = [
      ['req_read', 'anthropic', null, detail({ usage: usage(4000, 0), cost: { cache_savings_usd: 0.0108, cache_write_usd: 0 } })],
      ['req_write', 'anthropic', null, detail({ usage: usage(0, 4000, 4000), cost: { cache_savings_usd: -0.006, cache_write_usd: 0.024 } })],
      ['req_replay', 'anthropic', 'req_read', detail({ usage: usage(4000, 0), cost: { cache_savings_usd: 0, cache_write_usd: 0 } })],
      ['req_failed', 'anthropic', null, detail({ usage: null, cost: null })],
      ['req_nowhere', null, null, detail({ usage: usage(0, 0), cost: { cache_savings_usd: 0 } })],
    ]
    for (const [id, provider, hitOf, json] of rows) {
      await store.exec(
        `INSERT INTO requests (id, created_at, endpoint, status, outcome, provider, upstream_model, cache_hit_of, detail)
         VALUES ('${id}', 1, 'messages', 200, 'ok', ${provider ? `'${provider}'` : 'NULL'}, ${provider ? "'claude-sonnet-4-5'" : 'NULL'}, ${hitOf ? `'${hitOf}'` : 'NULL'}, '${json}')`,
      )
    }
    assert.equal(await store.migrate(), latest)
    assert.deepEqual(
      await store.rows(`SELECT id, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cache_savings_usd, cache_write_usd FROM requests ORDER BY id`),
      [
        { id: 'req_failed', cached_tokens: null, cache_write_tokens: null, cache_write_1h_tokens: null, cache_savings_usd: null, cache_write_usd: null },
        { id: 'req_nowhere', cached_tokens: null, cache_write_tokens: null, cache_write_1h_tokens: null, cache_savings_usd: null, cache_write_usd: null },
        { id: 'req_read', cached_tokens: 4000, cache_write_tokens: 0, cache_write_1h_tokens: 0, cache_savings_usd: 0.0108, cache_write_usd: null },
        { id: 'req_replay', cached_tokens: null, cache_write_tokens: null, cache_write_1h_tokens: null, cache_savings_usd: null, cache_write_usd: null },
        { id: 'req_write', cached_tokens: 0, cache_write_tokens: 4000, cache_write_1h_tokens: 4000, cache_savings_usd: -0.006, cache_write_usd: 0.024 },
      ],
    )
    await store.close()
  })
})
