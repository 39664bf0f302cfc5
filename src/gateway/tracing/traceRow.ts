import type { Bodies } from '../store/recordBatch'
import type { RequestRecord } from '../store/requestsRepo'
import { beginSpan, endSpan, KIND, ProtoWriter, UNSET, type SpanEvent } from './otlpWriter'
import {
  appendAttemptAttributes,
  appendContent,
  appendRequestAttributes,
  operationOf,
  spanName,
  writeAttemptAttributes,
  writeContentAttributes,
  writeRequestAttributes,
  type ProviderLookup,
} from './spanAttributes'
import type { SpanId, TraceId } from './spanIds'
import type { SpanQueue } from './spanQueue'

/*
 * A sampled request's spans cross to the span thread as plain values, appended to one array with
 * the other requests' of the moment: copying it to the thread costs the request's thread 1–2 µs a
 * trace in a loop and 3.5–4 µs paced as the gateway is (bench/tracing.ts), where copying objects of
 * the same values took twice as long and writing and sending the spans on the event loop cost
 * 25 µs a request (bench/README.md). `appendTrace`
 * puts one request's trace into the row; `writeTraces` reads them back, in the same order, and
 * writes their spans.
 */

export type TraceValue = string | number | boolean | null
/** Requests' traces, one after another. */
export type TraceRow = TraceValue[]

/** Reads a row in the order it was appended. */
export class RowReader {
  at = 0

  constructor(private readonly row: readonly TraceValue[]) {}

  get done(): boolean {
    return this.at >= this.row.length
  }

  next(): TraceValue {
    return this.row[this.at++]
  }

  /** A value appended as a string or null. */
  string(): string | null {
    return this.row[this.at++] as string | null
  }

  number(): number {
    return this.row[this.at++] as number
  }
}

/**
 * A request's span as its trace knows it: its ids, its parent and when it began (ms since the
 * epoch). Its only parent can be the client's span, from its `traceparent`: a remote one.
 */
export interface RequestSpan {
  traceId: TraceId
  spanId: SpanId
  traceState: string
  parentSpanId: SpanId | null
  startMs: number
}

/** An upstream attempt's span: its id and its times (ms since the epoch). */
export interface AttemptSpan {
  spanId: SpanId
  startMs: number
  endMs: number
}

/**
 * Appends a request's trace, ended at `endMs`: its span, then its attempts (a candidate passed over,
 * which has no span of its own, becomes an event on the request's), then what its span says.
 */
export function appendTrace(
  row: TraceRow,
  span: RequestSpan,
  endMs: number,
  attempts: ReadonlyArray<AttemptSpan | undefined>,
  record: RequestRecord,
  content: Bodies | null,
  providers: ProviderLookup,
): void {
  const { traceId, spanId, parentSpanId } = span
  row.push(traceId.w0, traceId.w1, traceId.w2, traceId.w3, spanId.hi, spanId.lo, span.traceState, span.startMs, endMs, record.endpoint)
  if (parentSpanId === null) row.push(null)
  else row.push(parentSpanId.hi, parentSpanId.lo)
  row.push(record.attempts.length)
  for (let i = 0; i < record.attempts.length; i++) {
    const attempt = record.attempts[i]
    const sent = attempts[i]
    row.push(sent !== undefined, attempt.model, attempt.provider)
    if (sent === undefined) {
      row.push(attempt.error)
      continue
    }
    row.push(sent.spanId.hi, sent.spanId.lo, sent.startMs, sent.endMs)
    appendAttemptAttributes(row, attempt, providers)
  }
  row.push(record.model)
  appendRequestAttributes(row, record, providers)
  row.push(record.outcome === 'error', record.error?.message ?? null)
  appendContent(row, content)
}

const NO_EVENTS: readonly SpanEvent[] = []

/**
 * Writes the spans of every trace in `row` into `queue`; a span the queue has no room for is
 * dropped (and counted there), read all the same so the next one is where it should be.
 */
export function writeTraces(row: readonly TraceValue[], queue: SpanQueue): void {
  const r = new RowReader(row)
  while (!r.done) writeTrace(r, queue)
}

/** Where a dropped span is written, to be thrown away. */
let discard: ProtoWriter | null = null

function writeTrace(r: RowReader, queue: SpanQueue): void {
  const traceId = { w0: r.number(), w1: r.number(), w2: r.number(), w3: r.number() }
  const spanId = { hi: r.number(), lo: r.number() }
  const traceState = r.string()!
  const startMs = r.number()
  const endMs = r.number()
  const endpoint = r.next() as RequestRecord['endpoint']
  const parentHi = r.next()
  const parentSpanId = parentHi === null ? null : { hi: parentHi as number, lo: r.number() }
  const operation = operationOf({ endpoint })
  const attempts = r.number()
  let events: SpanEvent[] | null = null
  for (let i = 0; i < attempts; i++) {
    const sent = r.next() === true
    const model = r.string()!
    const provider = r.string()!
    if (!sent) {
      const reason = r.string()
      ;(events ??= []).push({
        timeMs: endMs,
        name: 'gw.attempt.skipped',
        attributes: { 'gw.provider': provider, 'gen_ai.request.model': model, 'gw.reason': reason ?? '' },
      })
      continue
    }
    const attemptId = { hi: r.number(), lo: r.number() }
    const attemptStart = r.number()
    const attemptEnd = r.number()
    const w = writerFrom(queue)
    const head = {
      traceId,
      spanId: attemptId,
      traceState,
      parentSpanId: spanId,
      name: spanName(operation, model),
      kind: KIND.client,
      startMs: attemptStart,
      endMs: attemptEnd,
    }
    const span = beginSpan(w, head)
    const error = writeAttemptAttributes(w, r, operation, provider, model)
    endSpan(w, span, false, NO_EVENTS, error === null ? UNSET : { error: true, message: error })
    if (w !== discard) queue.added()
  }
  const model = r.string()
  const w = writerFrom(queue)
  const span = beginSpan(w, { traceId, spanId, traceState, parentSpanId, name: spanName(operation, model), kind: KIND.server, startMs, endMs })
  writeRequestAttributes(w, r, endpoint, model)
  const failed = r.next() === true
  const message = r.string()
  writeContentAttributes(w, r)
  endSpan(w, span, parentSpanId !== null, events ?? NO_EVENTS, failed ? { error: true, message: message ?? undefined } : UNSET)
  if (w !== discard) queue.added()
}

function writerFrom(queue: SpanQueue): ProtoWriter {
  const w = queue.take()
  if (w !== null) return w
  discard ??= new ProtoWriter(4096)
  discard.pos = 0
  return discard
}
