import type { Db } from './db'
import { TOUCH_KEY_SQL } from './keysRepo'
import { DEBIT_SQL } from './ledgerRepo'
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
  const debitStmt = db.prepare<SqlValue[]>(DEBIT_SQL)
  const touch = db.prepare<SqlValue[]>(TOUCH_KEY_SQL)
  return db.transaction((items: QueuedRecord[], lastUsed: LastUsed) => {
    for (const { record, debit, bodies } of items) {
      request.run(...requestValues(record))
      for (const values of tagValues(record)) tag.run(...values)
      for (const values of dimensionValues(record)) dimension.run(...values)
      if (debit) debitStmt.run(debit.keyId, Date.parse(record.created_at), -debit.pico, record.id)
      if (bodies) body.run(...bodyValues(record.id, bodies))
    }
    for (const [id, at] of lastUsed) touch.run(at, id, at)
  })
}

/**
 * SQLite errors that say nothing about the rows (a lock held past busy_timeout, a full disk, an
 * I/O error): the same batch may well be written when tried again.
 */
export function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|FULL|IOERR|NOMEM|CANTOPEN|PROTOCOL|INTERRUPT)/.test(code)
}

/**
 * Writes a batch in one transaction. When a row is at fault (it breaks a constraint, or holds a
 * value SQLite cannot bind or JSON cannot hold), each record is written alone, then without its
 * debit and bodies, and only what still fails is set aside; so one bad row never holds back the
 * others. A transient error is thrown, for the whole batch to be tried again.
 */
export function writeBatchSafely(write: WriteBatch, items: QueuedRecord[], lastUsed: LastUsed, setAside: SetAside): void {
  try {
    return write(items, lastUsed)
  } catch (err) {
    if (isTransient(err)) throw err
  }
  for (const item of items) {
    try {
      write([item], [])
      continue
    } catch (err) {
      if (isTransient(err)) throw err
      if (!item.debit && !item.bodies) {
        setAside(item.record.id, 'record', (err as Error).message)
        continue
      }
      setAside(item.record.id, 'debit and bodies', (err as Error).message)
    }
    try {
      write([{ record: item.record, debit: null, bodies: null }], [])
    } catch (err) {
      if (isTransient(err)) throw err
      setAside(item.record.id, 'record', (err as Error).message)
    }
  }
  try {
    write([], lastUsed)
  } catch (err) {
    // Keys' last-used times are shown, never accounted: not worth holding the writer for.
    if (isTransient(err)) throw err
  }
}
