import type { RecordBacklog, RecordSink } from '../store'
import type { RequestRecord } from '../requestsRepo'
import { bodyValues, dimensionValues, RECORD_ROWS, REQUEST_COLUMNS, requestValues, tagValues } from '../requestsRepo'
import { writeBatchSafelyAsync, type Bodies, type Debit, type LastUsed, type QueuedRecord, type SetAside } from '../recordBatch'
import { TOUCH_KEY_SQL } from '../keysRepo'
import { DEBIT_ROW, debitValues } from '../ledgerRepo'
import { placeholders, type Sql, type SqlValue } from '../sql'
import type { PgSql } from './pgSql'
import { RecordQueue, recordsOfKey } from '../recordQueue'

/** Rows in one INSERT: far below PostgreSQL's 65,535 parameters at the widest row (32 columns). */
const ROWS_PER_INSERT = 1000

/** Inserts rows of one shape with as few statements as the parameter limit allows. */
async function insertRows(tx: Sql, part: { insert: string; conflict: string }, rows: SqlValue[][]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT)
    const one = `(${placeholders(chunk[0].length)})`
    await tx.run(`${part.insert} VALUES ${chunk.map(() => one).join(', ')} ${part.conflict}`, chunk.flat())
  }
}

const REQUESTS = { insert: `INSERT INTO requests (${REQUEST_COLUMNS.join(', ')})`, conflict: '' }

/** One batch in one transaction, a multi-row INSERT per table. */
async function writeBatch(sql: PgSql, items: QueuedRecord[], lastUsed: LastUsed): Promise<void> {
  await sql.atomically(async (tx) => {
    if (items.length > 0) {
      await insertRows(
        tx,
        REQUESTS,
        items.map((i) => requestValues(i.record)),
      )
      await insertRows(
        tx,
        RECORD_ROWS.tags,
        items.flatMap((i) => tagValues(i.record)),
      )
      await insertRows(
        tx,
        RECORD_ROWS.dimensions,
        items.flatMap((i) => dimensionValues(i.record)),
      )
      const debits = items.filter((i) => i.debit)
      await insertRows(
        tx,
        DEBIT_ROW,
        debits.map(({ record, debit }) => debitValues(debit!.keyId, Date.parse(record.created_at), debit!.pico, record.id)),
      )
      const bodies = items.filter((i) => i.bodies)
      await insertRows(
        tx,
        RECORD_ROWS.bodies,
        bodies.map(({ record, bodies }) => bodyValues(record.id, bodies!)),
      )
    }
    for (const [id, at] of lastUsed) await tx.run(TOUCH_KEY_SQL, [at, id, at])
  })
}

/**
 * Batches written at once, each on a connection of its own (the writer's pool has this many): a
 * batch need not wait for the one before it to commit (a database across a network costs a round
 * trip or more a batch).
 */
export const PARALLEL_BATCHES = 3

/**
 * Request records on PostgreSQL: queued in memory, and every `maxDelayMs` or `maxBatch` records
 * written as one batch (a transaction of multi-row inserts) on a pool connection, up to
 * PARALLEL_BATCHES at a time; the event loop only awaits the database, so no request waits on a
 * record. A row at fault is set aside and reported, the rest of its batch committed; a batch that
 * fails for a passing reason (the database unreachable) goes back to the head of the queue and is
 * tried again a second later. A record counts in the backlog until its batch is written.
 */
export class PgRecordWriter implements RecordSink {
  private readonly queue: RecordQueue
  /** Batches handed to the database and not yet known to be committed. */
  private inFlight = new Set<QueuedRecord[]>()
  /** Their writes, for a flush to wait on. */
  private writes = new Set<Promise<void>>()
  private writing = 0
  /** Writes waiting for one under way to end; each is handed its place. */
  private waiting: Array<() => void> = []

  constructor(
    private readonly sql: PgSql,
    private readonly opts: { maxDelayMs?: number; maxBatch?: number; onError?: (err: unknown) => void } = {},
  ) {
    this.queue = new RecordQueue(() => this.post(), opts)
  }

  push(record: RequestRecord, debit: Debit | null = null, bodies: Bodies | null = null): void {
    this.queue.push(record, debit, bodies)
  }

  start(): void {}

  async flushed(): Promise<void> {
    this.post()
    await Promise.all(this.writes)
  }

  unwritten(keyId: string): RequestRecord[] {
    const sent = [...this.inFlight].flatMap((items) => recordsOfKey(items, keyId))
    return [...sent, ...this.queue.waiting(keyId)]
  }

  backlog(): RecordBacklog {
    return this.queue.backlog()
  }

  async close(): Promise<void> {
    await this.flushed()
    this.queue.cancel()
  }

  private post(): void {
    const taken = this.queue.take()
    if (!taken) return
    const { items, lastUsed } = taken
    this.inFlight.add(items)
    const write = this.write(items, lastUsed)
    this.writes.add(write)
    void write.finally(() => this.writes.delete(write))
  }

  private async write(items: QueuedRecord[], lastUsed: LastUsed): Promise<void> {
    if (this.writing < PARALLEL_BATCHES) this.writing++
    else await new Promise<void>((resolve) => this.waiting.push(resolve))
    try {
      await writeBatchSafelyAsync((i, l) => writeBatch(this.sql, i, l), items, lastUsed, this.setAside)
      this.queue.settle(items)
    } catch (err) {
      // A passing failure: the batch goes back to the head of the queue for the next try.
      this.queue.putBack(items, lastUsed)
      this.opts.onError?.(new Error(`writing request records failed; will retry: ${(err as Error).message}`))
    } finally {
      this.inFlight.delete(items)
      const next = this.waiting.shift()
      if (next) next()
      else this.writing--
    }
  }

  private readonly setAside: SetAside = (id, what, message) => this.opts.onError?.(new Error(`request ${id}: its ${what} could not be stored: ${message}`))
}
