import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { without } from '../../src/gateway/jsonObject'

describe('without: an object but for one or two keys', () => {
  it('gives what a rest pattern gives: the other own keys in their order, the source untouched', () => {
    const body = JSON.parse('{"model":"m","gw":{"tags":["a"]},"messages":[],"stream":true,"usage":null}')
    const { gw: _gw, ...rest } = body
    assert.deepEqual(Object.entries(without(body, 'gw')), Object.entries(rest))
    const { gw: _g, usage: _u, ...both } = body
    assert.deepEqual(Object.entries(without(body, 'gw', 'usage')), Object.entries(both))
    assert.deepEqual(Object.keys(body), ['model', 'gw', 'messages', 'stream', 'usage'])
  })

  it('keeps a `__proto__` key as an own property, and leaves out inherited ones', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}')
    const out = without(parsed, 'gw')
    assert.equal(Object.getPrototypeOf(out), Object.prototype)
    assert.deepEqual(JSON.parse(JSON.stringify(out)), { ['__proto__']: { polluted: true }, a: 1 })
    assert.deepEqual(Object.keys(without(Object.create({ inherited: 1 }), 'gw')), [])
  })
})
