import { randomBytes } from 'node:crypto'
import { after, describe } from 'node:test'
import pg from 'pg'
import { openDatabase } from '../../src/gateway/store/db'
import { recordBatchWriter } from '../../src/gateway/store/recordBatch'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'
import type { Sql } from '../../src/gateway/store/sql'
import { SqliteSql } from '../../src/gateway/store/sqliteSql'
import { migratePostgres } from '../../src/gateway/store/postgres/migratePostgres'
import { PgRecordWriter } from '../../src/gateway/store/postgres/pgRecordWriter'
import { PgSql, pgTypes } from '../../src/gateway/store/postgres/pgSql'
import { postgresSkipReason, sharedPostgres } from './postgres'
import { tempDir } from './tempDir'

export type StoreName = 'sqlite' | 'postgres'

/** A fresh, empty store at the latest schema version, as the repositories and queries see it. */
export interface TestStore {
  readonly name: StoreName
  readonly sql: Sql
  /**
   * Stores request records in this order, in one batch, as the store's record writer does
   * (SQLite: `recordBatchWriter`; PostgreSQL: `PgRecordWriter`), with the keys' last-used times.
   * Rejects if any record was set aside.
   */
  writeRecords(records: RequestRecord[]): Promise<void>
  /** Closes its connections; calling it again does nothing. */
  close(): Promise<void>
}

export interface StoreUnderTest {
  readonly name: StoreName
  /** Why this store cannot run here (PostgreSQL not installed), for `describe`'s `skip`. */
  readonly skip: string | false
  /** A fresh store; one left open is closed by `closeAll()`, which `describeEachStore` calls after its suite. */
  open(): Promise<TestStore>
  /** Closes every store `open()` gave that is still open. */
  closeAll(): Promise<void>
}

/** The store, its `close` made idempotent and leaving `opened` as it closes. */
function tracked(store: TestStore, opened: Set<TestStore>): TestStore {
  let closing: Promise<void> | null = null
  const t: TestStore = {
    ...store,
    close: () => {
      opened.delete(t)
      closing ??= store.close()
      return closing
    },
  }
  opened.add(t)
  return t
}

async function openSqlite(opened: Set<TestStore>): Promise<TestStore> {
  const db = openDatabase(tempDir())
  const write = recordBatchWriter(db)
  return tracked(
    {
      name: 'sqlite',
      sql: new SqliteSql(db),
      writeRecords: async (records) =>
        write(
          records.map((record) => ({ record, debit: null, bodies: null, at: Date.now() })),
          lastUsed(records),
        ),
      close: async () => void db.close(),
    },
    opened,
  )
}

/** The test process's one database for PostgreSQL stores: each store is a schema of its own in it. */
let database: Promise<string> | null = null

/**
 * A fresh schema, migrated, with the pool's search_path set to it as `--database-schema` sets it:
 * creating a schema takes about a tenth of the time a database takes.
 */
async function openPostgres(opened: Set<TestStore>): Promise<TestStore> {
  database ??= sharedPostgres().then((server) => server.createDatabase())
  const url = await database
  const schema = `gw_store_${randomBytes(6).toString('hex')}`
  // allowExitOnIdle: a pool a failed test left open never keeps the test process alive.
  const pool = new pg.Pool({ connectionString: url, types: pgTypes, options: `-c search_path=${schema}`, max: 4, allowExitOnIdle: true })
  pool.on('error', () => {})
  await pool.query(`CREATE SCHEMA ${schema}`)
  await migratePostgres(pool)
  const sql = new PgSql(pool)
  return tracked(
    {
      name: 'postgres',
      sql,
      writeRecords: async (records) => {
        const errors: unknown[] = []
        const writer = new PgRecordWriter(sql, { onError: (err) => errors.push(err) })
        for (const record of records) writer.push(record)
        await writer.close()
        if (errors.length > 0) throw new AggregateError(errors, `${errors.length} record write(s) failed: ${(errors[0] as Error).message}`)
      },
      close: () => pool.end(),
    },
    opened,
  )
}

/** The last-used time per key the records carry, as both record writers pass it with their batch. */
function lastUsed(records: RequestRecord[]): Array<[string, number]> {
  const at = new Map<string, number>()
  for (const r of records) if (r.key_id) at.set(r.key_id, Date.parse(r.created_at))
  return [...at]
}

/** SQLite, and PostgreSQL (skipped, saying why, where no server can be started here). */
export function storesUnderTest(): StoreUnderTest[] {
  const under = (name: StoreName, skip: string | false, openOne: (opened: Set<TestStore>) => Promise<TestStore>): StoreUnderTest => {
    const opened = new Set<TestStore>()
    return {
      name,
      skip,
      open: () => openOne(opened),
      closeAll: async () => void (await Promise.all([...opened].map((s) => s.close()))),
    }
  }
  return [under('sqlite', false, openSqlite), under('postgres', postgresSkipReason() ?? false, openPostgres)]
}

/**
 * `describe(title [store], …)` once per store, the same tests against each: the body gets the
 * store to open fresh databases of. Stores a test left open are closed after its suite.
 */
export function describeEachStore(title: string, body: (store: StoreUnderTest) => void): void {
  for (const store of storesUnderTest()) {
    describe(`${title} [${store.name}]`, { skip: store.skip }, () => {
      after(() => store.closeAll())
      body(store)
    })
  }
}
