import type { LastUsed, QueuedRecord } from './recordBatch'

/** Slots of the Int32Array shared by the gateway and its record thread. */
export const WRITTEN = 0 // the last batch committed (batches are written in order)
export const ATTEMPTED = 1 // the last batch tried at least once (a flush waits for this, not for a retry)
export const CLOSED = 2 // 1 once the thread closed its connection
export const READY = 3 // 1 once the thread has loaded its modules and opened its connection
export const STATE_SLOTS = 4

export interface WorkerData {
  /** The store's file, opened by the thread as a second connection. */
  file: string
  state: SharedArrayBuffer
}

/** Records handed over together, numbered in the order they are posted. */
export interface Batch {
  seq: number
  items: QueuedRecord[]
  lastUsed: LastUsed
}

export type ToWorker = ({ type: 'batch' } & Batch) | { type: 'close' }

export type FromWorker = { type: 'failed'; message: string } | { type: 'dropped'; id: string; what: 'record' | 'debit and bodies'; message: string }
