import { ExportResultCode } from '@opentelemetry/core'
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { envelope } from './otlpWriter'
import type { BatchExporter, SpanBatch } from './spanQueue'

/**
 * Sends batches to the collector with OpenTelemetry's own OTLP/HTTP transport, the one its trace
 * exporter uses: the headers, `OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT` and `_COMPRESSION` (gzip),
 * retries of 429, 502, 503 and 504 with the specification's backoff (and Retry-After), at most 30
 * exports at once. Only the serializing is the gateway's: each batch is already protobuf, and is
 * wrapped in its ExportTraceServiceRequest with the resource and scope written once.
 */
export function otlpExporter(url: string, headers: Record<string, string>, head: { resource: Buffer; scope: Buffer }): BatchExporter {
  const delegate = createOtlpHttpExportDelegate(
    convertLegacyHttpOptions({ url, headers }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
    { serializeRequest: (batch: SpanBatch) => envelope(head, batch.spans), deserializeResponse: ProtobufTraceSerializer.deserializeResponse },
    'otlp_http_span_exporter',
    { name: 'span', countItems: (batch: SpanBatch) => batch.count },
    undefined,
  )
  return {
    export: (batch, done) =>
      delegate.export(batch, (result) => done(result.code === ExportResultCode.SUCCESS ? null : (result.error ?? new Error('the span export failed')))),
    shutdown: () => delegate.shutdown(),
  }
}
