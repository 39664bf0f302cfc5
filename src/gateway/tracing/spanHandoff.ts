import { Worker } from 'node:worker_threads'
import { workerScript } from '../workerScript'
import type { FromSpanThread, ToSpanThread } from './spanThread'
import { SpanWriter, type SpanExport } from './spanWriter'
import type { TraceRow } from './traceRow'

/** Traces wait at most this long on the request's thread before they go to the span thread… */
const HANDOFF_DELAY_MS = 50
/** …or until this many are waiting. */
const HANDOFF_TRACES = 64

/** The span thread's young generation: its garbage is a batch's values and spans, short-lived (as the record thread's; see recordWriter). */
const SPAN_THREAD_YOUNG_MB = 2

/** How long a shutdown waits for the span thread beyond its last export's own timeout. */
const SHUTDOWN_GRACE_MS = 1000

/**
 * Hands ended traces to the span thread (spanThread.ts), which writes and exports their spans:
 * a request's trace is appended to `row` (traceRow's appendTrace) and `ended()` is called; the
 * row goes across every 50 ms or 64 traces. Should the thread fail, the spans are written here
 * from then on, on the event loop (what it held is lost, and said so).
 */
export class SpanHandoff {
  /** Where the traces waiting to go are appended. */
  row: TraceRow = []
  private traces = 0
  private timer: NodeJS.Timeout | null = null
  private worker: Worker | null = null
  private local: SpanWriter | null = null
  private shuttingDown = false
  /** Resolved when the thread says it has exported all it had, or has exited. */
  private closed: () => void = () => {}

  constructor(
    private readonly settings: SpanExport,
    private readonly warn: (message: string) => void,
  ) {
    try {
      const worker = new Worker(workerScript(import.meta.url, 'spanThread', ['@opentelemetry/*']), {
        eval: true,
        workerData: settings,
        resourceLimits: { maxYoungGenerationSizeMb: SPAN_THREAD_YOUNG_MB },
      })
      worker.unref()
      worker.on('message', (msg: FromSpanThread) => (msg.type === 'warn' ? this.warn(msg.message) : this.closed()))
      worker.on('error', (err) => this.fallBack(err))
      worker.on('exit', (code) => {
        if (this.shuttingDown) this.closed()
        else this.fallBack(new Error(`it exited with code ${code}`))
      })
      this.worker = worker
    } catch (err) {
      this.fallBack(err)
    }
  }

  /** A trace was appended to `row`. */
  ended(): void {
    if (++this.traces >= HANDOFF_TRACES) this.send()
    else if (this.timer === null) this.timer = setTimeout(this.send, HANDOFF_DELAY_MS).unref()
  }

  /** Exports what is left (waiting at most the last export's timeout), then stops. */
  async shutdown(): Promise<void> {
    this.send()
    this.shuttingDown = true
    const worker = this.worker
    if (worker === null) return this.local?.shutdown()
    // Held open until the thread has exported what it has: an unref'd thread alone would let the process exit first.
    worker.ref()
    const closed = new Promise<void>((resolve) => (this.closed = resolve))
    worker.postMessage({ type: 'shutdown' } satisfies ToSpanThread)
    let timeout: NodeJS.Timeout | undefined
    await Promise.race([closed, new Promise((resolve) => (timeout = setTimeout(resolve, this.settings.batching.exportTimeoutMillis + SHUTDOWN_GRACE_MS)))])
    clearTimeout(timeout)
    this.worker = null
    await worker.terminate()
  }

  private readonly send = () => {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    if (this.traces === 0) return
    const row = this.row
    this.row = []
    this.traces = 0
    if (this.worker !== null) this.worker.postMessage({ type: 'traces', row } satisfies ToSpanThread)
    else this.local?.write(row)
  }

  private fallBack(err: unknown): void {
    if (this.local !== null || this.shuttingDown) return
    const worker = this.worker
    this.worker = null
    void worker?.terminate()
    this.warn(`tracing: the span thread failed (${(err as Error).message}); spans are written on the main thread from now on, and those it held are lost`)
    this.local = new SpanWriter(this.settings, this.warn)
  }
}
