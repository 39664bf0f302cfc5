import { spanIdHex, traceIdHex, type SpanId, type TraceId } from './spanIds'

/*
 * W3C's `traceparent` header, read into the words the gateway keeps ids in and written from them.
 * Read by hand, not by OpenTelemetry's parseTraceParent: its regular expression, the hex it keeps
 * and the span context built from it cost a request ~2.5 µs on the event loop, about a quarter of
 * what tracing cost it there (bench/tracing.ts under the profiler). test/unit/traceparent.test.ts
 * holds this reading to OpenTelemetry's, case by case.
 */

/** The client's span, from its `traceparent`. */
export interface ParentSpan {
  traceId: TraceId
  spanId: SpanId
  sampled: boolean
}

/** A lower-case hex digit's value by its char code; -1 for anything else (upper case included, as W3C has it). */
const DIGIT = new Int8Array(128).fill(-1)
for (let i = 0; i < 10; i++) DIGIT[48 + i] = i
for (let i = 0; i < 6; i++) DIGIT[97 + i] = 10 + i

/** The 32-bit word of `count` hex digits (at most 8) at `at`; -1 if one is not a lower-case hex digit. */
function hexAt(s: string, at: number, count: number): number {
  let word = 0
  for (let i = at; i < at + count; i++) {
    const c = s.charCodeAt(i)
    const digit = c < 128 ? DIGIT[c] : -1
    if (digit < 0) return -1
    word = word * 16 + digit
  }
  return word
}

const isBlank = (c: number) => c === 32 || c === 9
const DASH = 45
/** `00-<32 hex>-<16 hex>-<2 hex>`: a version 00 header is exactly this long; a later version may add `-…` after it. */
const LENGTH = 55

/**
 * The span a `traceparent` names, or null if it is not one: a version of two hex digits other than
 * ff, a trace and a span id not all zeros, two hex digits of flags (bit 0: sampled); after them
 * nothing for version 00, `-` and anything for a later one. One blank either side is allowed.
 */
export function parseTraceparent(header: string): ParentSpan | null {
  const start = header.length > 0 && isBlank(header.charCodeAt(0)) ? 1 : 0
  const end = header.length > start && isBlank(header.charCodeAt(header.length - 1)) ? header.length - 1 : header.length
  if (end - start < LENGTH) return null
  const version = hexAt(header, start, 2)
  if (version < 0 || version === 0xff) return null
  if (end - start > LENGTH && (version === 0 || header.charCodeAt(start + LENGTH) !== DASH)) return null
  if (header.charCodeAt(start + 2) !== DASH || header.charCodeAt(start + 35) !== DASH || header.charCodeAt(start + 52) !== DASH) return null
  const w0 = hexAt(header, start + 3, 8)
  const w1 = hexAt(header, start + 11, 8)
  const w2 = hexAt(header, start + 19, 8)
  const w3 = hexAt(header, start + 27, 8)
  const hi = hexAt(header, start + 36, 8)
  const lo = hexAt(header, start + 44, 8)
  const flags = hexAt(header, start + 53, 2)
  // Not (w0 | w1 | …) < 0: a word past 2^31 is negative as a 32-bit integer.
  if (w0 < 0 || w1 < 0 || w2 < 0 || w3 < 0 || hi < 0 || lo < 0 || flags < 0) return null
  if ((w0 | w1 | w2 | w3) === 0 || (hi | lo) === 0) return null
  return { traceId: { w0, w1, w2, w3 }, spanId: { hi, lo }, sampled: (flags & 1) === 1 }
}

/** W3C's `traceparent` for a span: version 00, its trace and span ids, whether it is sampled. */
export const traceparentOf = (traceId: TraceId, spanId: SpanId, sampled: boolean) => `00-${traceIdHex(traceId)}-${spanIdHex(spanId)}-0${sampled ? 1 : 0}`
