import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import Database from 'better-sqlite3'
import { DB_FILE, migrate, openDatabase, schemaVersion } from '../../src/gateway/store/db'
import { migrations } from '../../src/gateway/store/migrations'
import { PricesRepo } from '../../src/gateway/store/pricesRepo'
import { SqliteSql } from '../../src/gateway/store/sqliteSql'
import { tempDir } from '../support/tempDir'

const latest = Math.max(...migrations.map((m) => m.version))
const schemaOf = (db: Database.Database) => db.prepare(`SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`).all()

describe('store migrations', () => {
  it('are numbered 1..N without gaps', () => {
    assert.deepEqual(
      migrations.map((m) => m.version),
      Array.from({ length: latest }, (_, i) => i + 1),
    )
  })

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

  it('refuse a store written by a newer version', () => {
    const dir = tempDir()
    const db = new Database(path.join(dir, DB_FILE))
    db.pragma(`user_version = ${latest + 1}`)
    db.close()
    assert.throws(() => openDatabase(dir), /newer than this build knows/)
  })

  it('leave the previous version intact when a migration fails', () => {
    const db = new Database(':memory:')
    const broken = [
      ...migrations,
      { version: latest + 1, description: 'broken', up: (d: Database.Database) => d.exec('CREATE TABLE t (x); SELECT nope FROM missing') },
    ]
    assert.throws(() => migrate(db, broken))
    assert.equal(schemaVersion(db), latest)
    assert.equal(db.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 't'`).pluck().get(), 0)
  })
})
