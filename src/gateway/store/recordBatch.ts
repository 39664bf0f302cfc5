import type { Db } from './db'
import { KeysRepo } from './keysRepo'
import { LedgerRepo } from './ledgerRepo'
import { RequestsRepo, type RequestRecord } from './requestsRepo'

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

/**
 * Writes records, their debits and bodies, and keys' last-used times in one transaction: either
 * all of a batch is stored or none of it.
 */
export function recordBatchWriter(db: Db): WriteBatch {
  const requests = new RequestsRepo(db)
  const keys = new KeysRepo(db)
  const ledger = new LedgerRepo(db)
  return db.transaction((items: QueuedRecord[], lastUsed: LastUsed) => {
    for (const { record, debit, bodies } of items) {
      requests.insert(record)
      if (debit) ledger.debit(debit.keyId, debit.pico, record.id, Date.parse(record.created_at))
      if (bodies) requests.insertBodies(record.id, bodies)
    }
    keys.touch(lastUsed)
  })
}
