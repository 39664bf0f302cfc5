/**
 * The span export thread: it turns the batches of ended spans the gateway posts into OTLP's
 * protobuf and sends them to the collector, so that serialisation and HTTP (most of tracing's
 * cost, bench/tracing.ts) happen beside the event loop that serves requests.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { HrTime, SpanContext } from '@opentelemetry/api'
import { ExportResultCode, hrTimeDuration, parseKeyPairsIntoRecord, TraceState } from '@opentelemetry/core'
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions'
import { SCOPE, SpanUnpacker, type ExportThreadData, type FromExportThread, type PlainSpan, type ToExportThread } from './spanExportProtocol'

const data = workerData as ExportThreadData
const port = parentPort!

/** Who the spans are from: `gw-gateway` unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` says otherwise. */
const resource: Resource = defaultResource()
  .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'gw-gateway', [ATTR_SERVICE_VERSION]: SCOPE.version }))
  .merge(resourceFromAttributes(parseKeyPairsIntoRecord(data.resourceAttributes)))
  .merge(data.serviceName ? resourceFromAttributes({ [ATTR_SERVICE_NAME]: data.serviceName }) : null)

/** A span posted by the gateway, as the OTLP exporter reads one. */
class PostedSpan implements ReadableSpan {
  readonly name: string
  readonly kind: PlainSpan['kind']
  readonly parentSpanContext: SpanContext | undefined
  readonly startTime: HrTime
  readonly endTime: HrTime
  readonly status: PlainSpan['status']
  readonly attributes: PlainSpan['attributes']
  readonly links = []
  readonly events: PlainSpan['events']
  readonly duration: HrTime
  readonly ended = true
  readonly resource = resource
  readonly instrumentationScope = SCOPE
  readonly droppedAttributesCount: number
  readonly droppedEventsCount: number
  readonly droppedLinksCount = 0
  private readonly context: SpanContext

  constructor(span: PlainSpan) {
    this.name = span.name
    this.kind = span.kind
    this.context = {
      traceId: span.traceId,
      spanId: span.spanId,
      traceFlags: span.traceFlags,
      traceState: span.traceState === undefined ? undefined : new TraceState(span.traceState),
    }
    this.parentSpanContext =
      span.parentSpanId === undefined
        ? undefined
        : { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: span.traceFlags, isRemote: span.parentIsRemote }
    this.startTime = span.startTime
    this.endTime = span.endTime
    this.duration = hrTimeDuration(span.startTime, span.endTime)
    this.status = span.status
    this.attributes = span.attributes
    this.events = span.events
    this.droppedAttributesCount = span.droppedAttributesCount
    this.droppedEventsCount = span.droppedEventsCount
  }

  spanContext(): SpanContext {
    return this.context
  }
}

const unpacker = new SpanUnpacker()
const exporter = new OTLPTraceExporter({ url: data.url, headers: data.headers })

const answer = (id: number, error: unknown) =>
  port.postMessage({ id, error: error === null ? null : String((error as Error)?.message ?? error) } satisfies FromExportThread)

port.on('message', (msg: ToExportThread) => {
  switch (msg.type) {
    case 'export':
      exporter.export(
        unpacker.unpack(msg.spans).map((s) => new PostedSpan(s)),
        (result) => answer(msg.id, result.code === ExportResultCode.SUCCESS ? null : (result.error ?? 'the export failed')),
      )
      return
    case 'flush':
      exporter.forceFlush().then(
        () => answer(msg.id, null),
        (err: unknown) => answer(msg.id, err),
      )
      return
    case 'shutdown':
      exporter.shutdown().then(
        () => answer(msg.id, null),
        (err: unknown) => answer(msg.id, err),
      )
  }
})
