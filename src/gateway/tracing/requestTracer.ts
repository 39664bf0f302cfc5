import type { Attributes } from '@opentelemetry/api'
import { parseKeyPairsIntoRecord, TraceState } from '@opentelemetry/core'
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources'
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions'
import type { RequestTrace, RequestTracer } from '../core/requestObserver'
import type { Bodies } from '../store/recordBatch'
import type { RequestRecord } from '../store/requestsRepo'
import { wholeAtLeastOne } from '../config'
import { VERSION } from '../version'
import type { ProviderLookup } from './spanAttributes'
import type { TracingConfig } from './tracingConfig'
import { IdPool, type SpanId } from './spanIds'
import { samplerFrom, type Sampler } from './sampler'
import { parseTraceparent, traceparentOf } from './traceparent'
import { DEFAULT_BATCHING, type Batching } from './spanQueue'
import { SpanHandoff } from './spanHandoff'
import { appendTrace, type AttemptSpan, type RequestSpan } from './traceRow'

/**
 * The batching the `OTEL_BSP_*` variables ask for, the specification's defaults otherwise; a batch
 * larger than the queue is cut to the queue's size, as OpenTelemetry's batch span processor does.
 */
function batchingFrom(env: NodeJS.ProcessEnv): Batching {
  const whole = (variable: string, fallback: number) => wholeAtLeastOne(env[variable]?.trim(), variable) ?? fallback
  const maxQueueSize = whole('OTEL_BSP_MAX_QUEUE_SIZE', DEFAULT_BATCHING.maxQueueSize)
  return {
    scheduledDelayMillis: whole('OTEL_BSP_SCHEDULE_DELAY', DEFAULT_BATCHING.scheduledDelayMillis),
    exportTimeoutMillis: whole('OTEL_BSP_EXPORT_TIMEOUT', DEFAULT_BATCHING.exportTimeoutMillis),
    maxQueueSize,
    maxExportBatchSize: Math.min(maxQueueSize, whole('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', DEFAULT_BATCHING.maxExportBatchSize)),
  }
}

/** The first value of a header in `rawHeaders` (name, value, name, value…), by its lower-case name; only names of its length are lower-cased to compare. */
function headerOf(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const h = rawHeaders[i]
    if (h.length === name.length && (h === name || h.toLowerCase() === name)) return rawHeaders[i + 1]
  }
  return undefined
}

/** The trace of a request that is neither sampled nor carried on to the provider: nothing to do. */
const UNTRACED: RequestTrace = { attempt: () => null, recorded: () => {} }

/**
 * Traces requests with spans of the gateway's own. The sampler is one of OpenTelemetry's standard
 * ones (sampler.ts), asked once a request, on its thread; an attempt's span is sampled with its
 * request's, as OpenTelemetry's every sampler would have it (same trace, sampled parent). A
 * sampled request's trace goes, once it is recorded, to the span thread (spanHandoff.ts), which
 * writes its spans into OTLP's protobuf and batches them to the collector.
 */
class GatewayTracer implements RequestTracer {
  readonly ids = new IdPool()

  constructor(
    private readonly sample: Sampler,
    readonly spans: SpanHandoff,
    readonly config: TracingConfig,
    readonly providers: ProviderLookup,
  ) {}

  begin(rawHeaders: readonly string[]): RequestTrace {
    const traceparent = headerOf(rawHeaders, 'traceparent')
    const parent = traceparent === undefined ? null : parseTraceparent(traceparent)
    const traceId = parent === null ? this.ids.traceId() : parent.traceId
    const sampled = this.sample(traceId, parent === null ? null : parent.sampled)
    if (!sampled && !this.config.propagate) return UNTRACED
    // The client's tracestate goes on with its trace (OpenTelemetry's samplers add none), as
    // TraceState keeps it: valid members only, 32 at most.
    const tracestate = parent === null ? undefined : headerOf(rawHeaders, 'tracestate')
    const span: RequestSpan = {
      traceId,
      spanId: this.ids.spanId(),
      traceState: tracestate === undefined ? '' : new TraceState(tracestate).serialize(),
      parentSpanId: parent === null ? null : parent.spanId,
      startMs: Date.now(),
    }
    return new SpanTrace(this, span, sampled)
  }

  shutdown(): Promise<void> {
    return this.spans.shutdown()
  }
}

/**
 * One request's spans: its own (SERVER), begun with it, and one per upstream attempt (CLIENT) as
 * each goes out; all end when the request is recorded. Times are the wall clock's at the
 * request's start plus the monotonic clock since, as OpenTelemetry's spans take them.
 */
class SpanTrace implements RequestTrace {
  private readonly startedAt = performance.now()
  /** The attempts' span ids and start times (`performance.now()`) by their index in the record's attempts; a candidate passed over has none. */
  private readonly attempts: Array<{ spanId: SpanId; startedAt: number } | undefined> = []

  constructor(
    private readonly tracing: GatewayTracer,
    private readonly span: RequestSpan,
    private readonly sampled: boolean,
  ) {}

  /** A time from `performance.now()` as milliseconds since the epoch. */
  private epochMs(at: number): number {
    return this.span.startMs + (at - this.startedAt)
  }

  attempt(index: number, startedAt: number): Record<string, string> | null {
    const spanId = this.tracing.ids.spanId()
    this.attempts[index] = { spanId, startedAt }
    if (!this.tracing.config.propagate) return null
    const traceparent = traceparentOf(this.span.traceId, spanId, this.sampled)
    return this.span.traceState ? { traceparent, tracestate: this.span.traceState } : { traceparent }
  }

  recorded(record: RequestRecord, bodies: Bodies | null): void {
    // Not sampled: its attempts' spans are not either, and nothing of it is exported.
    if (!this.sampled) return
    const { providers, config, spans } = this.tracing
    const attempts: Array<AttemptSpan | undefined> = []
    for (let i = 0; i < record.attempts.length; i++) {
      const sent = this.attempts[i]
      if (sent)
        attempts[i] = { spanId: sent.spanId, startMs: this.epochMs(sent.startedAt), endMs: this.epochMs(sent.startedAt + record.attempts[i].latency_ms) }
    }
    // The prompt and the answer only where the operator keeps them (body logging) and asked for them in spans too.
    const content = config.captureContent ? bodies : null
    appendTrace(spans.row, this.span, this.epochMs(performance.now()), attempts, record, content, providers)
    spans.ended()
  }
}

/** Who the spans are from: `gw-gateway` unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` says otherwise, with OpenTelemetry's telemetry.sdk.* attributes. */
function resourceOf(env: NodeJS.ProcessEnv): Attributes {
  const serviceName = env.OTEL_SERVICE_NAME?.trim()
  return defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'gw-gateway', [ATTR_SERVICE_VERSION]: VERSION }))
    .merge(resourceFromAttributes(parseKeyPairsIntoRecord(env.OTEL_RESOURCE_ATTRIBUTES)))
    .merge(serviceName ? resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }) : null).attributes
}

/**
 * Starts tracing as `config` says: a sampler or batching the gateway does not have stops the
 * start, naming its variable. Exports that fail and spans dropped are told to `warn`.
 */
export function startTracer(config: TracingConfig, providers: ProviderLookup, warn: (message: string) => void): RequestTracer {
  const env = config.env
  const sample = samplerFrom(env)
  const batching = batchingFrom(env)
  const headers = { ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) }
  const spans = new SpanHandoff({ url: config.url, headers, resource: resourceOf(env), batching }, warn)
  return new GatewayTracer(sample, spans, config, providers)
}
