import type { AttributeValue, Attributes } from '@opentelemetry/api'
import type { SpanId, TraceId } from './spanIds'

/**
 * OTLP's protobuf for the few messages the gateway sends (opentelemetry-proto's trace.proto and
 * common.proto), written straight into a buffer as each span ends: ExportTraceServiceRequest >
 * ResourceSpans > ScopeSpans > Span, with KeyValue/AnyValue, Event and Status. The fields are
 * written in the order, and with the defaults, of OpenTelemetry's own serializer (0.223), so the
 * bytes are the same as its (test/unit/otlpWriter.test.ts holds them side by side).
 */

/** Protobuf's wire types. */
const VARINT = 0
const FIXED64 = 1
const LENGTH_DELIMITED = 2
const FIXED32 = 5

/** A length-delimited field gets a 1-byte length first (most do); a longer one moves over for the bytes its length needs. */
const ONE_BYTE = 0x80

export class ProtoWriter {
  buf: Buffer
  pos = 0

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size)
  }

  /** The bytes written so far (a view of this writer's buffer). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos)
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n))
    this.buf.copy(grown, 0, 0, this.pos)
    this.buf = grown
  }

  tag(field: number, wire: number): void {
    const tag = (field << 3) | wire
    if (tag >= ONE_BYTE) return this.varint(tag)
    this.room(1)
    this.buf[this.pos++] = tag
  }

  /** A varint of a whole number from −2^63 up to 2^63 (a negative one in two's complement, ten bytes, as int64 is). */
  varint(value: number): void {
    this.room(10)
    const buf = this.buf
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0
      while (v > 0x7f) {
        buf[this.pos++] = (v & 0x7f) | 0x80
        v >>>= 7
      }
      buf[this.pos++] = v
      return
    }
    let lo: number
    let hi: number
    if (value >= 0) {
      lo = value >>> 0
      hi = Math.floor(value / 0x100000000) >>> 0
    } else {
      const abs = -value
      lo = abs >>> 0
      hi = Math.floor(abs / 0x100000000) >>> 0
      // Two's complement of the 64 bits: invert, add one.
      lo = ~lo >>> 0
      hi = ~hi >>> 0
      lo = (lo + 1) >>> 0
      if (lo === 0) hi = (hi + 1) >>> 0
    }
    while (hi > 0 || lo > 0x7f) {
      buf[this.pos++] = (lo & 0x7f) | 0x80
      lo = ((lo >>> 7) | (hi << 25)) >>> 0
      hi >>>= 7
    }
    buf[this.pos++] = lo
  }

  fixed32(value: number): void {
    this.room(4)
    this.buf.writeUInt32LE(value >>> 0, this.pos)
    this.pos += 4
  }

  fixed64(lo: number, hi: number): void {
    this.room(8)
    this.buf.writeUInt32LE(lo >>> 0, this.pos)
    this.buf.writeUInt32LE(hi >>> 0, this.pos + 4)
    this.pos += 8
  }

  double(value: number): void {
    this.room(8)
    this.buf.writeDoubleLE(value, this.pos)
    this.pos += 8
  }

  /**
   * A time as Unix nanoseconds (fixed64) from milliseconds since the epoch, rounded to the
   * nanosecond as OpenTelemetry's millisToHrTime does. The seconds times 1e9 pass 2^53, so they
   * are made as 2^9 × (seconds × 1953125), which stays exact.
   */
  unixNanos(ms: number): void {
    const seconds = Math.trunc(ms / 1000)
    const nanos = Math.round((ms % 1000) * 1e6)
    const m = seconds * 1953125
    let hi = Math.floor(m / 0x800000)
    let lo = (m - hi * 0x800000) * 512 + nanos
    if (lo >= 0x100000000) {
      lo -= 0x100000000
      hi++
    }
    this.fixed64(lo, hi)
  }

  /** A string, length first: short ASCII ones byte by byte (no call into C++), others through Buffer's UTF-8 writer. */
  string(s: string): void {
    const n = s.length
    if (n < ONE_BYTE) {
      this.room(n + 1)
      const buf = this.buf
      const start = this.pos
      let p = start + 1
      let i = 0
      for (; i < n; i++) {
        const c = s.charCodeAt(i)
        if (c > 0x7f) break
        buf[p++] = c
      }
      if (i === n) {
        buf[start] = n
        this.pos = p
        return
      }
    }
    const length = Buffer.byteLength(s)
    this.varint(length)
    this.room(length)
    this.pos += this.buf.write(s, this.pos, length, 'utf8')
  }

  /** A 32-bit word's four bytes, most significant first. */
  private word(w: number): void {
    const buf = this.buf
    buf[this.pos++] = w >>> 24
    buf[this.pos++] = w >>> 16
    buf[this.pos++] = w >>> 8
    buf[this.pos++] = w
  }

  /** A trace id's 16 bytes, length first. */
  traceId(t: TraceId): void {
    this.room(17)
    this.buf[this.pos++] = 16
    this.word(t.w0)
    this.word(t.w1)
    this.word(t.w2)
    this.word(t.w3)
  }

  /** A span id's 8 bytes, length first. */
  spanId(s: SpanId): void {
    this.room(9)
    this.buf[this.pos++] = 8
    this.word(s.hi)
    this.word(s.lo)
  }

  /** Bytes as they are: a short run (an attribute's key) byte by byte, as `set`, a call into C++, costs several times more there. */
  raw(bytes: Uint8Array): void {
    const n = bytes.length
    this.room(n)
    if (n > 64) {
      this.buf.set(bytes, this.pos)
      this.pos += n
      return
    }
    const buf = this.buf
    let p = this.pos
    for (let i = 0; i < n; i++) buf[p++] = bytes[i]
    this.pos = p
  }

  /** Starts a length-delimited message: a byte kept for its length; `end` with what this returns. */
  begin(): number {
    this.room(1)
    return this.pos++
  }

  /** Ends the message `begin` started, writing its length (moving the message over when it needs more than one byte). */
  end(start: number): void {
    const length = this.pos - start - 1
    if (length < ONE_BYTE) {
      this.buf[start] = length
      return
    }
    let extra = 1
    while (length >= 2 ** (7 * (extra + 1))) extra++
    this.room(extra)
    this.buf.copyWithin(start + 1 + extra, start + 1, this.pos)
    this.pos += extra
    let v = length
    let p = start
    while (v > 0x7f) {
      this.buf[p++] = (v & 0x7f) | 0x80
      v >>>= 7
    }
    this.buf[p] = v
  }
}

/** The range of int64: an integer inside it is AnyValue's int_value, any other number its double_value (as OpenTelemetry's serializer does). */
const MIN_INT64 = -(2 ** 63)
const MAX_INT64 = 2 ** 63

/** AnyValue: string 1, bool 2, int 3, double 4, array 5 (ArrayValue, values 1); nothing for a value of another type. */
function writeAnyValue(w: ProtoWriter, value: AttributeValue | null | undefined): void {
  switch (typeof value) {
    case 'string':
      w.tag(1, LENGTH_DELIMITED)
      w.string(value)
      return
    case 'boolean':
      w.tag(2, VARINT)
      w.varint(value ? 1 : 0)
      return
    case 'number':
      if (Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64) {
        w.tag(3, VARINT)
        w.varint(value)
      } else {
        w.tag(4, FIXED64)
        w.double(value)
      }
      return
  }
  if (Array.isArray(value)) {
    w.tag(5, LENGTH_DELIMITED)
    const array = w.begin()
    for (const item of value) {
      w.tag(1, LENGTH_DELIMITED)
      const one = w.begin()
      writeAnyValue(w, item)
      w.end(one)
    }
    w.end(array)
  }
}

/** An attribute's key as KeyValue's field 1 (tag, length, bytes), written once for every span that has it. */
export type AttributeKey = Uint8Array

export function attributeKey(name: string): AttributeKey {
  const w = new ProtoWriter(Buffer.byteLength(name) + 8)
  w.tag(1, LENGTH_DELIMITED)
  w.string(name)
  return Buffer.from(w.bytes())
}

/** One KeyValue, of a key written beforehand, as field `field` of the message being written. */
export function writeAttribute(w: ProtoWriter, field: number, key: AttributeKey, value: AttributeValue | null | undefined): void {
  w.tag(field, LENGTH_DELIMITED)
  const kv = w.begin()
  w.raw(key)
  w.tag(2, LENGTH_DELIMITED)
  const any = w.begin()
  writeAnyValue(w, value)
  w.end(any)
  w.end(kv)
}

/** Attributes of any keys, each KeyValue as field `field`: the resource's (once) and a skipped attempt's event (seldom), each key written as it comes. */
export function writeAttributes(w: ProtoWriter, field: number, attributes: Attributes): void {
  for (const key in attributes) writeAttribute(w, field, attributeKey(key), attributes[key])
}

/** OTLP's SpanKind (one above the API's, whose 0 is internal). */
export const KIND = { server: 2, client: 3 } as const
/** Status.code: unset 0, error 2 (the gateway sets no ok). */
const STATUS_ERROR = 2
/** Span.flags: the W3C trace flags (sampled, 1) and whether the parent is remote is known (0x100) and is (0x200). */
const HAS_IS_REMOTE = 0x100
const IS_REMOTE = 0x200

/** A span's identity and times, as the gateway knows them when it ends. */
export interface SpanHead {
  traceId: TraceId
  spanId: SpanId
  /** The tracestate as it is passed on, or '' for none. */
  traceState: string
  parentSpanId: SpanId | null
  name: string
  kind: number
  /** Milliseconds since the epoch. */
  startMs: number
  endMs: number
}

/** An event on a span: its time (ms since the epoch), name and attributes. */
export interface SpanEvent {
  timeMs: number
  name: string
  attributes: Attributes
}

/** A span's Status: unset, or an error with what went wrong. */
export type SpanStatus = { error: false } | { error: true; message: string | undefined }
export const UNSET: SpanStatus = { error: false }

/** Span's field of its attributes: each written between `beginSpan` and `endSpan` with writeAttribute(w, SPAN_ATTRIBUTES, …). */
export const SPAN_ATTRIBUTES = 9

/**
 * A sampled span (trace flags 01) as ScopeSpans' field 2 is begun: its head, up to its
 * attributes, which the caller writes next; `endSpan` with what this returns. The fields go in
 * the order of OpenTelemetry's serializer.
 */
export function beginSpan(w: ProtoWriter, head: SpanHead): number {
  w.tag(2, LENGTH_DELIMITED)
  const span = w.begin()
  w.tag(1, LENGTH_DELIMITED)
  w.traceId(head.traceId)
  w.tag(2, LENGTH_DELIMITED)
  w.spanId(head.spanId)
  if (head.traceState) {
    w.tag(3, LENGTH_DELIMITED)
    w.string(head.traceState)
  }
  if (head.parentSpanId !== null) {
    w.tag(4, LENGTH_DELIMITED)
    w.spanId(head.parentSpanId)
  }
  w.tag(5, LENGTH_DELIMITED)
  w.string(head.name)
  w.tag(6, VARINT)
  w.varint(head.kind)
  w.tag(7, FIXED64)
  w.unixNanos(head.startMs)
  w.tag(8, FIXED64)
  w.unixNanos(head.endMs)
  return span
}

/** Ends the span `beginSpan` began, after its attributes: its events and status (no links, nothing dropped), and whether its parent is remote. */
export function endSpan(w: ProtoWriter, span: number, parentIsRemote: boolean, events: readonly SpanEvent[], status: SpanStatus): void {
  w.tag(10, VARINT) // dropped_attributes_count
  w.varint(0)
  for (const event of events) {
    w.tag(11, LENGTH_DELIMITED)
    const e = w.begin()
    w.tag(1, FIXED64)
    w.unixNanos(event.timeMs)
    w.tag(2, LENGTH_DELIMITED)
    w.string(event.name)
    writeAttributes(w, 3, event.attributes)
    w.tag(4, VARINT)
    w.varint(0)
    w.end(e)
  }
  w.tag(12, VARINT) // dropped_events_count
  w.varint(0)
  w.tag(14, VARINT) // dropped_links_count
  w.varint(0)
  w.tag(15, LENGTH_DELIMITED)
  const statusStart = w.begin()
  if (status.error && status.message) {
    w.tag(2, LENGTH_DELIMITED)
    w.string(status.message)
  }
  w.tag(3, VARINT)
  w.varint(status.error ? STATUS_ERROR : 0)
  w.end(statusStart)
  w.tag(16, FIXED32)
  w.fixed32(1 | HAS_IS_REMOTE | (parentIsRemote ? IS_REMOTE : 0))
  w.end(span)
}

/**
 * What goes before a batch's spans, as one piece of ResourceSpans: the Resource (field 1) and
 * the start of ScopeSpans (field 2) with its InstrumentationScope; `envelope` adds the lengths.
 */
export function resourceAndScope(resource: Attributes, scope: { name: string; version: string }): { resource: Buffer; scope: Buffer } {
  const r = new ProtoWriter(1024)
  r.tag(1, LENGTH_DELIMITED)
  const res = r.begin()
  writeAttributes(r, 1, resource)
  r.tag(2, VARINT)
  r.varint(0)
  r.end(res)
  const s = new ProtoWriter(256)
  s.tag(1, LENGTH_DELIMITED)
  const sc = s.begin()
  s.tag(1, LENGTH_DELIMITED)
  s.string(scope.name)
  if (scope.version) {
    s.tag(2, LENGTH_DELIMITED)
    s.string(scope.version)
  }
  s.end(sc)
  return { resource: Buffer.from(r.bytes()), scope: Buffer.from(s.bytes()) }
}

/** Bytes of the varint `n`. */
const varintBytes = (n: number) => {
  const w = new ProtoWriter(10)
  w.varint(n)
  return w.bytes()
}

/** An ExportTraceServiceRequest of spans written by `beginSpan` and `endSpan` (one after the other), under the resource and scope `resourceAndScope` wrote. */
export function envelope(head: { resource: Buffer; scope: Buffer }, spans: Buffer): Buffer {
  const scopeSpansLength = head.scope.length + spans.length
  const scopeSpansLengthBytes = varintBytes(scopeSpansLength)
  const resourceSpansLength = head.resource.length + 1 + scopeSpansLengthBytes.length + scopeSpansLength
  const resourceSpansLengthBytes = varintBytes(resourceSpansLength)
  return Buffer.concat([
    Buffer.of((1 << 3) | LENGTH_DELIMITED),
    resourceSpansLengthBytes,
    head.resource,
    Buffer.of((2 << 3) | LENGTH_DELIMITED),
    scopeSpansLengthBytes,
    head.scope,
    spans,
  ])
}
