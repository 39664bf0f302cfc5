import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { resolveConfig } from '../../src/gateway/config'

describe('request and headers timeouts in the configuration', () => {
  it('default to 300 s and 30 s', () => {
    const c = resolveConfig({ dataDir: '/tmp/x' }, {})
    assert.equal(c.requestTimeoutMs, 300_000)
    assert.equal(c.headersTimeoutMs, 30_000)
  })

  it('come from GW_REQUEST_TIMEOUT_S and GW_HEADERS_TIMEOUT_S, flags winning', () => {
    const env = { GW_REQUEST_TIMEOUT_S: '120', GW_HEADERS_TIMEOUT_S: '2.5' }
    assert.deepEqual(pick(resolveConfig({ dataDir: '/tmp/x' }, env)), [120_000, 2_500])
    assert.deepEqual(pick(resolveConfig({ dataDir: '/tmp/x', requestTimeout: '60', headersTimeout: 10 }, env)), [60_000, 10_000])
  })

  it('never let the headers outlast the whole request; 0 turns the request timeout off', () => {
    assert.deepEqual(pick(resolveConfig({ dataDir: '/tmp/x', requestTimeout: 10 }, {})), [10_000, 10_000])
    assert.deepEqual(pick(resolveConfig({ dataDir: '/tmp/x', requestTimeout: 10, headersTimeout: 0 }, {})), [10_000, 10_000])
    assert.deepEqual(pick(resolveConfig({ dataDir: '/tmp/x', requestTimeout: 0 }, {})), [0, 30_000])
  })

  it('refuse what is not a number of seconds', () => {
    for (const bad of ['soon', '-1', 'Infinity']) {
      assert.throws(() => resolveConfig({ dataDir: '/tmp/x' }, { GW_REQUEST_TIMEOUT_S: bad }), /request timeout must be a number of seconds/)
    }
  })
})

const pick = (c: { requestTimeoutMs: number; headersTimeoutMs: number }) => [c.requestTimeoutMs, c.headersTimeoutMs]
