import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { hostChecker, hostName } from '../../src/gateway/http/hostCheck'

describe('Host checking', () => {
  it('reads the host name without port, IPv6 included', () => {
    assert.equal(hostName('127.0.0.1:8787'), '127.0.0.1')
    assert.equal(hostName('LocalHost'), 'localhost')
    assert.equal(hostName('[::1]:8787'), '::1')
    assert.equal(hostName('gw.internal:443'), 'gw.internal')
  })

  it('accepts the bound address and loopback names only, by default', () => {
    const ok = hostChecker('127.0.0.1', [])
    for (const h of ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787', 'localhost']) assert.equal(ok(h), true, h)
    for (const h of ['evil.example:8787', 'localhost.evil.example', '127.0.0.2:8787', '', undefined]) assert.equal(ok(h), false, String(h))
  })

  it('adds configured names, and * turns the check off', () => {
    const ok = hostChecker('127.0.0.1', ['gw.internal'])
    assert.equal(ok('gw.internal:8787'), true)
    assert.equal(ok('other.internal'), false)
    assert.equal(hostChecker('127.0.0.1', ['*'])('anything'), true)
  })

  it('a wildcard bind accepts the machine’s own addresses but not foreign names', () => {
    const ok = hostChecker('0.0.0.0', [])
    assert.equal(ok('127.0.0.1:8787'), true)
    assert.equal(ok('evil.example'), false)
  })
})
