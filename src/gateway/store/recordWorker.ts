/**
 * The request-record writer's thread: it owns a second connection to the store and writes the
 * batches the gateway posts, so inserts, commits and WAL checkpoints never stall the event loop
 * that serves requests. Batches are written in the order they were posted; a batch that fails for
 * a passing reason (disk full, lock held past busy_timeout) is retried, one whose own rows are at
 * fault is written record by record so only what offends is set aside.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { connect } from './db'
import { recordBatchWriter, writeBatchSafely, type SetAside } from './recordBatch'
import { ATTEMPTED, CLOSED, READY, WRITTEN, type Batch, type WorkerData, type ToWorker, type FromWorker } from './recordWorkerProtocol'

/**
 * The record thread's page cache, in KiB (SQLite's own default; better-sqlite3 builds it with
 * 16 MB). The thread appends: its inserts touch the last pages of the table and of each index's
 * ranges, and every page it wrote stayed cached until the 16 MB were full, resident for good
 * (18 MB of the process's peak at 50 connections was this thread's malloc arena).
 */
const RECORD_THREAD_CACHE_KIB = 2000

const { file, state: shared } = workerData as WorkerData
const state = new Int32Array(shared)
const db = connect(file)
db.pragma(`cache_size = -${RECORD_THREAD_CACHE_KIB}`)
const write = recordBatchWriter(db)
const port = parentPort!
const pending: Batch[] = []
let retry: NodeJS.Timeout | null = null

const tell = (msg: FromWorker) => port.postMessage(msg)

const setAside: SetAside = (id, what, message) => tell({ type: 'dropped', id, what, message })

function drain(): void {
  retry = null
  while (pending.length > 0) {
    const batch = pending[0]
    try {
      writeBatchSafely(write, batch.items, batch.lastUsed, setAside)
    } catch (err) {
      // Everything queued counts as attempted, so a caller waiting on a flush is released; the
      // batches stay queued and are tried again shortly.
      Atomics.store(state, ATTEMPTED, pending[pending.length - 1].seq)
      Atomics.notify(state, ATTEMPTED)
      tell({ type: 'failed', message: (err as Error).message })
      retry = setTimeout(drain, 1000)
      return
    }
    pending.shift()
    Atomics.store(state, WRITTEN, batch.seq)
    Atomics.store(state, ATTEMPTED, Math.max(batch.seq, Atomics.load(state, ATTEMPTED)))
    Atomics.notify(state, ATTEMPTED)
  }
}

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'batch') {
    pending.push(msg)
    if (!retry) drain()
    return
  }
  if (retry) clearTimeout(retry)
  drain()
  db.close()
  Atomics.store(state, CLOSED, 1)
  Atomics.notify(state, CLOSED)
  port.close()
})

Atomics.store(state, READY, 1)
Atomics.notify(state, READY)
