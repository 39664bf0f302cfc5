import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { serve } from '../../src/gateway/cli/commands/serve'
import { MemorySecretStore } from '../support/memorySecretStore'
import { rawRequest, type RawResponse } from '../support/rawHttp'
import { startTestGateway, tempDir, type TestGateway } from '../support/harness'
import { waitUntil } from '../support/waitUntil'
import { accepts } from '../support/freePort'

/** The route's documented error shape: the management API's on /api, OpenAI's elsewhere. */
function assertManagementError(res: RawResponse | { status: number; body: string; headers: Record<string, string> }, status: number, code?: string) {
  assert.equal(res.status, status, res.body)
  assert.match(res.headers['x-request-id'] ?? '', /^req_/)
  const { error } = JSON.parse(res.body)
  assert.deepEqual(
    Object.keys(error)
      .filter((k) => k !== 'field')
      .sort(),
    ['code', 'message', 'status'],
    res.body,
  )
  assert.equal(error.status, status)
  if (code) assert.equal(error.code, code)
  assert.ok(error.message.length > 0)
}

function assertOpenAIError(res: RawResponse, status: number, code?: string) {
  assert.equal(res.status, status, res.body)
  assert.match(res.headers['x-request-id'] ?? '', /^req_/)
  const { error } = JSON.parse(res.body)
  assert.deepEqual(Object.keys(error).sort(), ['code', 'message', 'param', 'type'], res.body)
  if (code) assert.equal(error.code, code)
}

/** Anthropic's shape, with both request id headers (its SDKs read `request-id`). */
function assertAnthropicError(res: RawResponse, status: number, type: string) {
  assert.equal(res.status, status, res.body)
  assert.match(res.headers['request-id'] ?? '', /^req_/)
  assert.equal(res.headers['x-request-id'], res.headers['request-id'])
  const body = JSON.parse(res.body)
  assert.equal(body.type, 'error')
  assert.deepEqual(Object.keys(body.error).sort(), ['message', 'type'], res.body)
  assert.equal(body.error.type, type)
}

const headersOf = (res: Response) => Object.fromEntries(res.headers.entries())
const post = async (url: string, body: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  return { status: res.status, headers: headersOf(res), body: await res.text() }
}

describe('errors outside a route handler keep the route shape and a request id', () => {
  let t: TestGateway
  let host: string
  before(async () => {
    t = await startTestGateway()
    host = new URL(t.url).host
  })
  after(() => t.close())

  const bigHeader = `x-filler: ${'a'.repeat(17 * 1024)}\r\n`

  it('headers over 16 KB: 431 in OpenAI shape on /v1', async () => {
    const res = await rawRequest(t.url, [`POST /v1/chat/completions HTTP/1.1\r\nhost: ${host}\r\n${bigHeader}content-length: 2\r\n\r\n{}`])
    assertOpenAIError(res, 431, 'request_header_fields_too_large')
    assert.match(JSON.parse(res.body).error.message, /16 KB/)
  })

  it("headers over 16 KB on a Messages path: Anthropic's request_too_large, 413", async () => {
    for (const path of ['/v1/messages', '/v1/messages/count_tokens?beta=true']) {
      const res = await rawRequest(t.url, [`POST ${path} HTTP/1.1\r\nhost: ${host}\r\n${bigHeader}content-length: 2\r\n\r\n{}`])
      assertAnthropicError(res, 413, 'request_too_large')
      assert.match(JSON.parse(res.body).error.message, /16 KB/)
    }
  })

  it('headers over 16 KB or a URL over 16 KB: 431 in the management shape on /api', async () => {
    assertManagementError(await rawRequest(t.url, [`POST /api/keys.list HTTP/1.1\r\nhost: ${host}\r\n${bigHeader}content-length: 2\r\n\r\n{}`]), 431)
    assertManagementError(await rawRequest(t.url, [`POST /api/${'k'.repeat(17 * 1024)} HTTP/1.1\r\nhost: ${host}\r\n\r\n`]), 431)
  })

  it('malformed HTTP: 400 with a request id', async () => {
    assertOpenAIError(await rawRequest(t.url, [`POST /v1/embeddings HTTP/1.1\r\nhost: ${host}\r\nbad header: x\r\n\r\n`]), 400, 'bad_request')
    assertManagementError(await rawRequest(t.url, [`POST /api/keys.list HTTP/1.1\r\nhost: ${host}\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n`]), 400)
  })

  it('invalid JSON on /api: 400 in the management shape', async () => {
    assertManagementError(await post(`${t.url}/api/keys.list`, '{"a":'), 400, 'invalid_json')
  })

  it('an operation name over the router limit on /api: 414 in the management shape', async () => {
    assertManagementError(await post(`${t.url}/api/${'x'.repeat(200)}`, '{}'), 414, 'uri_too_long')
  })

  it('a path the router cannot decode: 400 with a request id', async () => {
    assertManagementError(await post(`${t.url}/api/%E0%A4%A`, '{}'), 400, 'invalid_url')
  })

  it('a Content-Type that is not a media type: 415 naming what to send', async () => {
    assertManagementError(await post(`${t.url}/api/keys.list`, '{}', { 'content-type': 'garbage' }), 415, 'unsupported_media_type')
  })

  it('wrong method under /api: 405 naming POST; unknown URL: 404; both in the management shape', async () => {
    const wrong = await fetch(`${t.url}/api/keys.list`)
    assertManagementError({ status: wrong.status, headers: headersOf(wrong), body: await wrong.text() }, 405, 'method_not_allowed')
    assert.equal(wrong.headers.get('allow'), 'POST')
    const unknown = await fetch(`${t.url}/api/keys/list`)
    assertManagementError({ status: unknown.status, headers: headersOf(unknown), body: await unknown.text() }, 404, 'unknown_url')
  })

  it('a Host that is not allowed on /api: 403 in the management shape', async () => {
    const port = new URL(t.url).port
    assertManagementError(
      await rawRequest(t.url, [`POST /api/keys.list HTTP/1.1\r\nhost: evil.example:${port}\r\ncontent-length: 2\r\n\r\n{}`]),
      403,
      'host_not_allowed',
    )
  })

  it('a request without Host: 403 from the Host check, in the route shape', async () => {
    assertOpenAIError(await rawRequest(t.url, [`POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}`]), 403, 'host_not_allowed')
    assertManagementError(await rawRequest(t.url, [`POST /api/auth.status HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}`]), 403, 'host_not_allowed')
  })

  it('a session cookie that is not valid percent-encoding is no session, not a 500', async () => {
    for (const cookie of ['gw_session=%', 'gw_session=%E0%A4%A', 'a=%; gw_session=%zz', 'gw_session']) {
      assertManagementError(await post(`${t.url}/api/keys.list`, '{}', { cookie }), 401, 'unauthenticated')
    }
  })
})

describe('request timeouts', () => {
  let t: TestGateway
  let host: string
  before(async () => {
    t = await startTestGateway({ requestTimeout: 1, headersTimeout: 0.5 })
    host = new URL(t.url).host
  })
  after(() => t.close())

  const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })

  it('a body that stalls is cut with a 408 in its route shape within the request timeout', async () => {
    const stalled = (path: string) =>
      rawRequest(t.url, [
        `POST ${path} HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer ${t.key}\r\ncontent-type: application/json\r\ncontent-length: ${chat.length}\r\n\r\n`,
        chat.slice(0, 10),
      ])
    const [v1, api, messages] = await Promise.all([stalled('/v1/chat/completions'), stalled('/api/keys.list'), stalled('/v1/messages')])
    assertOpenAIError(v1, 408, 'request_timeout')
    assertManagementError(api, 408, 'request_timeout')
    // Anthropic's timeout type, with the status that says the client's upload was the slow part.
    assertAnthropicError(messages, 408, 'timeout_error')
    for (const res of [v1, api, messages]) {
      assert.ok(res.elapsedMs >= 900 && res.elapsedMs < 1500, `cut after ${res.elapsedMs} ms`)
      assert.match(JSON.parse(res.body).error.message, /request timeout of 1 s/)
    }
  })

  it('headers that stall are cut with a 408 within the headers timeout, in a body both shapes read', async () => {
    // Node keeps no copy of a request line before its headers are complete: the route is unknown.
    const res = await rawRequest(t.url, [`POST /api/keys.list HTTP/1.1\r\nhost: ${host}\r\n`])
    assert.equal(res.status, 408)
    assert.match(res.headers['x-request-id'] ?? '', /^req_/)
    assert.deepEqual(Object.keys(JSON.parse(res.body).error).sort(), ['code', 'message', 'param', 'status', 'type'])
    assert.equal(JSON.parse(res.body).error.code, 'request_timeout')
    assert.ok(res.elapsedMs >= 400 && res.elapsedMs < 1000, `cut after ${res.elapsedMs} ms`)
  })

  it('a slow body that arrives within the timeout is served', async () => {
    const pieces = [
      `POST /v1/chat/completions HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer ${t.key}\r\ncontent-type: application/json\r\ncontent-length: ${chat.length}\r\n\r\n`,
    ]
    for (let i = 0; i < chat.length; i += 10) pieces.push(chat.slice(i, i + 10))
    const res = await rawRequest(t.url, pieces, { gapMs: 700 / pieces.length })
    assert.equal(res.status, 200, res.body)
  })

  it('the answer is not counted: a 3 s answer and a 3 s stream outlive a 1 s request timeout', async () => {
    t.fake.script({ kind: 'trickle', pieces: 30, intervalMs: 100 })
    const started = Date.now()
    const answer = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'slow' }] })
    assert.ok(Date.now() - started >= 2900)
    assert.ok(answer.choices[0].message.content)

    t.fake.script({ kind: 'endless-stream', intervalMs: 50 })
    const stream = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'long' }], stream: true })
    const streamStart = Date.now()
    let chunks = 0
    for await (const _ of stream) {
      chunks++
      if (Date.now() - streamStart >= 3000) break
    }
    assert.ok(chunks >= 40, `${chunks} chunks in 3 s`)
  })

  it('a kept-alive connection idle longer than the headers timeout still serves its next request', async () => {
    const first = await fetch(`${t.url}/healthz`)
    assert.equal(first.status, 200)
    // Idle time is what this is about, and Node's server timeouts run on the real clock.
    await new Promise((r) => setTimeout(r, 1200))
    const second = await fetch(`${t.url}/healthz`)
    assert.equal(second.status, 200)
  })
})

describe('gw serve --request-timeout', () => {
  it('sets the request timeout of the running gateway', async () => {
    const dataDir = tempDir()
    let url = ''
    let stop!: () => void
    const stopped = new Promise<void>((r) => (stop = r))
    let listening!: () => void
    const ready = new Promise<void>((r) => (listening = r))
    const exit = serve(['--port', '0', '--data-dir', dataDir, '--request-timeout', '0.5'], {
      out: (text) => {
        url = /listening on (\S+)/.exec(text)?.[1] ?? url
        listening()
      },
      err: () => {},
      readStdin: async () => '',
      env: {},
      secrets: new MemorySecretStore(),
      untilStopped: () => stopped,
    })
    await ready
    const res = await rawRequest(url, [`POST /api/keys.list HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-length: 10\r\n\r\n{`])
    stop()
    assert.equal(await exit, 0)
    assertManagementError(res, 408, 'request_timeout')
    assert.ok(res.elapsedMs >= 400 && res.elapsedMs < 1000, `cut after ${res.elapsedMs} ms`)
  })
})

describe('shutdown', () => {
  it('a request that arrives while the gateway closes gets a 503 in its route shape with a request id', async () => {
    const t = await startTestGateway()
    try {
      const host = new URL(t.url).host
      t.fake.script({ kind: 'delay', ms: 800 })
      const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      const request = (path: string) =>
        `POST ${path} HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer ${t.key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`
      // The first request keeps the connection busy while close() begins; the pipelined ones are read after it.
      const { hostname, port } = new URL(t.url)
      const socket = net.connect(Number(port), hostname)
      let received = ''
      socket.on('data', (d: Buffer) => (received += d.toString()))
      const sent = t.fake.received.length
      socket.write(request('/v1/chat/completions'))
      await waitUntil(() => t.fake.received.length > sent, { what: 'the first request at the provider' })
      const closed = t.running.close()
      // Closing has begun once the gateway takes no new connection (it stops listening after its preClose hooks).
      await waitUntil(async () => !(await accepts(hostname, Number(port))), { what: 'the gateway closing' })
      socket.write(request('/v1/chat/completions') + request('/api/keys.list'))
      await closed
      await waitUntil(() => socket.readableEnded, { what: 'the connection closed by the gateway' })
      socket.destroy()
      const answers = received.split(/(?=HTTP\/1\.1 )/)
      assert.match(answers[0], /^HTTP\/1\.1 200/)
      assert.match(answers[1], /^HTTP\/1\.1 503/)
      assert.match(answers[1], /x-request-id: req_/)
      assert.equal(JSON.parse(answers[1].slice(answers[1].indexOf('\r\n\r\n') + 4)).error.code, 'shutting_down')
      assert.equal(answers.length, 2, 'the connection closes after the 503')
    } finally {
      await t.close()
    }
  })
})
