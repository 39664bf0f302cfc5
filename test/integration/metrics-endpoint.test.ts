/**
 * Where `/metrics` is served and who may read it: off by default, on the gateway's port or a
 * listener of its own on 127.0.0.1, behind the Host check, with a bearer token when one is set.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startTestGateway, type TestGateway } from '../support/harness'
import { freePort } from '../support/freePort'
import { rawRequest } from '../support/rawHttp'
import { waitUntil } from '../support/waitUntil'
import { startGatewayProcesses } from '../support/gatewayProcesses'

const TOKEN = 'a-token-only-prometheus-knows'

const scrape = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/metrics`, { headers })

describe('/metrics', () => {
  describe('off by default', () => {
    let t: TestGateway
    before(async () => (t = await startTestGateway()))
    after(() => t?.close())

    it('is a 404, and the core has no observer to tell', async () => {
      const res = await scrape(t.url)
      assert.equal(res.status, 404)
      assert.equal(((await res.json()) as any).error.code, 'unknown_url')
      assert.equal(t.running.gateway.observers.length, 0)
      assert.equal(t.running.metrics, null)
    })
  })

  describe("on the gateway's port, with a token", () => {
    let t: TestGateway
    before(async () => (t = await startTestGateway({ metrics: true, metricsToken: TOKEN })))
    after(() => t?.close())

    it('answers 401 without the token or with another, and the exposition with it', async () => {
      const none = await scrape(t.url)
      assert.equal(none.status, 401)
      assert.equal(none.headers.get('www-authenticate'), 'Bearer')
      assert.equal(((await none.json()) as any).error.code, 'invalid_metrics_token')
      for (const wrong of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN, `Basic ${TOKEN}`, 'Bearer ']) {
        assert.equal((await scrape(t.url, { authorization: wrong })).status, 401, wrong)
      }
      const ok = await scrape(t.url, { authorization: `Bearer ${TOKEN}` })
      assert.equal(ok.status, 200)
      assert.match(ok.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/)
      const text = await ok.text()
      assert.match(text, /^# TYPE gw_requests_total counter$/m)
      assert.match(text, /^gw_open_streams 0$/m)
      assert.match(text, /^gw_process_cpu_seconds_total /m, "Node's process metrics, prefixed")
      assert.deepEqual(t.running.metrics, { url: `${t.url}/metrics`, token_required: true })
    })

    it('refuses a Host it does not know, as every route does', async () => {
      const res = await rawRequest(t.url, [`GET /metrics HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`])
      assert.equal(res.status, 403)
      assert.match(res.body, /host_not_allowed/)
    })

    it('counts a request under its labels, with no key id among them', async () => {
      await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] })
      const [record] = await t.records(1)
      const text = await (await scrape(t.url, { authorization: `Bearer ${TOKEN}` })).text()
      assert.match(text, /^gw_requests_total\{wire="chat.completions",provider="openai",upstream_model="gpt-4o-mini",status_class="2xx",outcome="ok"\} 1$/m)
      assert.ok(!text.includes(record.key_id!), 'the key id is in no series')
    })
  })

  describe('open streams', () => {
    let t: TestGateway
    before(async () => (t = await startTestGateway({ metrics: true })))
    after(() => t?.close())

    it('counts a stream while it is relayed, and no longer once its client left', async () => {
      const open = async () => Number(/^gw_open_streams (\d+)$/m.exec(await (await scrape(t.url)).text())![1])
      t.fake.script({ kind: 'endless-stream', intervalMs: 20 })
      const abort = new AbortController()
      const stream = await t.client.chat.completions.create(
        { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Go on' }] },
        { signal: abort.signal },
      )
      const chunks = stream[Symbol.asyncIterator]()
      await chunks.next()
      assert.equal(await open(), 1)
      abort.abort()
      await chunks.next().catch(() => {})
      await waitUntil(async () => (await open()) === 0, { what: 'the stream uncounted once its client left' })
      const text = await (await scrape(t.url)).text()
      assert.match(
        text,
        /^gw_requests_total\{wire="chat.completions",provider="openai",upstream_model="gpt-4o-mini",status_class="2xx",outcome="aborted"\} 1$/m,
        'a stream cut short keeps the 200 it began with',
      )
    })
  })

  describe('on a port of its own', () => {
    let t: TestGateway
    let port: number
    let closed = false
    before(async () => {
      port = await freePort()
      t = await startTestGateway({ metricsPort: port })
    })
    after(async () => {
      if (!closed) await t?.close()
    })

    it('serves /metrics on 127.0.0.1 at that port, and not on the gateway’s', async () => {
      const own = `http://127.0.0.1:${port}`
      assert.equal((await scrape(own)).status, 200)
      assert.equal((await scrape(t.url)).status, 404)
      assert.equal((await fetch(`${own}/v1/models`)).status, 404, 'nothing else is served there')
      assert.deepEqual(t.running.metrics, { url: `${own}/metrics`, token_required: false })
    })

    it('refuses a Host it does not know there too', async () => {
      const res = await rawRequest(`http://127.0.0.1:${port}`, ['GET /metrics HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n'])
      assert.equal(res.status, 403)
      assert.match(res.body, /host_not_allowed/)
    })

    it('stops listening when the gateway closes', async () => {
      closed = true
      await t.close()
      await assert.rejects(scrape(`http://127.0.0.1:${port}`))
    })
  })

  it('gw serve takes --metrics-port and GW_METRICS_TOKEN, as a user runs it', async () => {
    // Port 0: the OS picks one, and the gateway prints it; a port chosen here beforehand could be
    // taken by a test running alongside before the gateway binds it.
    const [gw] = await startGatewayProcesses(1, { args: ['--metrics-port', '0'], env: { GW_METRICS_TOKEN: TOKEN } })
    try {
      const printed = () => /^Prometheus metrics at (http:\/\/127\.0\.0\.1:\d+)\/metrics \(bearer token required\)$/m.exec(gw.stdout())?.[1]
      await waitUntil(() => printed() !== undefined, { what: () => `the metrics line in ${JSON.stringify(gw.stdout())}` })
      const own = printed()!
      assert.notEqual(own, gw.url)
      assert.equal((await scrape(own)).status, 401)
      assert.match(await (await scrape(own, { authorization: `Bearer ${TOKEN}` })).text(), /^# TYPE gw_requests_total counter$/m)
      assert.equal((await scrape(gw.url)).status, 404)
    } finally {
      await gw.stop()
    }
  })

  it('two gateways in one process share no series', async () => {
    const [a, b] = await Promise.all([startTestGateway({ metrics: true }), startTestGateway({ metrics: true })])
    try {
      await a.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] })
      await a.records(1)
      const count = async (g: TestGateway) => /^gw_requests_total\{[^}]*\} (\d+)$/m.exec(await (await scrape(g.url)).text())?.[1] ?? '0'
      assert.equal(await count(a), '1')
      assert.equal(await count(b), '0')
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})
