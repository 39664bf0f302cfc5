import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import { openDatabase } from '../../src/gateway/store/db'
import { bumpConfigRev, ConfigWatcher } from '../../src/gateway/store/configRev'
import { tempDir } from '../support/tempDir'

describe('configuration changes from other processes', () => {
  it('are seen by the first check 1 ms or more after the commit, with the row read at most once a millisecond', () => {
    const db = openDatabase(tempDir())
    const cli = new Database(db.name)
    const watcher = new ConfigWatcher(db)
    assert.equal(watcher.changed(100), true, 'the first check loads')
    assert.equal(watcher.changed(100.5), false)
    bumpConfigRev(cli)
    // Within the same millisecond as the last read the row is not read again...
    assert.equal(watcher.changed(100.9), false)
    // ...and from 1 ms on it is, and the change is seen once.
    assert.equal(watcher.changed(101), true)
    assert.equal(watcher.changed(102), false)
    bumpConfigRev(cli)
    assert.equal(watcher.changed(103), true)
    cli.close()
    db.close()
  })

  it('invalidate() makes the very next check reload, for changes made in this process', () => {
    const db = openDatabase(tempDir())
    const watcher = new ConfigWatcher(db)
    assert.equal(watcher.changed(5), true)
    watcher.invalidate()
    assert.equal(watcher.changed(5), true)
    db.close()
  })

  it("a change through the watcher's own connection is seen by the very next check, within the same millisecond", () => {
    const db = openDatabase(tempDir())
    const watcher = new ConfigWatcher(db)
    assert.equal(watcher.changed(7), true)
    bumpConfigRev(db)
    assert.equal(watcher.changed(7.2), true)
    assert.equal(watcher.changed(7.4), false)
    db.close()
  })
})
