import { Worker } from 'node:worker_threads'
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace'
import { workerScript } from '../workerScript'
import { SpanPacker, type ExportThreadData, type FromExportThread, type ToExportThread } from './spanExportProtocol'

type Request = { type: 'export'; spans: ReadableSpan[] } | { type: 'flush' | 'shutdown' }

/**
 * Exports the batches the span processor hands it on a thread of their own (spanExportWorker.ts):
 * the event loop pays only for copying each batch across as plain data (spanExportProtocol.ts), while the OTLP protobuf
 * and the HTTP export (most of tracing's cost when they ran here) happen beside it. A batch is
 * done, for the processor, when the thread has sent it; if the thread dies, every batch fails
 * from then on, as an unreachable collector's would.
 */
export class ThreadSpanExporter implements SpanExporter {
  private readonly worker: Worker
  private readonly waiting = new Map<number, (error: Error | null) => void>()
  private readonly packer = new SpanPacker()
  private nextId = 0
  private dead: Error | null = null

  constructor(data: ExportThreadData) {
    this.worker = new Worker(workerScript(import.meta.url, 'spanExportWorker', ['@opentelemetry/*']), { eval: true, workerData: data })
    // Idle, the thread keeps no process alive (like the span processor's timer); with an export,
    // flush or shutdown under way it does, as the export's own HTTP request did on this thread,
    // so that a shutdown's last spans are sent before the process exits.
    this.worker.unref()
    this.worker.on('message', (msg: FromExportThread) => {
      const done = this.waiting.get(msg.id)
      this.waiting.delete(msg.id)
      if (this.waiting.size === 0) this.worker.unref()
      done?.(msg.error === null ? null : new Error(msg.error))
    })
    this.worker.on('error', (err) => this.died(err))
    this.worker.on('exit', (code) => this.died(new Error(`the span export thread exited (code ${code})`)))
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.send({ type: 'export', spans }).then(
      () => resultCallback({ code: ExportResultCode.SUCCESS }),
      (error: Error) => resultCallback({ code: ExportResultCode.FAILED, error }),
    )
  }

  forceFlush(): Promise<void> {
    return this.send({ type: 'flush' })
  }

  /** Waits for the exports under way, then stops the thread. */
  async shutdown(): Promise<void> {
    try {
      await this.send({ type: 'shutdown' })
    } finally {
      await this.worker.terminate()
    }
  }

  private send(request: Request): Promise<void> {
    if (this.dead) return Promise.reject(this.dead)
    const id = this.nextId++
    const msg: ToExportThread = request.type === 'export' ? { type: 'export', id, spans: this.packer.pack(request.spans) } : { type: request.type, id }
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (error) => (error ? reject(error) : resolve()))
      this.worker.ref()
      this.worker.postMessage(msg)
    })
  }

  private died(err: Error): void {
    this.dead ??= err
    for (const done of this.waiting.values()) done(this.dead)
    this.waiting.clear()
  }
}
