import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { DB_FILE } from '../../src/gateway/store/db'
import { SqliteSql } from '../../src/gateway/store/sqliteSql'
import { PgSql, pgTypes } from '../../src/gateway/store/postgres/pgSql'

/**
 * Each PostgreSQL test gateway's database URL, by its data dir (the harness fills it in as it
 * creates the database). A data dir not in it is a SQLite gateway's: its store is the file there.
 */
export const databases = new Map<string, string>()

/** The database URL of the test gateway with this data dir, or null when its store is the SQLite file there. */
export const databaseUrlOf = (dataDir: string): string | null => databases.get(dataDir) ?? null

/**
 * Runs SQL on a test gateway's store over a connection of its own, closed after: for what a test
 * checks that the store deliberately does not offer (rows of child tables, backdated rows, what
 * another process would read). The SQL must run on both engines; what only one has (a query
 * plan, a trigger) is written in both forms side by side, chosen by the harness's `TEST_STORE`.
 */
export async function withStoreSql<T>(dataDir: string, fn: (sql: SqliteSql | PgSql) => T | Promise<T>): Promise<T> {
  const url = databaseUrlOf(dataDir)
  if (url) {
    const sql = new PgSql(new pg.Pool({ connectionString: url, types: pgTypes, max: 2 }))
    try {
      return await fn(sql)
    } finally {
      await sql.pool.end()
    }
  }
  const sql = new SqliteSql(new Database(path.join(dataDir, DB_FILE)))
  try {
    return await fn(sql)
  } finally {
    sql.db.close()
  }
}
