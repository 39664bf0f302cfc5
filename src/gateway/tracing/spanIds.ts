import { randomFillSync } from 'node:crypto'

/*
 * Trace and span ids as 32-bit words, most significant first (their bytes big-endian), not hex:
 * a span is written as bytes, and hex is only needed for a `traceparent` sent on to a provider
 * (traceparent.ts reads a client's into words, sampler.ts samples from them). Made from hex and
 * back, ids cost a request ~2 µs (Buffer's hex conversion both ways, under the profiler, built
 * gateway at 10 connections).
 */

/** A trace id's 16 bytes as four words. */
export interface TraceId {
  readonly w0: number
  readonly w1: number
  readonly w2: number
  readonly w3: number
}

/** A span id's 8 bytes as two words. */
export interface SpanId {
  readonly hi: number
  readonly lo: number
}

const hexWord = (w: number) => w.toString(16).padStart(8, '0')
export const traceIdHex = (t: TraceId) => hexWord(t.w0) + hexWord(t.w1) + hexWord(t.w2) + hexWord(t.w3)
export const spanIdHex = (s: SpanId) => hexWord(s.hi) + hexWord(s.lo)

/** Random ids, their words taken from a pool of random bytes filled 4 KiB at a time; never all zeros, which W3C reserves for "none". */
export class IdPool {
  private readonly words = new Uint32Array(1024)
  private at = this.words.length

  private next(): number {
    if (this.at === this.words.length) {
      randomFillSync(this.words)
      this.at = 0
    }
    return this.words[this.at++]
  }

  traceId(): TraceId {
    const w0 = this.next()
    const w1 = this.next()
    const w2 = this.next()
    const w3 = this.next()
    return { w0, w1, w2, w3: (w0 | w1 | w2 | w3) === 0 ? 1 : w3 }
  }

  spanId(): SpanId {
    const hi = this.next()
    const lo = this.next()
    return { hi, lo: (hi | lo) === 0 ? 1 : lo }
  }
}
