import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readSse, startTestGateway, type TestGateway } from '../support/harness'
import { MAX_SSE_LINE_CHARS } from '../../src/gateway/upstream/sse'

const chat = (t: TestGateway, init: RequestInit = {}) =>
  fetch(`${t.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true }),
    ...init,
  })

describe('a provider that sends an endless SSE line', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('ends the stream with a 502 naming the limit, records the error, and never stalls the gateway', async () => {
    t.fake.script({ kind: 'endless-line', chars: 20 * 1024 * 1024 })
    await fetch(`${t.url}/healthz`)
    let streaming = true
    let slowest = 0
    const probe = (async () => {
      while (streaming) {
        const started = performance.now()
        assert.equal((await fetch(`${t.url}/healthz`)).status, 200)
        slowest = Math.max(slowest, performance.now() - started)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    })()
    const res = await chat(t)
    const events = await readSse(res)
    streaming = false
    await probe

    assert.equal(res.status, 200)
    const last = events.at(-1) as { error: { message: string; type: string; code: string } }
    assert.equal(last.error.code, 'upstream_error')
    assert.equal(last.error.type, 'server_error')
    assert.match(last.error.message, new RegExp(`openai sent an SSE line longer than the gateway's limit of ${MAX_SSE_LINE_CHARS} characters`))
    const record = await t.record(res.headers.get('x-request-id'))
    assert.equal(record.outcome, 'error')
    assert.equal(record.error?.code, 'upstream_error')
    assert.equal(record.error?.status, 502)
    // Not a timing test (a loaded machine alone can delay an answer by a few hundred ms): a gateway
    // that rescans the line on every read answered in seconds.
    assert.ok(slowest < 1000, `/healthz took ${Math.round(slowest)} ms while the line arrived`)
  })
})

