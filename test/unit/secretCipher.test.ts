import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { openSecret, sealSecret } from '../../src/gateway/secrets/secretCipher'
import { parseSecretKey, secretKeyFromEnv, secretKeyProblem } from '../../src/gateway/secrets/secretKey'
import { UnreadableSecret } from '../../src/gateway/secrets/secretStore'
import type { SealedSecret } from '../../src/gateway/store/providerSecretsRepo'

const newKey = () => parseSecretKey(randomBytes(32).toString('base64'), 'GW_SECRET_KEY')
const SECRET = `sk-proj-${randomBytes(24).toString('hex')}`

/** The sealed row with one of its base64 parts changed by one bit. */
function flipped(sealed: SealedSecret, part: 'nonce' | 'ciphertext' | 'tag'): SealedSecret {
  const bytes = Buffer.from(sealed[part], 'base64')
  bytes[bytes.length - 1] ^= 1
  return { ...sealed, [part]: bytes.toString('base64') }
}

describe('GW_SECRET_KEY', () => {
  it('is 32 bytes of base64; its id is the first 8 bytes of its SHA-256, hex', () => {
    const bytes = randomBytes(32)
    const key = parseSecretKey(`${bytes.toString('base64')}\n`, 'GW_SECRET_KEY')
    assert.deepEqual(key.bytes, bytes)
    assert.equal(key.id, createHash('sha256').update(bytes).digest('hex').slice(0, 16))
    assert.match(key.id, /^[0-9a-f]{16}$/)
  })

  it('refuses anything else in one line naming the variable and never the value', () => {
    const short = randomBytes(16).toString('base64')
    const cases: Array<[string, RegExp]> = [
      [short, /decodes to 16 bytes/],
      [randomBytes(33).toString('base64'), /decodes to 33 bytes/],
      [randomBytes(32).toString('hex'), /not base64|decodes to 48 bytes/],
      [`${randomBytes(32).toString('base64').slice(0, -2)}!=`, /not base64/],
      ['   ', /empty/],
    ]
    for (const [value, why] of cases) {
      assert.throws(
        () => secretKeyFromEnv({ GW_SECRET_KEY: value }),
        (err: Error) => {
          assert.match(err.message, /^GW_SECRET_KEY must be 32 random bytes in base64 \(`openssl rand -base64 32` makes one\); /)
          assert.match(err.message, why)
          assert.equal(err.message.includes('\n'), false)
          if (value.trim()) assert.equal(err.message.includes(value.trim()), false, 'the value is not printed')
          return true
        },
      )
    }
    assert.equal(secretKeyProblem(randomBytes(32).toString('base64')), null)
  })

  it('is absent when unset or empty', () => {
    assert.equal(secretKeyFromEnv({}), null)
    assert.equal(secretKeyFromEnv({ GW_SECRET_KEY: '' }), null)
  })
})

describe('provider key sealing (AES-256-GCM)', () => {
  const key = newKey()

  it('opens what it sealed, for the same provider under the same key', () => {
    const sealed = sealSecret(key, 'openai', SECRET)
    assert.equal(sealed.key_id, key.id)
    assert.equal(openSecret(key, 'openai', sealed), SECRET)
    const unicode = 'clé-🔑-' + SECRET
    assert.equal(openSecret(key, 'openai', sealSecret(key, 'openai', unicode)), unicode)
  })

  it('keeps nothing of the key in the row, and seals the same key differently each time (a fresh nonce)', () => {
    const a = sealSecret(key, 'openai', SECRET)
    const b = sealSecret(key, 'openai', SECRET)
    assert.notEqual(a.nonce, b.nonce)
    assert.notEqual(a.ciphertext, b.ciphertext)
    const row = JSON.stringify(a)
    assert.equal(row.includes(SECRET), false)
    assert.equal(Buffer.from(a.ciphertext, 'base64').includes(Buffer.from(SECRET)), false)
    assert.equal(Buffer.from(a.nonce, 'base64').length, 12)
    assert.equal(Buffer.from(a.tag, 'base64').length, 16)
  })

  it('says which key a row needs when the key at hand is another', () => {
    const sealed = sealSecret(key, 'openai', SECRET)
    const other = newKey()
    assert.throws(
      () => openSecret(other, 'openai', sealed),
      (err: Error) =>
        err instanceof UnreadableSecret && err.message === `provider openai's key was encrypted under key id ${key.id}, GW_SECRET_KEY has key id ${other.id}`,
    )
  })

  it('refuses a row whose ciphertext, tag or nonce was altered, or that names the key without being sealed under it', () => {
    const sealed = sealSecret(key, 'openai', SECRET)
    const refused = (row: SealedSecret, label: string) =>
      assert.throws(
        () => openSecret(key, 'openai', row),
        (err: Error) =>
          err instanceof UnreadableSecret && /provider openai's key does not decrypt under GW_SECRET_KEY \(key id [0-9a-f]{16}\)/.test(err.message),
        label,
      )
    refused(flipped(sealed, 'ciphertext'), 'ciphertext')
    refused(flipped(sealed, 'tag'), 'tag')
    refused(flipped(sealed, 'nonce'), 'nonce')
    refused({ ...sealed, tag: Buffer.from(sealed.tag, 'base64').subarray(0, 12).toString('base64') }, 'a truncated tag')
    refused({ ...sealSecret(newKey(), 'openai', SECRET), key_id: key.id }, 'sealed under another key that claims this id')
  })

  it('binds the provider id: a row moved to another provider does not open there', () => {
    const sealed = sealSecret(key, 'openai', SECRET)
    assert.throws(
      () => openSecret(key, 'anthropic', sealed),
      (err: Error) => err instanceof UnreadableSecret && /provider anthropic's key does not decrypt/.test(err.message),
    )
    assert.equal(openSecret(key, 'openai', sealed), SECRET)
  })
})
