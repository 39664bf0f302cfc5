import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newRequestId, timeOfRequestId } from '../../src/gateway/pipeline/requestContext'

describe('request ids', () => {
  it('sort by the millisecond they were made in, byte-wise as SQLite compares text', () => {
    // Times around the digit boundaries (62, 62²) and the ranges of digits, capitals and lower case.
    const times = [0, 1, 9, 10, 35, 36, 61, 62, 3843, 3844, Date.UTC(2026, 10, 21), Date.UTC(2026, 10, 21) + 1, Date.UTC(2040, 0, 1), 62 ** 8 - 1]
    const ids = times.map((t) => newRequestId(t))
    const sorted = [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    assert.deepEqual(sorted, ids)
    for (const id of ids) assert.match(id, /^req_[A-Za-z0-9]{8}[A-Za-z0-9_-]{12}$/)
  })

  it('made in the same millisecond differ in 72 random bits', () => {
    const ids = Array.from({ length: 5000 }, () => newRequestId(1_800_000_000_000))
    assert.equal(new Set(ids).size, ids.length)
    assert.equal(new Set(ids.map((id) => id.slice(0, 12))).size, 1, 'one time part')
    assert.equal(new Set(ids.map((id) => id.slice(12))).size, ids.length)
  })

  it('give back the millisecond they were made in, so a request is priced at its own time', () => {
    for (const t of [0, 61, 62, Date.UTC(2026, 9, 1, 2, 30), 62 ** 8 - 1]) assert.equal(timeOfRequestId(newRequestId(t)), t)
    assert.equal(timeOfRequestId('chatcmpl-123'), null)
    assert.equal(timeOfRequestId('req_!!!!!!!!abc'), null)
  })
})
