/**
 * The span thread: writes the traces the gateway's requests ended with into OTLP protobuf and
 * exports them, so that neither the writing nor the export runs on the event loop that serves
 * requests (spanHandoff.ts hands the traces over).
 */
import fs from 'node:fs'
import os from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { SpanWriter, type SpanExport } from './spanWriter'
import type { TraceRow } from './traceRow'

export type ToSpanThread = { type: 'traces'; row: TraceRow } | { type: 'shutdown' }
export type FromSpanThread = { type: 'warn'; message: string } | { type: 'closed' }

/** How much nicer than the gateway the span thread runs: requests come first when the cores are busy, and the spans wait in their queue. */
const NICER_BY = 10

/**
 * Lowers this thread's priority, where the system lets one thread's be set apart: Linux, whose
 * setpriority takes a thread's id (from /proc/thread-self). Elsewhere the thread runs as the rest.
 * Measured (bench/README.md): the gateway's throughput with every request traced rose ~2–3.5 %.
 */
function yieldToRequests(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop())
    if (tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(tid) + NICER_BY))
  } catch {
    // Not Linux, or not allowed: nothing lost but the preference.
  }
}
yieldToRequests()

const port = parentPort!
const tell = (msg: FromSpanThread) => port.postMessage(msg)
const writer = new SpanWriter(workerData as SpanExport, (message) => tell({ type: 'warn', message }))

port.on('message', (msg: ToSpanThread) => {
  if (msg.type === 'traces') return writer.write(msg.row)
  void writer.shutdown().then(() => tell({ type: 'closed' }))
})
