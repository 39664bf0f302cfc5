import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKey, hashKey, hashesEqual, isWellFormedKey, keyLookup, maskKey } from '../../src/gateway/keys/inferenceKey'
import { KeyIndex } from '../../src/gateway/pipeline/authenticate'
import { KeysRepo } from '../../src/gateway/store/keysRepo'
import { describeEachStore } from '../support/stores'

describe('inference keys', () => {
  it('are gw- and at least 40 URL-safe random characters, all different', () => {
    const keys = Array.from({ length: 200 }, () => generateKey().secret)
    for (const k of keys) {
      assert.match(k, /^gw-[A-Za-z0-9_-]{40,}$/)
      assert.ok(isWellFormedKey(k))
    }
    assert.equal(new Set(keys).size, keys.length)
  })

  it('compare hashes in constant time and only equal digests match', () => {
    const h = hashKey('gw-x')
    assert.equal(hashesEqual(h, hashKey('gw-x')), true)
    assert.equal(hashesEqual(h, hashKey('gw-y')), false)
    assert.equal(hashesEqual(h, h.slice(0, 10)), false)
  })

  it('are masked as prefix…last4', () => {
    const k = generateKey()
    assert.equal(maskKey(k.lookup, k.last4), `gw-${k.secret.slice(3, 11)}…${k.secret.slice(-4)}`)
    assert.equal(keyLookup(k.secret), k.lookup)
  })
})

describeEachStore('inference keys in the store', (under) => {
  it('are stored as a SHA-256 hash, never in clear', async () => {
    const { sql, close } = await under.open()
    const { secret } = await new KeysRepo(sql).create('a')
    const row = (await sql.get<Record<string, unknown>>('SELECT * FROM keys'))!
    assert.equal(row.hash, hashKey(secret))
    assert.equal(JSON.stringify(row).includes(secret.slice(11, -4)), false, 'no secret part beyond lookup and last 4')
    await close()
  })

  it('authenticate known keys and refuse unknown, malformed and revoked ones with invalid_api_key', async () => {
    const { sql, close } = await under.open()
    const repo = new KeysRepo(sql)
    const good = await repo.create('good')
    const gone = await repo.create('gone')
    await repo.revoke(gone.info.id, 1234)
    // Rows read alike from either store: times and flags as numbers.
    const row = (await repo.byId(gone.info.id))!
    assert.deepEqual([row.revoked_at, row.prepaid, typeof row.created_at, row.last_used_at], [1234, 0, 'number', null])
    const index = new KeyIndex()
    index.reload(await repo.all())
    assert.equal(index.authenticate(`Bearer ${good.secret}`).id, good.info.id)
    const forged = good.secret.slice(0, -1) + (good.secret.endsWith('A') ? 'B' : 'A')
    for (const header of [undefined, 'Basic abc', 'Bearer short', `Bearer ${forged}`, `Bearer ${gone.secret}`]) {
      assert.throws(
        () => index.authenticate(header),
        (e: any) => e.status === 401 && e.code === 'invalid_api_key',
      )
    }
    await close()
  })
})

describe('amounts a key takes', () => {
  it('are refused past $1,000,000, naming the field, before they could overflow the 64-bit pico-dollars they are stored in', async () => {
    const { keyOps } = await import('../../src/contract/keys')
    const create = keyOps['keys.create'].input
    assert.equal(create.safeParse({ name: 'k', balance_usd: 1_000_000 }).success, true)
    const refused = create.safeParse({ name: 'k', balance_usd: 1_000_000_000 })
    assert.equal(refused.success, false)
    assert.deepEqual(
      refused.error!.issues.map((i) => [i.path.join('.'), i.message]),
      [['balance_usd', 'must be at most 1,000,000']],
    )
  })
})
