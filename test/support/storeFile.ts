import path from 'node:path'
import Database from 'better-sqlite3'
import { DB_FILE } from '../../src/gateway/store/db'

/**
 * Runs SQL on a test gateway's SQLite file over a connection of its own, closed after: for what a
 * test checks that the store deliberately does not offer (rows of child tables, query plans,
 * backdated rows).
 */
export function withStoreFile<T>(dataDir: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path.join(dataDir, DB_FILE))
  try {
    return fn(db)
  } finally {
    db.close()
  }
}
