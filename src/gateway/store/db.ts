import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { migrations as defaultMigrations, type Migration } from './migrations'

export type Db = Database.Database

export const DB_FILE = 'gateway.db'

/**
 * Opens (creating if needed) the store in WAL mode and brings its schema to the latest version.
 * WAL lets a running gateway keep writing records while the CLI or a second process reads and
 * edits configuration.
 */
export function openDatabase(dataDir: string, migrations: Migration[] = defaultMigrations): Db {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const db = connect(path.join(dataDir, DB_FILE))
  migrate(db, migrations)
  return db
}

/** A connection to an existing store, with the settings every connection of the gateway uses. */
export function connect(file: string): Db {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  return db
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number
}

/** Each migration runs in its own transaction together with its version bump, so a failure leaves the previous version intact. */
export function migrate(db: Db, migrations: Migration[] = defaultMigrations, target = Infinity): number {
  const current = schemaVersion(db)
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0)
  if (current > latest) {
    throw new Error(`the store at ${db.name} has schema version ${current}, newer than this build knows (${latest}); upgrade GW Gateway`)
  }
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= current || m.version > target) continue
    db.transaction(() => {
      m.up(db)
      db.pragma(`user_version = ${m.version}`)
    })()
  }
  return schemaVersion(db)
}
