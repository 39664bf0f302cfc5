import type { Bodies, Debit, LastUsed, QueuedRecord } from './recordBatch'
import type { RequestRecord } from './requestsRepo'
import type { RecordBacklog } from './store'

/** How long a failed batch waits before it is tried again. */
const RETRY_MS = 1000

/**
 * What a queued record holds in memory besides its bodies' text: the record object with its
 * attribution, cost and routing. Measured: 20,000 chat completions' records queued for a stopped
 * PostgreSQL grew the heap by 2,047 bytes each.
 */
const RECORD_BYTES = 2048

/** A queued record's share of memory, as the backlog counts it. */
const bytesOf = (item: QueuedRecord): number => RECORD_BYTES + (item.bodies ? (item.bodies.request?.length ?? 0) + (item.bodies.response?.length ?? 0) : 0)

/** The records of one key among queued items (a writer's batches still being written, or those waiting). */
export const recordsOfKey = (items: QueuedRecord[], keyId: string): RequestRecord[] => items.filter((i) => i.record.key_id === keyId).map((i) => i.record)

/**
 * Records waiting in memory for their batch, with keys' last-used times: a batch is due
 * `maxDelayMs` after the first record of it, or at once when `maxBatch` are waiting. Both record
 * writers (SQLite's thread, PostgreSQL's multi-row inserts) queue through it; `due` takes the
 * batch.
 *
 * It also keeps the backlog: every record pushed counts until its writer `settle`s it (written,
 * or set aside), whether it waits here or in a batch being written. After a batch failed for a
 * passing reason the next try waits RETRY_MS, however many records arrive meanwhile, so a store
 * that is down is not asked again for every request.
 */
export class RecordQueue {
  private items: QueuedRecord[] = []
  private lastUsed = new Map<string, number>()
  private timer: NodeJS.Timeout | null = null
  /** A failed batch's retry is scheduled: records arriving meanwhile wait for it. */
  private backingOff = false
  private held = 0
  private heldBytes = 0
  private failingSince: number | null = null
  private lagMs = 0

  constructor(
    private readonly due: () => void,
    private readonly opts: { maxDelayMs?: number; maxBatch?: number } = {},
  ) {}

  push(record: RequestRecord, debit: Debit | null, bodies: Bodies | null): void {
    const item = { record, debit, bodies, at: Date.now() }
    this.items.push(item)
    this.held++
    this.heldBytes += bytesOf(item)
    if (record.key_id) this.lastUsed.set(record.key_id, Date.parse(record.created_at))
    if (!this.backingOff) this.schedule(this.items.length >= (this.opts.maxBatch ?? 64) ? 0 : (this.opts.maxDelayMs ?? 50))
  }

  /** What is waiting, handed over; null when nothing is. Its records count in the backlog until settled. */
  take(): { items: QueuedRecord[]; lastUsed: LastUsed } | null {
    this.cancel()
    this.backingOff = false
    if (this.items.length === 0 && this.lastUsed.size === 0) return null
    // Keys' rows are updated in one order, by id, in every batch: two batches written at once (by
    // this gateway's parallel writes or by two gateways) that touched the same keys in opposite
    // orders deadlocked on PostgreSQL, and one of them had to be tried again.
    const lastUsed = [...this.lastUsed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    const batch = { items: this.items, lastUsed }
    this.items = []
    this.lastUsed = new Map()
    return batch
  }

  /** A batch that could not be written goes back to the head of the queue, and is due again in a second. */
  putBack(items: QueuedRecord[], lastUsed: LastUsed): void {
    this.items = items.concat(this.items)
    for (const [id, at] of lastUsed) if (!this.lastUsed.has(id)) this.lastUsed.set(id, at)
    this.failed()
    this.cancel()
    this.backingOff = true
    this.schedule(RETRY_MS)
  }

  /** A write failed for a passing reason (the batch is retried where it is, or put back). */
  failed(): void {
    this.failingSince ??= Date.now()
  }

  /** These records are written (or set aside as unstorable): the store answers, and they leave the backlog. */
  settle(items: QueuedRecord[]): void {
    // A batch keeps its records in the order they came, a batch put back at the head: its first is its oldest.
    if (items.length > 0) this.lagMs = Date.now() - items[0].at
    this.held -= items.length
    for (const item of items) this.heldBytes -= bytesOf(item)
    this.failingSince = null
  }

  backlog(): RecordBacklog {
    return { records: this.held, bytes: this.heldBytes, failingSince: this.failingSince, lagMs: this.lagMs }
  }

  /** This key's waiting records. */
  waiting(keyId: string): RequestRecord[] {
    return recordsOfKey(this.items, keyId)
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
