import { afterEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import { openDatabase, type Db } from '../../src/gateway/store/db'
import { RecordWriter } from '../../src/gateway/store/recordWriter'
import { RecordQueue } from '../../src/gateway/store/recordQueue'
import { KeysRepo } from '../../src/gateway/store/keysRepo'
import { SqliteSql } from '../../src/gateway/store/sqliteSql'
import { tempDir } from '../support/tempDir'
import { recordFixture } from '../support/recordFixture'
import { waitUntil } from '../support/waitUntil'

const record = (id: string, key: string | null = null) =>
  recordFixture({ id, at: Date.now(), key }, { model: 'gpt-4o-mini', provider: 'openai', upstreamModel: 'gpt-4o-mini' })

describe('request records written by their own thread', () => {
  let db: Db
  let writer: RecordWriter | null = null
  let errors: string[] = []

  const open = () => {
    db = openDatabase(tempDir())
    errors = []
    writer = new RecordWriter(db, { onError: (err) => errors.push((err as Error).message) })
    return writer
  }
  /** A connection of its own, like the CLI's: it sees only what was committed. */
  const storedIds = () => {
    const other = new Database(db.name, { readonly: true })
    try {
      return other.prepare(`SELECT id FROM requests ORDER BY id`).pluck().all() as string[]
    } finally {
      other.close()
    }
  }
  /** Until `n` records are committed, as another connection sees them. */
  const stored = (n: number) => waitUntil(() => storedIds().length === n, { what: `${n} records stored`, timeoutMs: 10_000 })
  const isReady = (w: RecordWriter) => (w as unknown as { isReady(): boolean }).isReady()
  /** Until the record thread has loaded and opened its connection. */
  const threadReady = (w: RecordWriter) => waitUntil(() => isReady(w), { what: 'the record thread ready', timeoutMs: 10_000 })
  /** Until the writer has reported `n` errors (the thread's reports arrive as messages). */
  const reported = (n: number) => waitUntil(() => errors.length >= n, { what: `${n} errors reported`, timeoutMs: 10_000 })
  /** How many batches the writer has taken from its queue (to the thread, or written here). */
  const batchesTaken = (w: RecordWriter) => (w as unknown as { seq: number }).seq

  afterEach(async () => {
    await writer?.close()
    writer = null
    db.close()
  })

  it('flush() returns with every pushed record stored, before and after the thread is up', async () => {
    const w = open()
    w.push(record('a'))
    w.flush()
    assert.deepEqual(storedIds(), ['a'])
    // Without a flush, a record is stored by the thread on its own once it is running.
    w.push(record('b'))
    await stored(2)
    w.push(record('c'))
    w.push(record('d'))
    w.flush()
    assert.deepEqual(storedIds(), ['a', 'b', 'c', 'd'])
    assert.deepEqual(errors, [])
  })

  it('writes on its own connection, while the event loop is busy', async () => {
    const w = open()
    w.start()
    await threadReady(w)
    const writtenHere = () => db.prepare(`SELECT total_changes()`).pluck().get() as number
    const before = writtenHere()
    w.push(record('warm'))
    await stored(1)
    const taken = batchesTaken(w)
    for (let i = 0; i < 64; i++) w.push(record(`r${String(i).padStart(2, '0')}`))
    // A full batch is handed over on the next turn of the event loop...
    await waitUntil(() => batchesTaken(w) > taken, { what: 'the full batch handed to the thread' })
    // ...and stored while this thread spins without yielding.
    const deadline = Date.now() + 10_000
    while (storedIds().length < 65 && Date.now() < deadline) {
      /* spin */
    }
    assert.equal(storedIds().length, 65)
    assert.equal(writtenHere(), before, 'no row was written through the main connection')
    assert.deepEqual(errors, [])
  })

  it("keeps a batch's other records when one breaks a constraint, and says which", async () => {
    const w = open()
    const keys = new KeysRepo(new SqliteSql(db))
    const { info } = await keys.create('prepaid')
    w.push(record('warm'))
    await stored(1)
    w.push(record('ok-1', info.id), { keyId: info.id, pico: 5n }, null)
    // A debit naming a key that does not exist breaks the ledger's foreign key.
    w.push(record('orphan-debit', 'key_gone'), { keyId: 'key_gone', pico: 5n }, null)
    w.push(record('ok-1'))
    w.push(record('ok-2'))
    w.flush()
    assert.deepEqual(storedIds(), ['ok-1', 'ok-2', 'orphan-debit', 'warm'])
    // The thread's reports arrive as messages, after the flush.
    await reported(2)
    assert.equal(errors.length, 2, errors.join('\n'))
    assert.match(errors[0], /orphan-debit: its debit and bodies could not be stored: FOREIGN KEY/)
    assert.match(errors[1], /ok-1: its record could not be stored: UNIQUE/)
    const debits = db.prepare(`SELECT request_id FROM ledger WHERE kind = 'usage'`).pluck().all()
    assert.deepEqual(debits, ['ok-1'])
  })

  /**
   * A debit past SQLite's 64-bit integers (binding it throws a RangeError) and a record JSON cannot
   * hold (a TypeError): each is its own row's fault, which no retry mends.
   */
  const pushPoisoned = (w: RecordWriter, keyId: string) => {
    w.push(record('good-1', keyId), { keyId, pico: 5n }, null)
    w.push(record('poisoned-debit', keyId), { keyId, pico: 2n ** 64n }, null)
    w.push({ ...record('poisoned-record'), usage: { prompt_tokens: 1n as unknown as number } })
    w.push(record('good-2'))
  }
  const assertSetAside = async (w: RecordWriter) => {
    assert.deepEqual(storedIds(), ['good-1', 'good-2', 'poisoned-debit'])
    assert.deepEqual(db.prepare(`SELECT request_id FROM ledger WHERE kind = 'usage'`).pluck().all(), ['good-1'])
    await reported(2)
    assert.match(errors[0], /poisoned-debit: its debit and bodies could not be stored: The bound string, buffer, or bigint is too big/)
    assert.match(errors[1], /poisoned-record: its record could not be stored: Cannot mix BigInt/)
    // Not wedged: the next record is stored, and nothing waits for a retry.
    w.push(record('later'))
    w.flush()
    assert.ok(storedIds().includes('later'))
    assert.equal(errors.length, 2, errors.join('\n'))
  }

  it('sets a poisoned row aside and commits the rest of its batch, on the record thread', async () => {
    const w = open()
    const { info } = await new KeysRepo(new SqliteSql(db)).create('prepaid')
    w.start()
    await threadReady(w)
    pushPoisoned(w, info.id)
    w.flush()
    await assertSetAside(w)
  })

  it('sets a poisoned row aside and commits the rest of its batch, on the main thread', async () => {
    const w = open()
    const { info } = await new KeysRepo(new SqliteSql(db)).create('prepaid')
    // Before the thread is ready, batches are written on this connection.
    pushPoisoned(w, info.id)
    w.flush()
    assert.equal(isReady(w), false, 'written here, not by the thread')
    await assertSetAside(w)
  })

  it('stores a record pushed while the thread is starting within the batch delay, without a flush', async () => {
    const w = open()
    w.start()
    w.push(record('first'))
    const pushed = Date.now()
    await stored(1)
    // The thread needs a while to load its modules and open its connection; the record does not wait for it.
    assert.ok(Date.now() - pushed < 300, `stored after ${Date.now() - pushed} ms`)
  })

  it('falls back to writing on the main thread, losing nothing, when the thread dies', async () => {
    const w = open()
    w.push(record('before'))
    await stored(1)
    await (w as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate()
    w.push(record('after'))
    w.flush()
    assert.deepEqual(storedIds(), ['after', 'before'])
    assert.match(errors.join('\n'), /written on the main thread from now on/)
  })

  it('close() stores what is queued and ends the thread', async () => {
    const w = open()
    w.push(record('x'))
    await stored(1)
    w.push(record('y'))
    await w.close()
    writer = null
    assert.deepEqual(storedIds(), ['x', 'y'])
    assert.deepEqual(errors, [])
  })

  it('flushed() waits for a record thread stalled on a lock without blocking the event loop', async () => {
    const w = open()
    w.start()
    await threadReady(w)
    // Another process holds the write lock: the thread's insert waits on it (busy_timeout).
    const other = new Database(db.name)
    other.exec('BEGIN IMMEDIATE')
    w.push(record('stalled'))
    let ticks = 0
    const ticker = setInterval(() => ticks++, 10)
    let settled = false
    const flushing = w.flushed().then(() => (settled = true))
    try {
      // Timers keep firing while the flush waits (a blocking wait would stop them for the thread's busy timeout, 5 s).
      const waited = await waitUntil(() => ticks >= 10, { what: 'ten timer ticks while the flush waited', timeoutMs: 2000 })
      assert.equal(settled, false, `the flush is still waiting for the thread (after ${waited} ms)`)
    } finally {
      other.exec('COMMIT')
      other.close()
    }
    await flushing
    clearInterval(ticker)
    assert.deepEqual(storedIds(), ['stalled'])
    assert.deepEqual(errors, [])
  })

  it('counts what it holds in its backlog until the store has it: queued, and in a batch the thread is writing', async () => {
    const w = open()
    w.start()
    await threadReady(w)
    assert.deepEqual(w.backlog(), { records: 0, bytes: 0, failingSince: null, lagMs: 0 })
    const other = new Database(db.name)
    other.exec('BEGIN IMMEDIATE')
    try {
      w.push(record('plain'))
      w.push(record('logged'), null, { request: 'x'.repeat(1000), response: 'y'.repeat(500) })
      assert.deepEqual(w.backlog(), { records: 2, bytes: 2 * 2048 + 1500, failingSince: null, lagMs: 0 })
      // The batch goes to the thread after the batch delay, and waits there on the lock: still held.
      const taken = batchesTaken(w)
      await waitUntil(() => batchesTaken(w) > taken, { what: 'the batch handed to the thread' })
      assert.deepEqual(storedIds(), [])
      assert.equal(w.backlog().records, 2)
    } finally {
      other.exec('COMMIT')
      other.close()
    }
    await stored(2)
    await waitUntil(() => w.backlog().records === 0, { what: 'the backlog empty', timeoutMs: 10_000 })
    const { lagMs, ...rest } = w.backlog()
    assert.deepEqual(rest, { records: 0, bytes: 0, failingSince: null })
    // The batch waited on the lock from its records' queuing to its commit.
    assert.ok(lagMs > 0, `lag ${lagMs} ms`)
  })
})

describe('the record queue', () => {
  it("hands keys' last-used times over in the order of their ids, whatever the order of the requests", () => {
    const queue = new RecordQueue(() => {})
    for (const key of ['key_c', 'key_a', 'key_b', 'key_a']) queue.push(record(`r-${key}-${Math.random()}`, key), null, null)
    assert.deepEqual(
      queue.take()!.lastUsed.map(([id]) => id),
      ['key_a', 'key_b', 'key_c'],
    )
    queue.cancel()
  })

  it('after a failed batch, waits a second before the next try however many records arrive, and says since when it fails', (t) => {
    // A clock the test moves: the retry's delay is what is under test, and no second is waited out.
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() })
    let due = 0
    const queue = new RecordQueue(() => due++, { maxDelayMs: 10, maxBatch: 4 })
    queue.push(record('first'), null, null)
    const failedAt = Date.now()
    const batch = queue.take()!
    queue.putBack(batch.items, batch.lastUsed)
    const { failingSince } = queue.backlog()
    assert.ok(failingSince !== null && failingSince >= failedAt, 'failing since the put-back')
    // Well past maxBatch: without the back-off each of these would make a batch due at once.
    for (let i = 0; i < 20; i++) queue.push(record(`r${i}`), null, null)
    t.mock.timers.tick(300)
    assert.equal(due, 0, 'no try before the retry delay')
    t.mock.timers.tick(700)
    assert.equal(due, 1, 'one try, with everything waiting')
    const retried = queue.take()!
    assert.equal(retried.items.length, 21)
    assert.equal(queue.backlog().records, 21)
    queue.settle(retried.items)
    // The oldest record of the batch written was queued a second before its commit.
    assert.deepEqual(queue.backlog(), { records: 0, bytes: 0, failingSince: null, lagMs: 1000 })
    queue.cancel()
  })
})
