import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { gwCli, readSse, startTestGateway, tempDir, type TestGateway } from '../support/harness'
import { waitUntil } from '../support/waitUntil'
import { MAX_SSE_LINE_CHARS } from '../../src/shared/sse'

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

  it('ends the stream with a 502 naming the limit, records the error, and never stalls the gateway', { timeout: 60_000 }, async () => {
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

describe('a full upstream pool', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway({ upstreamConnections: 2 })
  })
  after(() => t.close())

  const chatsReceived = () => t.fake.received.filter((r) => r.path === '/v1/chat/completions').length

  it('never sends a queued request whose client left, and records it as aborted at once', async () => {
    t.fake.script({ kind: 'endless-stream', intervalMs: 50 }, { kind: 'endless-stream', intervalMs: 50 })
    const holders = [new AbortController(), new AbortController()]
    const held = await Promise.all(holders.map((ac) => chat(t, { signal: ac.signal })))
    assert.deepEqual(
      held.map((r) => r.status),
      [200, 200],
    )
    assert.equal(chatsReceived(), 2)

    const origin = new URL(t.fake.url).origin
    const slots = t.running.gateway.agent.slots
    const leaver = new AbortController()
    const queued = chat(t, { signal: leaver.signal }).catch((err: Error) => err)
    await waitUntil(() => slots.waiting(origin) === 1, { what: 'the third request waits for a connection' })
    leaver.abort()
    assert.equal(((await queued) as Error).name, 'AbortError')

    // Recorded while both connections are still taken, not when one frees up.
    const [record] = await t.records(1)
    assert.equal(record?.outcome, 'aborted')
    assert.equal(record.status, 499)
    assert.equal(slots.waiting(origin), 0)

    for (const ac of holders) ac.abort()
    const next = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'after' }] })
    assert.equal(next.choices[0].message.content, 'Hello from the fake provider.')
    assert.equal(chatsReceived(), 3, 'the provider got the two held streams and the last request, never the one whose client left')
  })

  it('is a setting of gw serve, refused with the flag named when it is not a whole number of at least 1', async () => {
    const dataDir = tempDir()
    const failed = await gwCli(['serve', '--port', '0', '--upstream-connections', '0'], { dataDir }).catch((err: { code: number; stderr: string }) => err)
    fs.rmSync(dataDir, { recursive: true, force: true })
    assert.equal((failed as { code: number }).code, 1)
    assert.match((failed as { stderr: string }).stderr, /--upstream-connections must be a whole number of at least 1, got "0"/)
  })
})
