import { Worker } from 'node:worker_threads'
import type { Db } from './db'
import { workerScript } from '../workerScript'
import { recordBatchWriter, writeBatchSafely, type Bodies, type Debit, type SetAside, type WriteBatch } from './recordBatch'
import { ATTEMPTED, CLOSED, READY, STATE_SLOTS, WRITTEN, type Batch, type FromWorker, type ToWorker, type WorkerData } from './recordWorkerProtocol'
import type { RequestRecord } from './requestsRepo'
import { RecordQueue, recordsOfKey } from './recordQueue'
import type { RecordBacklog } from './store'

export type { Bodies, Debit } from './recordBatch'

/**
 * The record thread's young generation. Its garbage is short-lived (a batch's messages and
 * bindings), so V8's default of up to 16 MB a semi-space bought it nothing but resident memory:
 * capped, the process's V8 pages under load were 62 MB instead of 71. It is off the requests'
 * path, so a scavenge more often there costs no latency.
 */
const RECORD_THREAD_YOUNG_MB = 2

/** SQLite's default automatic checkpoint interval. */
const WAL_AUTOCHECKPOINT_PAGES = 1000

/** How long a flush waits for the record thread before giving up on it. */
const FLUSH_TIMEOUT_MS = 30_000

/**
 * Request records leave the hot path twice over: they queue in memory, and a batch (every
 * `maxDelayMs` or `maxBatch` records) is handed to a worker thread that writes it in one
 * transaction on its own connection. The event loop pays only for copying the batch across;
 * inserts, commits and WAL checkpoints happen beside it. Keys' last-used times ride along.
 *
 * A record is therefore committed within `maxDelayMs` plus the time to write its batch of the
 * moment it was pushed. `start()` starts the thread with the gateway; batches made while it is
 * still loading its modules are written here on this connection, so a record never waits on the
 * thread's start-up (nor could a flush wait for a thread whose module loader may need this
 * thread's event loop). A row at fault is set aside and reported, never retried: the rest of its
 * batch commits.
 *
 * `flushed()` resolves once everything pushed so far has been tried, so a read that follows it
 * (the Requests screen, a spend-limit check) sees every record; it waits without blocking the
 * event loop, which goes on serving while the thread writes (or is stalled on a lock). `flush()`
 * does the same synchronously, for callers that cannot wait (tests reading the store at once).
 * `close()` flushes and stops the thread, so a clean shutdown loses nothing. If the thread cannot start or dies,
 * the writer says why and writes on the event loop instead, beginning with every batch the
 * thread had not committed.
 */
export class RecordWriter {
  private readonly queue: RecordQueue
  private seq = 0
  /** Posted to the thread and not yet known to be committed. */
  private sent: Batch[] = []
  private worker: Worker | null = null
  private readonly state = new Int32Array(new SharedArrayBuffer(STATE_SLOTS * Int32Array.BYTES_PER_ELEMENT))
  /** Writes on this thread's connection: before the thread is ready, and for good once it failed. */
  private local: WriteBatch | null = null
  private failed = false
  private closed = false

  constructor(
    private readonly db: Db,
    private readonly opts: { maxDelayMs?: number; maxBatch?: number; onError?: (err: unknown) => void } = {},
  ) {
    this.queue = new RecordQueue(() => this.post(), opts)
  }

  push(record: RequestRecord, debit: Debit | null = null, bodies: Bodies | null = null): void {
    this.queue.push(record, debit, bodies)
  }

  /** Starts the record thread now rather than with the first batch (a gateway calls this as it starts). */
  start(): void {
    if (!this.failed) this.ensureWorker()
  }

  /** Hands the queue over and blocks until all of it has been tried (at most 30 s a batch). */
  flush(): void {
    this.post()
    while (this.worker && Atomics.load(this.state, ATTEMPTED) < this.lastSent()) this.waitForWorker()
  }

  /** Hands the queue over and resolves once all of it has been tried; the event loop runs meanwhile. */
  async flushed(): Promise<void> {
    this.post()
    const target = this.lastSent()
    while (this.worker && Atomics.load(this.state, ATTEMPTED) < target) await this.workerMoved()
  }

  /**
   * This key's records pushed and not yet known to be committed (queued, or in a batch the
   * thread has not reported written). Read before the store is: what is not listed here was
   * committed before that read began.
   */
  unwritten(keyId: string): RequestRecord[] {
    const written = Atomics.load(this.state, WRITTEN)
    const sent = this.sent.filter((b) => b.seq > written).flatMap((b) => recordsOfKey(b.items, keyId))
    return [...sent, ...this.queue.waiting(keyId)]
  }

  backlog(): RecordBacklog {
    this.settleWritten()
    return this.queue.backlog()
  }

  async close(): Promise<void> {
    await this.flushed()
    this.closed = true
    const worker = this.worker
    if (!worker) return
    this.worker = null
    this.checkpointHere(true)
    if (this.isReady()) {
      worker.postMessage({ type: 'close' } satisfies ToWorker)
      // The thread closes its connection before the caller closes the last one, which checkpoints the WAL.
      const deadline = Date.now() + 5_000
      while (Atomics.load(this.state, CLOSED) === 0 && Date.now() < deadline && worker.threadId !== -1) {
        Atomics.wait(this.state, CLOSED, 0, 50)
      }
    }
    await worker.terminate()
  }

  /**
   * Resolves once the record thread has loaded and opened its connection, or at once when there
   * is none (records are then written on this thread). Until then batches are written here.
   */
  async threadStarted(): Promise<void> {
    while (this.worker && !this.isReady()) {
      const wait = Atomics.waitAsync(this.state, READY, 0, 50)
      if (wait.async) await wait.value
    }
  }

  private isReady(): boolean {
    return Atomics.load(this.state, READY) === 1
  }

  private lastSent(): number {
    return this.sent.length > 0 ? this.sent[this.sent.length - 1].seq : 0
  }

  private post(): void {
    const taken = this.queue.take()
    if (!taken) return
    const batch: Batch = { seq: ++this.seq, ...taken }
    const worker = this.failed ? null : this.ensureWorker()
    if (!worker || !this.isReady()) return this.writeHere([batch])
    this.settleWritten()
    this.sent.push(batch)
    worker.postMessage({ type: 'batch', ...batch } satisfies ToWorker)
  }

  private ensureWorker(): Worker | null {
    if (this.worker) return this.worker
    if (this.closed) return null
    try {
      const data: WorkerData = { file: this.db.name, state: this.state.buffer as SharedArrayBuffer }
      const worker = new Worker(workerScript(import.meta.url, 'recordWorker', ['better-sqlite3']), {
        eval: true,
        workerData: data,
        resourceLimits: { maxYoungGenerationSizeMb: RECORD_THREAD_YOUNG_MB },
      })
      worker.unref()
      worker.on('message', (msg: FromWorker) => this.report(msg))
      worker.on('error', (err) => this.fallBack(err))
      worker.on('exit', (code) => {
        if (this.worker === worker) this.fallBack(new Error(`the record thread exited with code ${code}`))
      })
      this.worker = worker
      this.checkpointHere(false)
    } catch (err) {
      this.fallBack(err)
    }
    return this.worker
  }

  /**
   * While the thread writes the records it also runs the WAL checkpoints (SQLite's automatic one,
   * every 1000 pages, falls to whichever connection commits past the mark and costs an fsync):
   * off this connection, a prepaid debit committed here never pays for one (p99.9 of a debit
   * 5.5–7 ms with, 0.26–0.49 ms without; bench/prepaid-debit.ts).
   */
  private checkpointHere(on: boolean): void {
    this.db.pragma(`wal_autocheckpoint = ${on ? WAL_AUTOCHECKPOINT_PAGES : 0}`)
  }

  private waitForWorker(): void {
    const deadline = Date.now() + FLUSH_TIMEOUT_MS
    const seen = Atomics.load(this.state, ATTEMPTED)
    while (this.stillWaiting(seen, deadline)) Atomics.wait(this.state, ATTEMPTED, seen, 50)
  }

  /** Like waitForWorker, awaiting the thread's notification instead of blocking on it. */
  private async workerMoved(): Promise<void> {
    const deadline = Date.now() + FLUSH_TIMEOUT_MS
    const seen = Atomics.load(this.state, ATTEMPTED)
    while (this.stillWaiting(seen, deadline)) {
      const wait = Atomics.waitAsync(this.state, ATTEMPTED, seen, 50)
      if (wait.async) await wait.value
    }
  }

  /**
   * Whether the thread has yet to attempt past `seen`. Waits are short, so a thread that died
   * without a word (threadId turns -1) or stopped answering is noticed: it is then given up on.
   */
  private stillWaiting(seen: number, deadline: number): boolean {
    if (!this.worker || Atomics.load(this.state, ATTEMPTED) !== seen) return false
    if (this.worker.threadId === -1) this.fallBack(new Error('the record thread stopped'))
    else if (Date.now() > deadline) this.fallBack(new Error(`the record thread did not answer in ${FLUSH_TIMEOUT_MS / 1000} s`))
    else return true
    return false
  }

  /** From here on, batches are written on this thread, starting with those the record thread had not committed. */
  private fallBack(err: unknown): void {
    if (this.failed) return
    this.failed = true
    const worker = this.worker
    this.worker = null
    this.checkpointHere(true)
    if (!this.closed) this.opts.onError?.(new Error(`request records are written on the main thread from now on: ${(err as Error).message}`))
    void worker?.terminate()
    this.settleWritten()
    const unwritten = this.sent
    this.sent = []
    this.writeHere(unwritten)
  }

  private writeHere(batches: Batch[]): void {
    this.local ??= recordBatchWriter(this.db)
    for (const [i, batch] of batches.entries()) {
      try {
        writeBatchSafely(this.local, batch.items, batch.lastUsed, this.setAside)
        this.queue.settle(batch.items)
      } catch (err) {
        // A transient failure: what could not be written goes back to the queue for the next try.
        const rest = batches.slice(i)
        this.queue.putBack(
          rest.flatMap((b) => b.items),
          rest.flatMap((b) => b.lastUsed),
        )
        this.opts.onError?.(err)
        return
      }
    }
  }

  private readonly setAside: SetAside = (id, what, message) => this.opts.onError?.(new Error(`request ${id}: its ${what} could not be stored: ${message}`))

  private report(msg: FromWorker): void {
    if (msg.type === 'dropped') return this.setAside(msg.id, msg.what, msg.message)
    this.queue.failed()
    this.opts.onError?.(new Error(`writing request records failed; will retry: ${msg.message}`))
  }

  /** Batches the thread reports committed leave `sent` and the backlog. */
  private settleWritten(): void {
    const written = Atomics.load(this.state, WRITTEN)
    while (this.sent.length > 0 && this.sent[0].seq <= written) this.queue.settle(this.sent.shift()!.items)
  }
}
