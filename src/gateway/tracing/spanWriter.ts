import type { Attributes } from '@opentelemetry/api'
import { VERSION } from '../version'
import { resourceAndScope } from './otlpWriter'
import { otlpExporter } from './otlpExport'
import { SpanQueue, type Batching } from './spanQueue'
import { writeTraces, type TraceValue } from './traceRow'

/** The gateway's one tracer: every span is of this instrumentation scope, written once a batch. */
const SCOPE = { name: 'gw-gateway', version: VERSION }

/** Where spans go and how they are batched, as the `OTEL_*` variables say (read and checked as tracing starts). */
export interface SpanExport {
  /** The traces URL. */
  url: string
  headers: Record<string, string>
  /** The resource's attributes: who the spans are from. */
  resource: Attributes
  batching: Batching
}

/** Writes requests' traces into OTLP protobuf (traceRow.ts) and exports them in batches (spanQueue.ts, otlpExport.ts). */
export class SpanWriter {
  private readonly queue: SpanQueue

  constructor(settings: SpanExport, warn: (message: string) => void) {
    const exporter = otlpExporter(settings.url, settings.headers, resourceAndScope(settings.resource, SCOPE))
    this.queue = new SpanQueue(settings.batching, exporter, warn)
  }

  write(row: readonly TraceValue[]): void {
    writeTraces(row, this.queue)
  }

  /** Exports what is left, then stops. */
  shutdown(): Promise<void> {
    return this.queue.shutdown()
  }
}
