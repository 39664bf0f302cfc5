import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Redactor } from '../../src/gateway/secrets/redactor'

const KEY = 'sk-proj-Abc123Def456Ghi789Jkl012Mno345'

describe('Redactor', () => {
  const redactor = new Redactor()
  redactor.remember(KEY)

  it('leaves text alone when it holds no credential', () => {
    assert.equal(new Redactor().scrub(`Bearer ${KEY}`), `Bearer ${KEY}`)
    assert.equal(redactor.scrub('Incorrect API key provided'), 'Incorrect API key provided')
    assert.equal(redactor.scrub(''), '')
  })

  it('replaces every echo of a credential, whole', () => {
    assert.equal(redactor.scrub(`got Bearer ${KEY}, expected ${KEY}.`), 'got Bearer [redacted], expected [redacted].')
    assert.equal(redactor.scrub(`${KEY}${KEY}`), '[redacted]')
  })

  it('replaces 16 or more of its characters in a row: a prefix a provider cut off, a middle, a tail', () => {
    assert.equal(redactor.scrub(`Bearer ${KEY.slice(0, 20)}`), 'Bearer [redacted]')
    assert.equal(redactor.scrub(`…${KEY.slice(5, 25)}…`), '…[redacted]…')
    assert.equal(redactor.scrub(`${KEY.slice(-16)}.`), '[redacted].')
    // OpenAI's own masking keeps the prefix and the last four: no secret, left as it is.
    const masked = `${KEY.slice(0, 8)}****${KEY.slice(-4)}`
    assert.equal(redactor.scrub(masked), masked)
    assert.equal(redactor.scrub(KEY.slice(0, 15)), KEY.slice(0, 15))
  })

  it('replaces the JSON-escaped form of a credential with quotes or backslashes', () => {
    const odd = new Redactor()
    const key = 'abc"def\\ghi-0123456789-xyz'
    odd.remember(key)
    assert.equal(odd.scrub(JSON.stringify({ detail: `key ${key}` })), '{"detail":"key [redacted]"}')
    assert.equal(odd.scrub(`key ${key}`), 'key [redacted]')
  })

  it('replaces a short credential only whole', () => {
    const short = new Redactor()
    short.remember('tiny-key')
    short.remember('')
    assert.equal(short.scrub('a tiny-key and a tiny-ke'), 'a [redacted] and a tiny-ke')
  })
})
