import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import { DEFAULT_MAX_QUEUED_RECORDS, DEFAULT_MAX_QUEUED_RECORDS_MB, DEFAULT_UPSTREAM_CONNECTIONS, instanceName, resolveConfig } from '../../src/gateway/config'

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

describe('the bound on request records held for the store', () => {
  it('defaults to 100,000 records or 256 MB', () => {
    const config = resolveConfig({}, {})
    assert.equal(config.maxQueuedRecords, DEFAULT_MAX_QUEUED_RECORDS)
    assert.equal(config.maxQueuedRecordBytes, DEFAULT_MAX_QUEUED_RECORDS_MB * 1024 * 1024)
    assert.deepEqual([DEFAULT_MAX_QUEUED_RECORDS, DEFAULT_MAX_QUEUED_RECORDS_MB], [100_000, 256])
  })

  it('is read from GW_MAX_QUEUED_RECORDS and GW_MAX_QUEUED_RECORDS_MB; the flags win', () => {
    const env = { GW_MAX_QUEUED_RECORDS: '500', GW_MAX_QUEUED_RECORDS_MB: '16' }
    assert.deepEqual([resolveConfig({}, env).maxQueuedRecords, resolveConfig({}, env).maxQueuedRecordBytes], [500, 16 * 1024 * 1024])
    const flags = resolveConfig({ maxQueuedRecords: '20', maxQueuedRecordsMb: '1' }, env)
    assert.deepEqual([flags.maxQueuedRecords, flags.maxQueuedRecordBytes], [20, 1024 * 1024])
  })

  it('refuses anything but a whole number of at least 1, naming where it came from', () => {
    assert.throws(() => resolveConfig({}, { GW_MAX_QUEUED_RECORDS: '0' }), /GW_MAX_QUEUED_RECORDS must be a whole number of at least 1, got "0"/)
    assert.throws(() => resolveConfig({ maxQueuedRecordsMb: '1.5' }, {}), /--max-queued-records-mb must be a whole number of at least 1, got "1.5"/)
  })
})

describe('the body limit', () => {
  it('is 32 MB unless GW_BODY_LIMIT_MB says otherwise', () => {
    assert.equal(resolveConfig({}, {}).bodyLimitBytes, 32 * 1024 * 1024)
    assert.equal(resolveConfig({}, { GW_BODY_LIMIT_MB: '64' }).bodyLimitBytes, 64 * 1024 * 1024)
  })

  it('refuses anything but a whole number of megabytes, naming the variable (a typo never becomes no limit)', () => {
    for (const bad of ['32MB', '0', '-1', '1.5']) {
      assert.throws(() => resolveConfig({}, { GW_BODY_LIMIT_MB: bad }), new RegExp(`GW_BODY_LIMIT_MB must be a whole number of at least 1, got "${bad}"`))
    }
  })
})
