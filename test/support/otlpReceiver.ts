import { gunzipSync } from 'node:zlib'
import { createRequire } from 'node:module'
import type { IncomingHttpHeaders } from 'node:http'
import { listenOnLoopback } from './loopbackServer'

/**
 * What an OpenTelemetry collector's OTLP/HTTP receiver takes: `POST /v1/traces` with an
 * `ExportTraceServiceRequest` in protobuf. The exporter (0.223) writes it with a writer of its own
 * and ships no decoder for it (its generated protobuf types are gone; its reader only parses the
 * collector's answer), so the messages are decoded here from the field numbers of
 * opentelemetry-proto's trace.proto and common.proto, the specification both sides follow.
 */

export type AttributeValue = string | number | boolean | bigint | AttributeValue[] | null

export interface ReceivedSpan {
  traceId: string
  spanId: string
  /** Empty for a root span. */
  parentSpanId: string
  traceState: string
  name: string
  /** 1 internal, 2 server, 3 client (SpanKind in trace.proto, one above the API's enum). */
  kind: number
  startNs: bigint
  endNs: bigint
  attributes: Record<string, AttributeValue>
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string }
  /** Span.flags: the W3C trace flags (sampled 0x1), whether the parent's being remote is known (0x100) and is (0x200). */
  flags: number
  /** The resource's attributes (service.name…) of the batch it came in. */
  resource: Record<string, AttributeValue>
}

export const SPAN_KIND = { server: 2, client: 3 } as const
export const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const

/** A protobuf message's fields in order: number, wire type and the value (a varint, 64 or 32 bits, or the bytes of a length-delimited field). */
function* fieldsOf(buf: Uint8Array): Generator<{ field: number; wire: number; varint: bigint; bytes: Uint8Array }> {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  let pos = 0
  const varint = () => {
    let result = 0n
    for (let shift = 0n; ; shift += 7n) {
      if (pos >= buf.length) throw new Error('protobuf: truncated varint')
      const b = buf[pos++]
      result |= BigInt(b & 0x7f) << shift
      if ((b & 0x80) === 0) return result
    }
  }
  while (pos < buf.length) {
    const tag = Number(varint())
    const wire = tag & 7
    const field = tag >>> 3
    const empty = new Uint8Array(0)
    if (wire === 0) yield { field, wire, varint: varint(), bytes: empty }
    else if (wire === 1) {
      const bytes = buf.subarray(pos, pos + 8)
      yield { field, wire, varint: view.getBigUint64(pos, true), bytes }
      pos += 8
    } else if (wire === 5) {
      yield { field, wire, varint: BigInt(view.getUint32(pos, true)), bytes: buf.subarray(pos, pos + 4) }
      pos += 4
    } else if (wire === 2) {
      const length = Number(varint())
      yield { field, wire, varint: 0n, bytes: buf.subarray(pos, pos + length) }
      pos += length
    } else throw new Error(`protobuf: wire type ${wire} is not used by OTLP`)
  }
}

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8')
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

/** AnyValue: string 1, bool 2, int 3, double 4, array 5 (values 1), kvlist 6, bytes 7. */
function anyValue(buf: Uint8Array): AttributeValue {
  for (const f of fieldsOf(buf)) {
    if (f.field === 1) return text(f.bytes)
    if (f.field === 2) return f.varint !== 0n
    if (f.field === 3) return BigInt.asIntN(64, f.varint)
    if (f.field === 4) return Buffer.from(f.bytes).readDoubleLE(0)
    if (f.field === 5) return [...fieldsOf(f.bytes)].filter((v) => v.field === 1).map((v) => anyValue(v.bytes))
    if (f.field === 7) return hex(f.bytes)
  }
  return null
}

/** Repeated KeyValue (key 1, value 2) into a record; integers that fit a number become numbers. */
function keyValues(messages: Uint8Array[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {}
  for (const m of messages) {
    let key = ''
    let value: AttributeValue = null
    for (const f of fieldsOf(m)) {
      if (f.field === 1) key = text(f.bytes)
      else if (f.field === 2) value = anyValue(f.bytes)
    }
    out[key] = typeof value === 'bigint' && value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value
  }
  return out
}

const repeated = (buf: Uint8Array, field: number) => [...fieldsOf(buf)].filter((f) => f.field === field).map((f) => f.bytes)

/** Span: trace_id 1, span_id 2, trace_state 3, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9, events 11, status 15, flags 16. */
function span(buf: Uint8Array, resource: Record<string, AttributeValue>): ReceivedSpan {
  const s: ReceivedSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    traceState: '',
    name: '',
    kind: 0,
    startNs: 0n,
    endNs: 0n,
    attributes: keyValues(repeated(buf, 9)),
    events: repeated(buf, 11).map((e) => ({ name: text(repeated(e, 2)[0] ?? new Uint8Array()), attributes: keyValues(repeated(e, 3)) })),
    status: { code: 0, message: '' },
    flags: 0,
    resource,
  }
  for (const f of fieldsOf(buf)) {
    if (f.field === 1) s.traceId = hex(f.bytes)
    else if (f.field === 2) s.spanId = hex(f.bytes)
    else if (f.field === 3) s.traceState = text(f.bytes)
    else if (f.field === 4) s.parentSpanId = hex(f.bytes)
    else if (f.field === 5) s.name = text(f.bytes)
    else if (f.field === 6) s.kind = Number(f.varint)
    else if (f.field === 7) s.startNs = f.varint
    else if (f.field === 8) s.endNs = f.varint
    else if (f.field === 16) s.flags = Number(f.varint)
    else if (f.field === 15) {
      for (const g of fieldsOf(f.bytes)) {
        if (g.field === 2) s.status.message = text(g.bytes)
        else if (g.field === 3) s.status.code = Number(g.varint)
      }
    }
  }
  return s
}

/** ExportTraceServiceRequest: resource_spans 1 → resource 1 (attributes 1), scope_spans 2 → spans 2. */
export function decodeTraceExport(buf: Uint8Array): ReceivedSpan[] {
  return repeated(buf, 1).flatMap((resourceSpans) => {
    const resource = keyValues(repeated(resourceSpans, 1).flatMap((r) => repeated(r, 1)))
    return repeated(resourceSpans, 2).flatMap((scopeSpans) => repeated(scopeSpans, 2).map((s) => span(s, resource)))
  })
}

export interface OtlpReceiver {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  url: string
  /** Every span received, in order. */
  spans: ReceivedSpan[]
  /** The headers of each export request. */
  exports: IncomingHttpHeaders[]
  close(): Promise<void>
}

/** An OTLP/HTTP trace receiver on a loopback port: decodes what it is sent and answers 200 with an empty ExportTraceServiceResponse. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const exports: IncomingHttpHeaders[] = []
  const server = await listenOnLoopback(
    async (req, res) => {
      const parts: Buffer[] = []
      for await (const part of req) parts.push(part as Buffer)
      if (req.method !== 'POST' || req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/x-protobuf') {
        res.writeHead(404).end()
        return
      }
      const body = Buffer.concat(parts)
      exports.push(req.headers)
      spans.push(...decodeTraceExport(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body))
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
    },
    (res, err) => res.writeHead(500).end(String(err)),
  )
  return { url: `http://127.0.0.1:${server.port}`, spans, exports, close: () => server.close() }
}

/** Whether any of OpenTelemetry's packages is loaded in this process (they are CommonJS only, so require's cache has them once loaded, imported or required). */
export const otelLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((m) => m.includes('/@opentelemetry/'))
