import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Attributes } from '@opentelemetry/api'
import { millisToHrTime, TraceState } from '@opentelemetry/core'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import {
  attributeKey,
  beginSpan,
  endSpan,
  envelope,
  KIND,
  ProtoWriter,
  resourceAndScope,
  SPAN_ATTRIBUTES,
  UNSET,
  writeAttribute,
  type SpanEvent,
  type SpanHead,
  type SpanStatus,
} from '../../src/gateway/tracing/otlpWriter'
import { parseTraceparent } from '../../src/gateway/tracing/traceparent'
import { decodeTraceExport } from '../support/otlpReceiver'

const SCOPE = { name: 'gw-gateway', version: '1.2.3' }
const RESOURCE: Attributes = { 'service.name': 'gw-gateway', 'service.version': '1.2.3', 'telemetry.sdk.language': 'nodejs', 'host.cores': 2 }

/** Values a span's attributes can hold, at their edges: what the writer must get right where a short ASCII string or a small integer is easy. */
const AWKWARD: Attributes = {
  ascii: 'chat gpt-4o-mini',
  empty: '',
  'non-ascii': 'naïve café ☃ 😀 — 日本語',
  'long ascii': 'x'.repeat(200),
  'long non-ascii': 'é'.repeat(100),
  'clé ☃': 'a key that is not ASCII',
  int: 42,
  zero: 0,
  negative: -7,
  'most negative': -(2 ** 53) + 1,
  'beyond 32 bits': 2 ** 40 + 3,
  'max safe': Number.MAX_SAFE_INTEGER,
  'power of two past 2^53': 2 ** 60,
  'int64 overflow': 2 ** 63,
  double: 0.000123,
  'negative double': -2.5,
  huge: 1e300,
  true: true,
  false: false,
  strings: ['a', '', 'ü'],
  numbers: [1, 2.5, -3],
  booleans: [true, false],
}

const hr = (ms: number) => millisToHrTime(ms)

/** A span's head as the tests write it: its ids in hex, as OpenTelemetry's SDK holds them, and whether its parent is remote. */
type Head = Omit<SpanHead, 'traceId' | 'spanId' | 'parentSpanId'> & { traceId: string; spanId: string; parentSpanId: string | null; parentIsRemote: boolean }

/** The same span as OpenTelemetry's SDK hands its exporter. */
function readable(head: Head, attributes: Attributes, events: SpanEvent[], status: SpanStatus): ReadableSpan {
  return {
    name: head.name,
    kind: head.kind - 1,
    spanContext: () => ({
      traceId: head.traceId,
      spanId: head.spanId,
      traceFlags: 1,
      traceState: head.traceState ? new TraceState(head.traceState) : undefined,
    }),
    parentSpanContext:
      head.parentSpanId === null ? undefined : { traceId: head.traceId, spanId: head.parentSpanId, traceFlags: 1, isRemote: head.parentIsRemote },
    startTime: hr(head.startMs),
    endTime: hr(head.endMs),
    status: status.error ? { code: 2, message: status.message } : { code: 0 },
    attributes,
    links: [],
    events: events.map((e) => ({ name: e.name, time: hr(e.timeMs), attributes: e.attributes })),
    duration: [0, 0],
    ended: true,
    resource: RESOURCE_OBJECT,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}
const RESOURCE_OBJECT = resourceFromAttributes(RESOURCE)

const server: Head = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceState: 'vendor=abc,other=x',
  parentSpanId: '00f067aa0ba902b7',
  parentIsRemote: true,
  name: 'chat policy/traced',
  kind: KIND.server,
  startMs: 1_764_160_000_123.25,
  endMs: 1_764_160_000_987.0625,
}
const attempt: Head = {
  traceId: server.traceId,
  spanId: 'ffffffffffffff01',
  traceState: server.traceState,
  parentSpanId: server.spanId,
  parentIsRemote: false,
  name: 'chat gpt-4o-mini',
  kind: KIND.client,
  startMs: server.startMs + 0.25,
  endMs: server.startMs + 300.125,
}
const root: Head = { ...server, spanId: 'a000000000000001', traceState: '', parentSpanId: null, parentIsRemote: false, name: 'embeddings' }
const skipped: SpanEvent = {
  timeMs: server.endMs - 1,
  name: 'gw.attempt.skipped',
  attributes: { 'gw.provider': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gw.reason': 'skipped: policy' },
}

type Span = [Head, Attributes, SpanEvent[], SpanStatus]
const SPANS: Span[] = [
  [attempt, { 'http.response.status_code': 500, 'error.type': '500' }, [], { error: true, message: 'upstream 500: überlastet' }],
  [server, AWKWARD, [skipped], UNSET],
  [root, { 'gw.outcome': 'error' }, [], { error: true, message: undefined }],
]

/**
 * A span as the tracer writes one: its head, then each attribute of a key written beforehand
 * (attributeKey), then its events (their attributes' keys written as they come) and status.
 */
function write(w: ProtoWriter, head: Head, attributes: Attributes, events: SpanEvent[], status: SpanStatus): void {
  const { parentIsRemote, ...rest } = head
  // The hex ids in words, as the tracer reads them from a client's traceparent.
  const ids = (spanId: string) => parseTraceparent(`00-${head.traceId}-${spanId}-01`)!
  const span = beginSpan(w, {
    ...rest,
    traceId: ids(head.spanId).traceId,
    spanId: ids(head.spanId).spanId,
    parentSpanId: head.parentSpanId === null ? null : ids(head.parentSpanId).spanId,
  })
  for (const key in attributes) writeAttribute(w, SPAN_ATTRIBUTES, attributeKey(key), attributes[key])
  endSpan(w, span, parentIsRemote, events, status)
}

/** (The times above are whole multiples of 2^-4 ms, exact as doubles, so their nanoseconds are too.) The spans through the gateway's writer, in one ExportTraceServiceRequest (a small first buffer, so it grows as it goes). */
function ours(spans: Span[]): Buffer {
  const w = new ProtoWriter(16)
  for (const [head, attributes, events, status] of spans) write(w, head, attributes, events, status)
  return envelope(resourceAndScope(RESOURCE, SCOPE), w.bytes())
}

describe('otlpWriter: OTLP protobuf written by hand', () => {
  it("writes the very bytes of OpenTelemetry's own serializer (otlp-transformer's, which its OTLP exporters use), one span or several", () => {
    for (const spans of [[SPANS[0]], [SPANS[1]], [SPANS[2]], SPANS]) {
      const official = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans.map(([h, a, e, s]) => readable(h, a, e, s)))!)
      assert.ok(ours(spans).equals(official), `the bytes of ${spans.map(([h]) => h.name).join(', ')}`)
    }
  })

  it('round-trips awkward values through a decoder of the specification: strings, ints and doubles, booleans, arrays, times to the nanosecond', () => {
    const [a, s, r] = decodeTraceExport(ours(SPANS))
    assert.deepEqual(s.attributes, {
      ...AWKWARD,
      // The decoder gives an int64 beyond 2^53 as a bigint (and every int64 in an array); 2^63 does not fit int64, so it went as a double.
      'power of two past 2^53': 2n ** 60n,
      numbers: [1n, 2.5, -3n],
    })
    assert.equal(s.resource['service.name'], 'gw-gateway')
    assert.equal(s.resource['host.cores'], 2)
    assert.equal(s.traceId, server.traceId)
    assert.equal(s.parentSpanId, server.parentSpanId)
    assert.equal(s.traceState, 'vendor=abc,other=x')
    assert.equal(s.kind, 2)
    assert.equal(s.startNs, 1_764_160_000_123_250_000n)
    assert.equal(s.endNs, 1_764_160_000_987_062_500n)
    assert.deepEqual(s.events, [{ name: 'gw.attempt.skipped', attributes: skipped.attributes }])
    assert.deepEqual(s.status, { code: 0, message: '' })
    assert.equal(a.kind, 3)
    assert.equal(a.parentSpanId, server.spanId)
    assert.deepEqual(a.status, { code: 2, message: 'upstream 500: überlastet' })
    assert.deepEqual(r.status, { code: 2, message: '' })
    assert.equal(r.parentSpanId, '')
  })

  it('a message longer than 127 bytes (and than 16,383) gets the longer length it needs, nested ones too', () => {
    const big = 'ü'.repeat(20_000)
    const w = new ProtoWriter(8)
    write(w, root, { big, after: 'still here' }, [], UNSET)
    const [span] = decodeTraceExport(envelope(resourceAndScope(RESOURCE, SCOPE), w.bytes()))
    assert.equal(span.attributes.big, big)
    assert.equal(span.attributes.after, 'still here')
  })
})
