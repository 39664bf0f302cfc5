import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_UPSTREAM_CONNECTIONS, resolveConfig } from '../../src/gateway/config'

describe('upstream connections setting', () => {
  it('defaults to enough connections for a burst of 1,000 streams', () => {
    assert.equal(resolveConfig({}, {}).upstreamConnections, DEFAULT_UPSTREAM_CONNECTIONS)
    assert.ok(DEFAULT_UPSTREAM_CONNECTIONS >= 1000)
  })

  it('is read from GW_UPSTREAM_CONNECTIONS, and the flag wins over it', () => {
    assert.equal(resolveConfig({}, { GW_UPSTREAM_CONNECTIONS: '64' }).upstreamConnections, 64)
    assert.equal(resolveConfig({ upstreamConnections: '8' }, { GW_UPSTREAM_CONNECTIONS: '64' }).upstreamConnections, 8)
  })

  it('refuses anything but a whole number of at least 1, naming where it came from', () => {
    for (const bad of ['0', '-3', '2.5', 'many']) {
      assert.throws(
        () => resolveConfig({}, { GW_UPSTREAM_CONNECTIONS: bad }),
        new RegExp(`GW_UPSTREAM_CONNECTIONS must be a whole number of at least 1, got "${bad}"`),
      )
    }
    assert.throws(() => resolveConfig({ upstreamConnections: '0' }, {}), /--upstream-connections must be/)
  })
})
