import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_MAX_QUEUED_RECORDS, DEFAULT_MAX_QUEUED_RECORDS_MB, DEFAULT_UPSTREAM_CONNECTIONS, resolveConfig } from '../../src/gateway/config'

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
