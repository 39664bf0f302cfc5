import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api'
import { parseKeyPairsIntoRecord, parseTraceParent, TraceState } from '@opentelemetry/core'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type BatchSpanProcessorOptions,
  type Sampler,
} from '@opentelemetry/sdk-trace'
import type { RequestTrace, RequestTracer } from '../core/requestObserver'
import type { Bodies } from '../store/recordBatch'
import type { RequestRecord } from '../store/requestsRepo'
import { attemptAttributes, operationOf, requestAttributes, spanName, type ProviderLookup } from './spanAttributes'
import type { TracingConfig } from './tracingConfig'
import { wholeAtLeastOne } from '../config'
import { SCOPE } from './spanExportProtocol'
import { ThreadSpanExporter } from './spanExportThread'

/**
 * The sampler `OTEL_TRACES_SAMPLER` (and `_ARG`) name: the SDK's tracer provider reads neither
 * itself (only sdk-node did). By default every request is traced unless the client's
 * `traceparent` says its trace is not sampled (parentbased_always_on).
 */
function samplerFrom(env: NodeJS.ProcessEnv): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on'
  const ratio = () => {
    const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim()
    if (!arg) return 1
    const n = Number(arg)
    if (!(n >= 0 && n <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a probability from 0 to 1 for ${name}, got "${arg}"`)
    return n
  }
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler()
    case 'always_off':
      return new AlwaysOffSampler()
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio())
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() })
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) })
    default:
      throw new Error(
        `OTEL_TRACES_SAMPLER: "${name}" is not a sampler the gateway has (always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)`,
      )
  }
}

/** The batching the `OTEL_BSP_*` variables ask for (the SDK's span processor reads none of them itself); its defaults otherwise. */
function batchingFrom(env: NodeJS.ProcessEnv): Omit<BatchSpanProcessorOptions, 'exporter'> {
  const whole = (variable: string) => wholeAtLeastOne(env[variable]?.trim(), variable)
  return {
    scheduledDelayMillis: whole('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: whole('OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: whole('OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: whole('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  }
}

/** The first value of a header in `rawHeaders` (name, value, name, value…), by its lower-case name. */
function headerOf(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === name) return rawHeaders[i + 1]
  return undefined
}

/** The client's span, from its W3C `traceparent` (and `tracestate`), as the parent of the request's; the root when it sent none that parses. */
function parentFrom(rawHeaders: readonly string[]): Context {
  const traceparent = headerOf(rawHeaders, 'traceparent')
  const parent = traceparent === undefined ? null : parseTraceParent(traceparent)
  if (!parent) return ROOT_CONTEXT
  parent.isRemote = true
  const tracestate = headerOf(rawHeaders, 'tracestate')
  if (tracestate !== undefined) parent.traceState = new TraceState(tracestate)
  return trace.setSpanContext(ROOT_CONTEXT, parent)
}

/**
 * Traces requests with a tracer provider of this gateway's own (not OpenTelemetry's global one,
 * so that two gateways in one process keep apart), batching spans to the OTLP endpoint from a
 * thread of its own.
 */
class GatewayTracer implements RequestTracer {
  readonly tracer: Tracer

  constructor(
    private readonly provider: TracerProvider,
    readonly config: TracingConfig,
    readonly providers: ProviderLookup,
  ) {
    this.tracer = provider.getTracer(SCOPE.name, SCOPE.version)
  }

  begin(rawHeaders: readonly string[]): RequestTrace {
    // Named once the record says what the request was for (the operation and the model).
    const span = this.tracer.startSpan('gateway', { kind: SpanKind.SERVER }, parentFrom(rawHeaders))
    return new SpanTrace(this, span)
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown()
  }
}

/** W3C's `traceparent` for a span: version 00, its trace and span ids, whether it is sampled. */
const traceparentOf = (span: Span) => {
  const c = span.spanContext()
  return `00-${c.traceId}-${c.spanId}-0${c.traceFlags & 1}`
}

/** One request's spans: its own (SERVER), begun with it, and one per upstream attempt (CLIENT) as each goes out. */
class SpanTrace implements RequestTrace {
  /** The attempts' spans and start times by their index in the record's attempts; a candidate passed over has none. */
  private readonly attempts: Array<{ span: Span; startedAt: number } | undefined> = []

  constructor(
    private readonly tracing: GatewayTracer,
    private readonly span: Span,
  ) {}

  attempt(index: number, startedAt: number): Record<string, string> | null {
    // A request not sampled needs no span for its attempt, unless its id goes to the provider.
    if (!this.tracing.config.propagate && !this.span.isRecording()) return null
    const span = this.tracing.tracer.startSpan('attempt', { kind: SpanKind.CLIENT, startTime: startedAt }, trace.setSpan(ROOT_CONTEXT, this.span))
    this.attempts[index] = { span, startedAt }
    if (!this.tracing.config.propagate) return null
    const tracestate = span.spanContext().traceState?.serialize()
    return tracestate ? { traceparent: traceparentOf(span), tracestate } : { traceparent: traceparentOf(span) }
  }

  recorded(record: RequestRecord, bodies: Bodies | null): void {
    // Not sampled: its attempts' spans are not either, and nothing of it is exported.
    if (!this.span.isRecording()) return
    const { providers, config } = this.tracing
    const operation = operationOf(record)
    record.attempts.forEach((attempt, i) => {
      const sent = this.attempts[i]
      if (!sent) {
        this.span.addEvent('gw.attempt.skipped', { 'gw.provider': attempt.provider, 'gen_ai.request.model': attempt.model, 'gw.reason': attempt.error ?? '' })
        return
      }
      sent.span.updateName(spanName(operation, attempt.model))
      sent.span.setAttributes(attemptAttributes(record, attempt, providers))
      if (attempt.error !== null) sent.span.setStatus({ code: SpanStatusCode.ERROR, message: attempt.error })
      sent.span.end(sent.startedAt + attempt.latency_ms)
    })
    const span = this.span
    span.updateName(spanName(operation, record.model))
    span.setAttributes(requestAttributes(record, providers))
    if (record.outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: record.error?.message })
    // The prompt and the answer only where the operator keeps them (body logging) and asked for them in spans too.
    if (config.captureContent && bodies) {
      if (bodies.request !== null) span.setAttribute('gw.request.body', bodies.request)
      if (bodies.response !== null) span.setAttribute('gw.response.body', bodies.response)
    }
    span.end()
  }
}

/** Starts tracing as `config` says: a sampler or protocol the gateway does not have stops the start, naming its variable. */
export function startTracer(config: TracingConfig, providers: ProviderLookup): RequestTracer {
  const env = config.env
  // Read before the export thread starts, so a sampler or batching refused leaves none running.
  const sampler = samplerFrom(env)
  const batching = batchingFrom(env)
  const exporter = new ThreadSpanExporter({
    url: config.url,
    headers: { ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    serviceName: env.OTEL_SERVICE_NAME?.trim(),
    resourceAttributes: env.OTEL_RESOURCE_ATTRIBUTES,
  })
  // The spans' resource is the export thread's (spanExportWorker.ts): none is set here.
  const provider = new TracerProvider({ sampler, spanProcessors: [new BatchSpanProcessor({ exporter, ...batching })] })
  return new GatewayTracer(provider, config, providers)
}
