/**
 * The span thread: writes the traces the gateway's requests ended with into OTLP protobuf and
 * exports them, so that neither the writing nor the export runs on the event loop that serves
 * requests (spanHandoff.ts hands the traces over).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { SpanWriter, type SpanExport } from './spanWriter'
import type { TraceRow } from './traceRow'

export type ToSpanThread = { type: 'traces'; row: TraceRow } | { type: 'shutdown' }
export type FromSpanThread = { type: 'warn'; message: string } | { type: 'closed' }

const port = parentPort!
const tell = (msg: FromSpanThread) => port.postMessage(msg)
const writer = new SpanWriter(workerData as SpanExport, (message) => tell({ type: 'warn', message }))

port.on('message', (msg: ToSpanThread) => {
  if (msg.type === 'traces') return writer.write(msg.row)
  void writer.shutdown().then(() => tell({ type: 'closed' }))
})
