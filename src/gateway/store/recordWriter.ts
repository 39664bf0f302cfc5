import type { Db } from './db'
import { RequestsRepo, type RequestRecord } from './requestsRepo'
import { KeysRepo } from './keysRepo'
import { LedgerRepo } from './ledgerRepo'

/** Kept with the record while body logging is on. */
export interface Bodies {
  request: unknown
  response: unknown
}

interface Queued {
  record: RequestRecord
  debit: Debit | null
  bodies: Bodies | null
}

/** A prepaid key's usage debit, written in the same transaction as the request's record. */
export interface Debit {
  keyId: string
  pico: bigint
}

/**
 * Request records leave the hot path: they queue in memory and are written in one transaction
 * per batch (every `maxDelayMs` or `maxBatch` records, whichever comes first). Keys' last-used
 * times ride along in the same transaction. `close()` flushes, so a clean shutdown loses nothing.
 */
export class RecordWriter {
  private queue: Array<Queued> = []
  private lastUsed = new Map<string, number>()
  private timer: NodeJS.Timeout | null = null
  private readonly writeBatch: (items: Queued[], lastUsed: Map<string, number>) => void

  constructor(
    db: Db,
    private readonly opts: { maxDelayMs?: number; maxBatch?: number; onError?: (err: unknown) => void } = {},
  ) {
    const requests = new RequestsRepo(db)
    const keys = new KeysRepo(db)
    const ledger = new LedgerRepo(db)
    this.writeBatch = db.transaction((items: Queued[], lastUsed: Map<string, number>) => {
      for (const { record, debit, bodies } of items) {
        requests.insert(record)
        if (debit) ledger.debit(debit.keyId, debit.pico, record.id, Date.parse(record.created_at))
        if (bodies) requests.insertBodies(record.id, bodies)
      }
      keys.touch(lastUsed)
    })
  }

  push(record: RequestRecord, debit: Debit | null = null, bodies: Bodies | null = null): void {
    this.queue.push({ record, debit, bodies })
    if (record.key_id) this.lastUsed.set(record.key_id, Date.parse(record.created_at))
    // Small batches: a flush runs on the event loop, and a long one delays every request's p99.
    if (this.queue.length >= (this.opts.maxBatch ?? 64)) this.schedule(0)
    else this.schedule(this.opts.maxDelayMs ?? 50)
  }

  get pending(): number {
    return this.queue.length
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (this.queue.length === 0 && this.lastUsed.size === 0) return
    const records = this.queue
    const lastUsed = this.lastUsed
    this.queue = []
    this.lastUsed = new Map()
    try {
      this.writeBatch(records, lastUsed)
    } catch (err) {
      // A failed batch (disk full, locked past busy_timeout) goes back to the queue for the next try.
      this.queue = records.concat(this.queue)
      for (const [id, at] of lastUsed) if (!this.lastUsed.has(id)) this.lastUsed.set(id, at)
      this.opts.onError?.(err)
      this.schedule(1000)
    }
  }

  close(): void {
    this.flush()
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private schedule(delayMs: number): void {
    if (this.timer && delayMs > 0) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => this.flush(), delayMs)
    this.timer.unref()
  }
}
