import type { Attributes, HrTime, SpanKind, SpanStatus } from '@opentelemetry/api'
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace'
import { VERSION } from '../version'

/** The gateway's one tracer: every span is of this instrumentation scope, so it need not travel with each. */
export const SCOPE = { name: 'gw-gateway', version: VERSION }

/**
 * An ended span as it crosses to the export thread: its ids, times, attributes, status and
 * events, as plain data (the SDK's span objects do not survive a structured clone). The gateway
 * makes no links, and its resource and scope are the thread's, so neither travels.
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

export function plainSpan(span: ReadableSpan): PlainSpan {
  const context = span.spanContext()
  const parent = span.parentSpanContext
  return {
    name: span.name,
    kind: span.kind,
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.traceFlags,
    traceState: context.traceState?.serialize(),
    parentSpanId: parent?.spanId,
    parentIsRemote: parent?.isRemote,
    startTime: span.startTime,
    endTime: span.endTime,
    attributes: span.attributes,
    status: span.status,
    events: span.events,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
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
export type ToExportThread = { type: 'export'; id: number; spans: PlainSpan[] } | { type: 'flush' | 'shutdown'; id: number }

/** From the thread: request `id` is done, and why it failed if it did. */
export interface FromExportThread {
  id: number
  error: string | null
}
