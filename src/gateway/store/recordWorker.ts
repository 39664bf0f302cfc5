/**
 * The request-record writer's thread: it owns a second connection to the store and writes the
 * batches the gateway posts, so inserts, commits and WAL checkpoints never stall the event loop
 * that serves requests. Batches are written in the order they were posted; a batch that fails for
 * a passing reason (disk full, lock held past busy_timeout) is retried, one whose own rows break a
 * constraint is written record by record so only what offends is dropped.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { connect } from './db'
import { recordBatchWriter, type LastUsed, type QueuedRecord } from './recordBatch'
import { ATTEMPTED, CLOSED, READY, WRITTEN, type Batch, type WorkerData, type ToWorker, type FromWorker } from './recordWorkerProtocol'

const { file, state: shared } = workerData as WorkerData
const state = new Int32Array(shared)
const db = connect(file)
const write = recordBatchWriter(db)
const port = parentPort!
const pending: Batch[] = []
let retry: NodeJS.Timeout | null = null

const tell = (msg: FromWorker) => port.postMessage(msg)

function isConstraint(err: unknown): boolean {
  return typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('SQLITE_CONSTRAINT')
}

/**
 * Writes what can be written of a batch that broke a constraint: each record in its own
 * transaction, then without its debit and bodies, and only if that fails too is it dropped.
 */
function writeRowByRow(items: QueuedRecord[], lastUsed: LastUsed): void {
  for (const item of items) {
    try {
      write([item], [])
      continue
    } catch (err) {
      if (!isConstraint(err)) throw err
      if (!item.debit && !item.bodies) {
        tell({ type: 'dropped', id: item.record.id, what: 'record', message: (err as Error).message })
        continue
      }
      tell({ type: 'dropped', id: item.record.id, what: 'debit and bodies', message: (err as Error).message })
    }
    try {
      write([{ record: item.record, debit: null, bodies: null }], [])
    } catch (err) {
      if (!isConstraint(err)) throw err
      tell({ type: 'dropped', id: item.record.id, what: 'record', message: (err as Error).message })
    }
  }
  write([], lastUsed)
}

function drain(): void {
  retry = null
  while (pending.length > 0) {
    const batch = pending[0]
    try {
      try {
        write(batch.items, batch.lastUsed)
      } catch (err) {
        if (!isConstraint(err)) throw err
        writeRowByRow(batch.items, batch.lastUsed)
      }
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
tell({ type: 'ready' })
