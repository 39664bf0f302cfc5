import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { outputSpeed } from '../../src/renderer/src/lib/format'

describe('output speed on a request', () => {
  it('times a stream from its first byte, so the wait for the first token does not count', () => {
    // 300 tokens between 1,000 ms (first byte) and 3,000 ms (end): 150 tokens/s.
    assert.equal(outputSpeed(300, 3000, 1000, true), '150.0 tokens/s after the first byte')
  })
  it('times a whole answer over the whole request', () => {
    // 300 tokens in 3,000 ms: 100 tokens/s.
    assert.equal(outputSpeed(300, 3000, 2900, false), '100.0 tokens/s over the whole request')
  })
  it('says nothing when there is nothing to divide', () => {
    assert.equal(outputSpeed(null, 3000, null, false), '—')
    assert.equal(outputSpeed(0, 3000, null, false), '—')
    assert.equal(outputSpeed(10, 500, 500, true), '—')
    assert.equal(outputSpeed(10, null, null, false), '—')
  })
})
