import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { IdPool, spanIdHex, traceIdHex } from '../../src/gateway/tracing/spanIds'
import { parseTraceparent, traceparentOf } from '../../src/gateway/tracing/traceparent'

describe('spanIds: trace and span ids as 32-bit words', () => {
  it('round-trip the hex of a traceparent, leading zeros and words past 2^31 included', () => {
    for (const [traceId, spanId] of [
      ['0af7651916cd43dd8448eb211c80319c', '00f067aa0ba902b7'],
      ['00000000000000000000000000000001', 'ffffffffffffff01'],
      ['ffffffff00000000ffffffff7fffffff', '0000000000000001'],
    ]) {
      const parent = parseTraceparent(`00-${traceId}-${spanId}-01`)!
      assert.equal(traceIdHex(parent.traceId), traceId)
      assert.equal(spanIdHex(parent.spanId), spanId)
      assert.equal(traceparentOf(parent.traceId, parent.spanId, false), `00-${traceId}-${spanId}-00`)
    }
    assert.deepEqual(parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-80000000000000ff-01')!.spanId, { hi: 0x80000000, lo: 0xff })
  })

  it('makes ids of the right lengths, none alike, across refills of the pool', () => {
    const ids = new IdPool()
    const traces = new Set<string>()
    const spans = new Set<string>()
    // 1,024 words a fill: 3,000 of each kind crosses it a dozen times.
    for (let i = 0; i < 3000; i++) {
      traces.add(traceIdHex(ids.traceId()))
      spans.add(spanIdHex(ids.spanId()))
    }
    assert.equal(traces.size, 3000)
    assert.equal(spans.size, 3000)
    for (const t of traces) assert.match(t, /^[0-9a-f]{32}$/)
    for (const s of spans) assert.match(s, /^[0-9a-f]{16}$/)
  })
})
