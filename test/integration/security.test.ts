import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { startTestGateway, type TestGateway, json } from '../support/harness'

/** fetch() does not let a page set Host, which is the point of DNS rebinding; node:http does. */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = ''
        res.on('data', (c) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
      })
      .on('error', reject)
  })
}

describe('secure defaults', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('binds to 127.0.0.1', () => {
    assert.match(t.url, /^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('answers /healthz without a key', async () => {
    const res = await fetch(`${t.url}/healthz`)
    assert.equal(res.status, 200)
    assert.equal((await json(res)).status, 'ok')
    assert.ok(res.headers.get('x-request-id'))
  })

  it('answers /readyz without a key while its store answers, and only to a Host it knows', async () => {
    const res = await fetch(`${t.url}/readyz`)
    assert.equal(res.status, 200)
    assert.equal((await json(res)).status, 'ready')
    const port = new URL(t.url).port
    const evil = await get(`${t.url}/readyz`, { host: `evil.example:${port}` })
    assert.equal(evil.status, 403)
    assert.equal(JSON.parse(evil.body).error.code, 'host_not_allowed')
  })

  it('refuses a Host that is not the gateway (DNS rebinding)', async () => {
    const port = new URL(t.url).port
    const evil = await get(`${t.url}/v1/models`, { host: `evil.example:${port}`, authorization: `Bearer ${t.key}` })
    assert.equal(evil.status, 403)
    assert.equal(JSON.parse(evil.body).error.code, 'host_not_allowed')
    const ok = await get(`${t.url}/healthz`, { host: `localhost:${port}` })
    assert.equal(ok.status, 200)
  })

  it('refuses a body that would poison prototypes, whatever its content type says (curl -d sends a form type)', async () => {
    const poisoned = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"__proto__":{"admin":true}}'
    for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
      const res = await fetch(`${t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': type, authorization: `Bearer ${t.key}` },
        body: poisoned,
      })
      assert.equal(res.status, 400, type)
      const body = (await res.json()) as { error: { type: string; message: string } }
      assert.equal(body.error.type, 'invalid_request_error')
      assert.match(body.error.message, /JSON body/)
    }
  })

  it('sends no CORS headers unless origins are configured', async () => {
    const res = await fetch(`${t.url}/healthz`, { headers: { origin: 'https://app.example' } })
    assert.equal(res.headers.get('access-control-allow-origin'), null)
  })
})

describe('CORS when configured', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway({ corsOrigins: ['https://app.example'] })
  })
  after(() => t.close())

  it('allows only the configured origin', async () => {
    const yes = await fetch(`${t.url}/healthz`, { headers: { origin: 'https://app.example' } })
    assert.equal(yes.headers.get('access-control-allow-origin'), 'https://app.example')
    const no = await fetch(`${t.url}/healthz`, { headers: { origin: 'https://other.example' } })
    assert.equal(no.headers.get('access-control-allow-origin'), null)
  })
})
