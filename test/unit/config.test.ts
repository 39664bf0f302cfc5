import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import { DEFAULT_UPSTREAM_CONNECTIONS, instanceName, resolveConfig } from '../../src/gateway/config'

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

describe('instance name', () => {
  it('is the host name and the port bound, unless GW_INSTANCE_NAME or --instance-name, which wins, names it', () => {
    assert.equal(instanceName(resolveConfig({}, {}), 41234), `${os.hostname()}:41234`)
    assert.equal(instanceName(resolveConfig({}, {}), null), os.hostname(), 'a process serving no port')
    assert.equal(instanceName(resolveConfig({}, { GW_INSTANCE_NAME: 'eu-west-2a' }), 8787), 'eu-west-2a')
    assert.equal(instanceName(resolveConfig({ instanceName: 'gw-1' }, { GW_INSTANCE_NAME: 'eu-west-2a' }), 8787), 'gw-1')
    assert.equal(resolveConfig({}, { GW_INSTANCE_NAME: '' }).instanceName, null, 'an empty variable is no name')
  })

  it('refuses an empty name, one over 128 characters, control characters and spaces at either end, naming where it came from', () => {
    for (const bad of ['', 'x'.repeat(129), 'gw\n1', ' gw', 'gw\t']) {
      assert.throws(
        () => resolveConfig({ instanceName: bad }, {}),
        /^Error: --instance-name must be 1 to 128 characters, without control characters or spaces at either end, got /,
      )
    }
    assert.throws(() => resolveConfig({}, { GW_INSTANCE_NAME: 'a\u0007b' }), /GW_INSTANCE_NAME must be 1 to 128 characters.*got "a\\u0007b"/)
    assert.equal(resolveConfig({ instanceName: 'x'.repeat(128) }, {}).instanceName?.length, 128)
    assert.equal(resolveConfig({ instanceName: 'gw 1 (eu) — ünïcode' }, {}).instanceName, 'gw 1 (eu) — ünïcode')
  })
})
