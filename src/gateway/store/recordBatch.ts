import type { Db } from './db'
import { TOUCH_KEY_SQL } from './keysRepo'
import { DEBIT_ROW, debitValues } from './ledgerRepo'
import { bodyValues, dimensionValues, RECORD_ROWS, REQUEST_COLUMNS, requestValues, tagValues, type RequestRecord } from './requestsRepo'
import { placeholders, type SqlValue } from './sql'

/**
 * Kept with the record while body logging is on: the JSON text the client sent and the answer's
 * text as serialised for it (without the `gw` block, which the record holds; see sendJson), or a
 * stream's text, so nothing is serialised twice.
 */
export interface Bodies {
  request: string | null
  response: string | null
}

/** A prepaid key's usage debit, written in the same transaction as the request's record. */
export interface Debit {
  keyId: string
  pico: bigint
}

export interface QueuedRecord {
  record: RequestRecord
  debit: Debit | null
  bodies: Bodies | null
  /** When it was queued (Unix ms): how long records wait for the store is measured from it. */
  at: number
}

/** Keys' last-used times by key id, epoch milliseconds. */
export type LastUsed = Array<[string, number]>

export type WriteBatch = (items: QueuedRecord[], lastUsed: LastUsed) => void

/** What of a record was left out of the store, and why. */
export type SetAside = (id: string, what: 'record' | 'debit and bodies', message: string) => void

/**
 * Writes records, their debits and bodies, and keys' last-used times in one transaction: either
 * all of a batch is stored or none of it. SQLite's form: one prepared statement per row, which on
 * SQLite is as fast as a multi-row insert and needs no statement per batch size.
 */
export function recordBatchWriter(db: Db): WriteBatch {
  const row = (part: { insert: string; conflict: string }, n: number) => db.prepare<SqlValue[]>(`${part.insert} VALUES (${placeholders(n)}) ${part.conflict}`)
  const request = db.prepare<SqlValue[]>(`INSERT INTO requests (${REQUEST_COLUMNS.join(', ')}) VALUES (${placeholders(REQUEST_COLUMNS.length)})`)
  const tag = row(RECORD_ROWS.tags, 3)
  const dimension = row(RECORD_ROWS.dimensions, 4)
  const body = row(RECORD_ROWS.bodies, 3)
  const debitStmt = row(DEBIT_ROW, 7)
  const touch = db.prepare<SqlValue[]>(TOUCH_KEY_SQL)
  return db.transaction((items: QueuedRecord[], lastUsed: LastUsed) => {
    for (const { record, debit, bodies } of items) {
      request.run(...requestValues(record))
      for (const values of tagValues(record)) tag.run(...values)
      for (const values of dimensionValues(record)) dimension.run(...values)
      if (debit) debitStmt.run(...debitValues(debit.keyId, Date.parse(record.created_at), debit.pico, record.id))
      if (bodies) body.run(...bodyValues(record.id, bodies))
    }
    for (const [id, at] of lastUsed) touch.run(at, id, at)
  })
}

/**
 * Errors that say nothing about the rows, so the same batch may well be written when tried again:
 * SQLite's (a lock held past busy_timeout, a full disk, an I/O error) and PostgreSQL's (a lost
 * or refused connection, a server shutting down or short of resources, a deadlock).
 */
export function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  // pg's own errors carry no code: a connection lost, timed out or broken earlier, or the pool's wait for one.
  if (typeof code !== 'string')
    return /Connection terminated|connection timeout|timeout exceeded when trying to connect|is not queryable/i.test((err as Error | null)?.message ?? '')
  return /^(SQLITE_(BUSY|LOCKED|FULL|IOERR|NOMEM|CANTOPEN|PROTOCOL|INTERRUPT)|08|53|57P0|40001|40P01|E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|NETUNREACH)|ENOTFOUND|EAI_AGAIN)/.test(
    code,
  )
}

/** One write of a batch's plan: what to write, and what of it is set aside when that fails for its rows. */
interface Attempt {
  items: QueuedRecord[]
  lastUsed: LastUsed
  /** When this write fails for its rows: what is set aside (nothing for the whole batch and last-used times). */
  aside: { id: string; what: 'record' | 'debit and bodies' } | null
}

/**
 * The plan for writing a batch, told after each attempt whether it failed for its rows (the
 * error) or not (null): the whole batch in one transaction; when a row is at fault (it breaks a
 * constraint, or holds a value the store cannot bind or JSON cannot hold), each record alone, then
 * without its debit and bodies, setting aside only what still fails; so one bad row never holds
 * back the others. Keys' last-used times last: shown, never accounted, not worth holding the
 * writer for.
 */
function* writePlan(items: QueuedRecord[], lastUsed: LastUsed): Generator<Attempt, void, unknown> {
  if ((yield { items, lastUsed, aside: null }) === null) return
  for (const item of items) {
    const alone = yield {
      items: [item],
      lastUsed: [],
      aside: item.debit || item.bodies ? { id: item.record.id, what: 'debit and bodies' } : { id: item.record.id, what: 'record' },
    }
    if (alone === null || (!item.debit && !item.bodies)) continue
    yield { items: [{ ...item, debit: null, bodies: null }], lastUsed: [], aside: { id: item.record.id, what: 'record' } }
  }
  yield { items: [], lastUsed, aside: null }
}

/** What an attempt's failure means: a transient error is thrown, for the whole batch to be tried again; a row's is set aside. */
function failed(attempt: Attempt, err: unknown, setAside: SetAside): unknown {
  if (isTransient(err)) throw err
  if (attempt.aside) setAside(attempt.aside.id, attempt.aside.what, (err as Error).message)
  return err
}

/** Writes a batch by `writePlan` with a synchronous writer (SQLite's). */
export function writeBatchSafely(write: WriteBatch, items: QueuedRecord[], lastUsed: LastUsed, setAside: SetAside): void {
  const plan = writePlan(items, lastUsed)
  for (let step = plan.next(); !step.done;) {
    let outcome: unknown = null
    try {
      write(step.value.items, step.value.lastUsed)
    } catch (err) {
      outcome = failed(step.value, err, setAside)
    }
    step = plan.next(outcome)
  }
}

/** Writes a batch by `writePlan` with an asynchronous writer (PostgreSQL's). */
export async function writeBatchSafelyAsync(
  write: (items: QueuedRecord[], lastUsed: LastUsed) => Promise<void>,
  items: QueuedRecord[],
  lastUsed: LastUsed,
  setAside: SetAside,
): Promise<void> {
  const plan = writePlan(items, lastUsed)
  for (let step = plan.next(); !step.done;) {
    let outcome: unknown = null
    try {
      await write(step.value.items, step.value.lastUsed)
    } catch (err) {
      outcome = failed(step.value, err, setAside)
    }
    step = plan.next(outcome)
  }
}
