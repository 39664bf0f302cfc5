import type { Bodies, Debit, LastUsed, QueuedRecord } from './recordBatch'
import type { RequestRecord } from './requestsRepo'

/** How long a failed batch waits before it is tried again. */
const RETRY_MS = 1000

/**
 * Records waiting in memory for their batch, with keys' last-used times: a batch is due
 * `maxDelayMs` after the first record of it, or at once when `maxBatch` are waiting. Both record
 * writers (SQLite's thread, PostgreSQL's multi-row inserts) queue through it; `due` takes the
 * batch.
 */
export class RecordQueue {
  private items: QueuedRecord[] = []
  private lastUsed = new Map<string, number>()
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly due: () => void,
    private readonly opts: { maxDelayMs?: number; maxBatch?: number } = {},
  ) {}

  push(record: RequestRecord, debit: Debit | null, bodies: Bodies | null): void {
    this.items.push({ record, debit, bodies })
    if (record.key_id) this.lastUsed.set(record.key_id, Date.parse(record.created_at))
    this.schedule(this.items.length >= (this.opts.maxBatch ?? 64) ? 0 : (this.opts.maxDelayMs ?? 50))
  }

  /** What is waiting, handed over; null when nothing is. */
  take(): { items: QueuedRecord[]; lastUsed: LastUsed } | null {
    this.cancel()
    if (this.items.length === 0 && this.lastUsed.size === 0) return null
    const batch = { items: this.items, lastUsed: [...this.lastUsed] }
    this.items = []
    this.lastUsed = new Map()
    return batch
  }

  /** A batch that could not be written goes back to the head of the queue, and is due again in a second. */
  putBack(items: QueuedRecord[], lastUsed: LastUsed): void {
    this.items = items.concat(this.items)
    for (const [id, at] of lastUsed) if (!this.lastUsed.has(id)) this.lastUsed.set(id, at)
    this.schedule(RETRY_MS)
  }

  /** This key's waiting records. */
  waiting(keyId: string): RequestRecord[] {
    return this.items.filter((i) => i.record.key_id === keyId).map((i) => i.record)
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private schedule(delayMs: number): void {
    if (this.timer && delayMs > 0) return
    this.cancel()
    this.timer = setTimeout(this.due, delayMs)
    this.timer.unref()
  }
}
