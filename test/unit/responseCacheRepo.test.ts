import { it } from 'node:test'
import assert from 'node:assert/strict'
import { ResponseCacheRepo } from '../../src/gateway/store/responseCacheRepo'
import { describeEachStore } from '../support/stores'

const T0 = Date.UTC(2026, 10, 26)

const entry = (hash: string, at: number, answer = 'x'.repeat(100), ttlMs = 60_000) => ({
  hash,
  scope: 'key_a',
  request_id: `req_${hash}`,
  answer,
  created_at: at,
  expires_at: at + ttlMs,
})

describeEachStore('the response cache store', (under) => {
  it('gives back a live answer byte for byte, nothing once it expired, and the newer of two under one hash', async () => {
    const repo = new ResponseCacheRepo((await under.open()).sql)
    const sse = 'data: {"id":"chatcmpl-1","choices":[{"delta":{"content":"é ✓"}}]}\n\ndata: [DONE]\n\n'
    await repo.put(entry('h1', T0, sse))
    assert.deepEqual(await repo.get('h1', T0 + 59_999), { request_id: 'req_h1', answer: sse })
    assert.equal(await repo.get('h1', T0 + 60_000), undefined)
    assert.equal(await repo.get('h2', T0), undefined)
    await repo.put({ ...entry('h1', T0 + 1000, 'newer'), request_id: 'req_newer' })
    assert.deepEqual(await repo.get('h1', T0 + 1000), { request_id: 'req_newer', answer: 'newer' })
    assert.deepEqual(await repo.footprint(), { entries: 1, bytes: 5 })
  })

  it('prunes expired answers, then the oldest past the bound; clear empties it', async () => {
    const repo = new ResponseCacheRepo((await under.open()).sql)
    await repo.put(entry('expired', T0, 'x'.repeat(100), 10))
    for (let i = 0; i < 5; i++) await repo.put(entry(`h${i}`, T0 + i, 'y'.repeat(100)))
    assert.equal(await repo.prune(T0 + 100, 350), 3)
    assert.deepEqual(await repo.footprint(), { entries: 3, bytes: 300 })
    assert.equal(await repo.get('h1', T0 + 100), undefined, 'the oldest went first')
    assert.ok(await repo.get('h2', T0 + 100))
    assert.equal(await repo.clear(), 3)
    assert.deepEqual(await repo.footprint(), { entries: 0, bytes: 0 })
  })
})
