import { ProtoWriter } from './otlpWriter'

/** The `OTEL_BSP_*` batching (the specification's batch span processor). */
export interface Batching {
  scheduledDelayMillis: number
  exportTimeoutMillis: number
  maxQueueSize: number
  maxExportBatchSize: number
}

/** The specification's defaults. */
export const DEFAULT_BATCHING: Batching = { scheduledDelayMillis: 5000, exportTimeoutMillis: 30000, maxQueueSize: 2048, maxExportBatchSize: 512 }

/** Spans already in OTLP's protobuf, one after the other (otlpWriter's beginSpan and endSpan), and how many. */
export interface SpanBatch {
  spans: Buffer
  count: number
}

/** Sends a batch; `done` with null once it is sent, else with why it was not. */
export interface BatchExporter {
  export(batch: SpanBatch, done: (error: Error | null) => void): void
  /** Waits for the exports under way, then stops. */
  shutdown(): Promise<void>
}

const spans = (n: number) => (n === 1 ? '1 span' : `${n} spans`)

/**
 * The batch span processor of the specification, for spans written straight into protobuf as they
 * end: a span is written into the batch being filled (`take`, then `added`), a batch goes out when
 * it is full or `scheduledDelayMillis` after its first span, one export at a time (each given up
 * on after `exportTimeoutMillis`). With `maxQueueSize` spans waiting, a span ending is dropped and
 * counted, so a slow or dead collector costs requests nothing but those spans. What went wrong
 * (an export failed or timed out, spans dropped since) is told to `warn` as each export ends.
 */
export class SpanQueue {
  /** Spans dropped because the queue was full, since `warn` was last told. */
  private dropped = 0
  private writer: ProtoWriter
  /** Spans in `writer`. */
  private filling = 0
  /** Batches full or due, waiting for the export before them. */
  private readonly ready: SpanBatch[] = []
  /** Spans in `writer` and `ready`: those not yet handed to the exporter. */
  private queued = 0
  private exporting: Promise<void> | null = null
  private timer: NodeJS.Timeout | null = null
  private stopped = false
  /** The size of the last batch, so a batch's buffer seldom needs to grow. */
  private lastBytes = 16 * 1024

  constructor(
    private readonly batching: Batching,
    private readonly exporter: BatchExporter,
    private readonly warn: (message: string) => void,
  ) {
    this.writer = new ProtoWriter(this.lastBytes)
  }

  /** Where to write a span that has ended; null when the queue is full (the span is counted as dropped) or shut down. */
  take(): ProtoWriter | null {
    if (this.stopped) return null
    if (this.queued >= this.batching.maxQueueSize) {
      this.dropped++
      return null
    }
    return this.writer
  }

  /** The span `take` made room for is written. */
  added(): void {
    this.queued++
    if (++this.filling >= this.batching.maxExportBatchSize) {
      this.seal()
      this.pump()
    } else if (this.timer === null) {
      this.timer = setTimeout(this.due, this.batching.scheduledDelayMillis).unref()
    }
  }

  /** Sends every span ended so far, and waits until they are sent or given up on. */
  async flush(): Promise<void> {
    this.seal()
    while (this.exporting !== null || this.ready.length > 0) {
      if (this.exporting === null) this.pump()
      await this.exporting
    }
  }

  /**
   * Sends what is left, then stops: later spans are dropped. An export the collector does not
   * answer holds the shutdown for `exportTimeoutMillis` at most, the exporter's own retries included.
   */
  async shutdown(): Promise<void> {
    await this.flush()
    this.stopped = true
    if (this.timer !== null) clearTimeout(this.timer)
    let timeout: NodeJS.Timeout | undefined
    await Promise.race([this.exporter.shutdown(), new Promise((resolve) => (timeout = setTimeout(resolve, this.batching.exportTimeoutMillis).unref()))])
    clearTimeout(timeout)
  }

  private readonly due = () => {
    this.timer = null
    this.seal()
    this.pump()
  }

  /** The batch being filled is ready to go; a new one is begun. */
  private seal(): void {
    if (this.filling === 0) return
    const spans = this.writer.bytes()
    this.ready.push({ spans, count: this.filling })
    this.lastBytes = spans.length
    this.writer = new ProtoWriter(this.lastBytes + 1024)
    this.filling = 0
  }

  /** Exports the next ready batch unless one is under way. */
  private pump(): void {
    if (this.exporting !== null) return
    const batch = this.ready.shift()
    if (batch === undefined) return
    this.queued -= batch.count
    this.exporting = new Promise((resolve) => {
      let settled = false
      // Sent, failed or given up on, whichever comes first: a late answer changes nothing.
      const finish = (error: Error | null) => {
        if (settled) return
        settled = true
        clearTimeout(timeout)
        if (error) this.warn(`tracing: ${spans(batch.count)} not exported: ${error.message}`)
        if (this.dropped > 0) {
          this.warn(`tracing: ${spans(this.dropped)} dropped, the export queue being full (OTEL_BSP_MAX_QUEUE_SIZE=${this.batching.maxQueueSize})`)
          this.dropped = 0
        }
        this.exporting = null
        resolve()
        if (this.ready.length > 0) this.pump()
        else if (this.filling > 0 && this.timer === null && !this.stopped) this.timer = setTimeout(this.due, this.batching.scheduledDelayMillis).unref()
      }
      const timeout = setTimeout(
        () => finish(new Error(`no answer in ${this.batching.exportTimeoutMillis} ms (OTEL_BSP_EXPORT_TIMEOUT)`)),
        this.batching.exportTimeoutMillis,
      ).unref()
      this.exporter.export(batch, finish)
    })
  }
}
