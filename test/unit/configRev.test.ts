import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import { openDatabase } from '../../src/gateway/store/db'
import { bumpConfigRev, CONFIG_REV_SQL, PolledConfigWatch, REV_CHECK_MS } from '../../src/gateway/store/configRev'
import { SqliteSql } from '../../src/gateway/store/sqliteSql'
import { tempDir } from '../support/tempDir'
import pg from 'pg'
import { openStore } from '../../src/gateway/store/openStore'
import { postgresSkipReason, sharedPostgres } from '../support/postgres'
import { waitUntil } from '../support/waitUntil'

/** A watcher on its own connection, wired as the store wires it: a change committed through `sql` invalidates it. */
function watched(dir = tempDir()) {
  const sql = new SqliteSql(openDatabase(dir))
  const rev = sql.prepare(CONFIG_REV_SQL)
  const watcher = new PolledConfigWatch(() => (rev.get() as { rev: number }).rev)
  sql.onConfigChange = () => watcher.invalidate()
  return { sql, db: sql.db, watcher }
}

describe('configuration changes from other processes', () => {
  it(`are seen by the first check ${REV_CHECK_MS} ms or more after the commit, with the row read at most once in that time`, async () => {
    const { db, watcher } = watched()
    const cli = new SqliteSql(new Database(db.name))
    assert.equal(watcher.changed(100), true, 'the first check loads')
    assert.equal(watcher.changed(100.5), false)
    await cli.write((tx) => bumpConfigRev(tx))
    // Within REV_CHECK_MS of the last read the row is not read again...
    assert.equal(watcher.changed(100 + REV_CHECK_MS - 0.1), false)
    // ...and from then on it is, and the change is seen once.
    assert.equal(watcher.changed(100 + REV_CHECK_MS), true)
    assert.equal(watcher.changed(100 + 2 * REV_CHECK_MS), false)
    await cli.write((tx) => bumpConfigRev(tx))
    assert.equal(watcher.changed(100 + 3 * REV_CHECK_MS), true)
    cli.db.close()
    db.close()
  })

  it('invalidate() makes the very next check reload, for changes made in this process', () => {
    const { db, watcher } = watched()
    assert.equal(watcher.changed(5), true)
    watcher.invalidate()
    assert.equal(watcher.changed(5), true)
    db.close()
  })

  it("a change through the watcher's own connection is seen by the very next check, however soon", async () => {
    const { sql, db, watcher } = watched()
    assert.equal(watcher.changed(7), true)
    await sql.write((tx) => bumpConfigRev(tx))
    assert.equal(watcher.changed(7.2), true)
    assert.equal(watcher.changed(7.4), false)
    db.close()
  })
})

describe('configuration changes on PostgreSQL, when the listening connection is lost', { skip: postgresSkipReason() ?? false }, () => {
  it('reloads nothing when it drops, then everything once it listens again; notifications work again', async () => {
    const databaseUrl = await (await sharedPostgres()).createDatabase()
    const store = await openStore({ dataDir: tempDir(), databaseUrl })
    const other = await openStore({ dataDir: tempDir(), databaseUrl })
    const admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    try {
      assert.equal(store.config.changed(), true, 'the first check loads')
      assert.equal(store.config.changed(), false)
      const listening = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN gw_config'`
      const killed = await admin.query(`SELECT pg_terminate_backend(pid) FROM (${listening}) AS l`)
      assert.equal(killed.rowCount, 2, "both stores' listeners")
      // Lost: nothing to read yet (the database may be what is gone), once the store has seen its listener go.
      const listener = () => (store.config as unknown as { listener: unknown }).listener
      await waitUntil(() => listener() === null, { what: "the store saw its listener's connection end" })
      assert.equal(store.config.changed(), false)
      const lostAt = Date.now()
      await waitUntil(() => store.config.changed(), { what: 'read again within 5 s of the loss' })
      // Read again only once listening again (nothing changed for the revision poll to see): both stores listen again.
      await waitUntil(async () => (await admin.query(listening)).rowCount === 2, {
        what: 'both listening again within 5 s of the loss',
        timeoutMs: lostAt + 5000 - Date.now(),
      })
      await other.keys.create('made elsewhere')
      await waitUntil(() => store.config.changed(), { what: 'a change made elsewhere is heard of', intervalMs: 5 })
    } finally {
      await admin.end()
      await other.close()
      await store.close()
    }
  })
})
