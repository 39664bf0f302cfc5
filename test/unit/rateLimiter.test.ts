import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError } from '../../src/gateway/errors'
import { RateLimiter } from '../../src/gateway/pipeline/rateLimiter'

describe('requests per minute on the gateway clock', () => {
  it('admits `rpm` requests a minute and says how long the next waits, the minute measured by the clock', () => {
    const start = Date.UTC(2026, 2, 31)
    let now = start
    const limiter = new RateLimiter(() => now)
    /** The seconds the 429 says to wait, or 0 when the request was admitted. */
    const retryAfter = () => {
      try {
        limiter.check('k', 'agent', 2)
        return 0
      } catch (err) {
        assert.ok(err instanceof ApiError && err.status === 429, String(err))
        assert.match(err.message, /^Rate limit reached for key "agent": 2 requests per minute \[rule: rpm\]\. Please try again in \d+s\.$/)
        return Number(err.headers['retry-after'])
      }
    }
    assert.equal(retryAfter(), 0)
    now += 1500
    assert.equal(retryAfter(), 0)
    now += 1500
    assert.equal(retryAfter(), 57, 'until the first request leaves the minute')
    now = start + 59_999
    assert.equal(retryAfter(), 1)
    now = start + 60_000
    assert.equal(retryAfter(), 0, 'the first request left the minute')
    assert.equal(retryAfter(), 2, 'the second leaves it 1.5 s later')
    limiter.check('k', 'agent', undefined)
    assert.equal(retryAfter(), 2, 'a request of a key without a rate is not counted')
  })
})
