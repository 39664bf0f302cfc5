import type { Attributes, HrTime, SpanKind, SpanStatus } from '@opentelemetry/api'
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace'
import { VERSION } from '../version'

/** The gateway's one tracer: every span is of this instrumentation scope, so it need not travel with each. */
export const SCOPE = { name: 'gw-gateway', version: VERSION }

/**
 * An ended span as the export thread gets it back: its ids, times, attributes, status and events.
 * The gateway makes no links, and its resource and scope are the thread's, so neither travels.
 */
export interface PlainSpan {
  name: string
  kind: SpanKind
  traceId: string
  spanId: string
  traceFlags: number
  traceState: string | undefined
  parentSpanId: string | undefined
  parentIsRemote: boolean | undefined
  startTime: HrTime
  endTime: HrTime
  attributes: Attributes
  status: SpanStatus
  events: TimedEvent[]
  droppedAttributesCount: number
  droppedEventsCount: number
}

/**
 * A batch of spans as it crosses to the export thread: one flat array of their fields in a fixed
 * order, each attribute's name as its number in a table the thread keeps (`keys`: the names new
 * since the last batch). Copying it across costs the event loop about a third less than the same
 * spans as objects (whose every attribute name would be copied with each span), bench/tracing.ts.
 */
export interface PackedSpans {
  keys: string[]
  fields: unknown[]
}

/** Packs spans for the thread, numbering attribute names as it first meets them. */
export class SpanPacker {
  private readonly numbers = new Map<string, number>()

  pack(spans: readonly ReadableSpan[]): PackedSpans {
    const keys: string[] = []
    const fields: unknown[] = []
    for (const span of spans) {
      const context = span.spanContext()
      const parent = span.parentSpanContext
      fields.push(
        span.name,
        span.kind,
        context.traceId,
        context.spanId,
        context.traceFlags,
        context.traceState?.serialize() ?? null,
        parent?.spanId ?? null,
        parent?.isRemote ?? null,
        span.startTime[0],
        span.startTime[1],
        span.endTime[0],
        span.endTime[1],
        span.status.code,
        span.status.message ?? null,
        span.droppedAttributesCount,
        span.droppedEventsCount,
        span.events.length === 0 ? null : span.events,
      )
      const count = fields.length
      fields.push(0)
      const attributes = span.attributes
      for (const key in attributes) {
        let n = this.numbers.get(key)
        if (n === undefined) {
          n = this.numbers.size
          this.numbers.set(key, n)
          keys.push(key)
        }
        fields.push(n, attributes[key])
      }
      fields[count] = (fields.length - count - 1) / 2
    }
    return { keys, fields }
  }
}

/** Unpacks the thread's batches, keeping the attribute names' table as the batches extend it. */
export class SpanUnpacker {
  private readonly keys: string[] = []

  unpack({ keys, fields: f }: PackedSpans): PlainSpan[] {
    this.keys.push(...keys)
    const spans: PlainSpan[] = []
    let i = 0
    while (i < f.length) {
      const span: PlainSpan = {
        name: f[i] as string,
        kind: f[i + 1] as SpanKind,
        traceId: f[i + 2] as string,
        spanId: f[i + 3] as string,
        traceFlags: f[i + 4] as number,
        traceState: (f[i + 5] as string | null) ?? undefined,
        parentSpanId: (f[i + 6] as string | null) ?? undefined,
        parentIsRemote: (f[i + 7] as boolean | null) ?? undefined,
        startTime: [f[i + 8] as number, f[i + 9] as number],
        endTime: [f[i + 10] as number, f[i + 11] as number],
        status: f[i + 13] === null ? { code: f[i + 12] as number } : { code: f[i + 12] as number, message: f[i + 13] as string },
        droppedAttributesCount: f[i + 14] as number,
        droppedEventsCount: f[i + 15] as number,
        events: (f[i + 16] as TimedEvent[] | null) ?? [],
        attributes: {},
      }
      const count = f[i + 17] as number
      i += 18
      for (let a = 0; a < count; a++, i += 2) span.attributes[this.keys[f[i] as number]] = f[i + 1] as Attributes[string]
      spans.push(span)
    }
    return spans
  }
}

/** What the export thread starts with: where spans go, with which headers, and who they are from. */
export interface ExportThreadData {
  url: string
  headers: Record<string, string>
  /** `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` as the gateway's configuration has them. */
  serviceName: string | undefined
  resourceAttributes: string | undefined
}

/** To the thread: a batch to export, or a flush or shutdown of its exporter; each answered by its id. */
export type ToExportThread = { type: 'export'; id: number; spans: PackedSpans } | { type: 'flush' | 'shutdown'; id: number }

/** From the thread: request `id` is done, and why it failed if it did. */
export interface FromExportThread {
  id: number
  error: string | null
}
