import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import { readSse, startTestGateway, type TestGateway, json } from '../support/harness'
import type { FakeOpenAI } from '../support/fake-openai'
import { waitUntil } from '../support/waitUntil'

/**
 * Until the provider's body is held back: bytes of it the gateway has not read, and none read for
 * 100 ms. That is the gateway's writes to a client that stopped reading backing up to the provider.
 */
function heldBack(fake: FakeOpenAI): Promise<number> {
  let last = -1
  return waitUntil(
    () => {
      const unsent = fake.unsentBytes()
      const still = unsent > 0 && unsent === last
      last = unsent
      return still
    },
    { what: "the provider's body held back by the gateway", intervalMs: 100 },
  )
}

describe('POST /v1/chat/completions through the official SDK', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('answers a non-streamed completion with routing and an exact cost', async () => {
    t.fake.script({ kind: 'reply', content: 'Hi there.', usage: { prompt_tokens: 1000, completion_tokens: 500, cached_tokens: 200 } })
    const res = await t.client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 0.3,
    })
    assert.equal(res.choices[0].message.content, 'Hi there.')
    const gw = (res as any).gw
    assert.equal(gw.routing.provider, 'openai')
    assert.equal(gw.routing.upstream_model, 'gpt-4o-mini')
    assert.equal(gw.routing.attempts.length, 1)
    assert.equal(gw.routing.attempts[0].status, 200)
    // gpt-4o-mini: 800 uncached × $0.15 + 200 cached × $0.075 + 500 out × $0.60, per 1M tokens.
    assert.equal(gw.cost.input_usd, 0.00012)
    assert.equal(gw.cost.cached_input_usd, 0.000015)
    assert.equal(gw.cost.output_usd, 0.0003)
    assert.equal(gw.cost.final_usd, 0.000435)
    assert.equal(gw.cost.cache_savings_usd, 0.000015)
    assert.equal(gw.cost.priced, true)
    const upstream = t.fake.received.at(-1)!
    assert.equal(upstream.body.model, 'gpt-4o-mini')
    assert.equal(upstream.body.temperature, 0.3)
    assert.equal(upstream.headers.authorization, `Bearer ${t.fake.apiKey}`)
  })

  it('sends an answer it did not change as the provider wrote it, numbers and all, with gw added', async () => {
    // A seed beyond 2^53: parsed and serialised again it would come out as 12345678901234567000.
    const raw = `{"id":"chatcmpl-raw","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Raw."},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4},"seed":12345678901234567890}`
    t.fake.script({ kind: 'status', status: 200, body: `\n${raw}\n` })
    const res = await fetch(`${t.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    })
    assert.equal(res.status, 200)
    const text = await res.text()
    assert.ok(text.startsWith(`${raw.slice(0, -1)},"gw":{`), text.slice(0, 300))
    const answer = JSON.parse(text)
    assert.equal(answer.choices[0].message.content, 'Raw.')
    assert.equal(answer.gw.cost.completion_tokens, 1)
    assert.equal(answer.gw.routing.provider, 'openai')
  })

  it('passes unknown OpenAI fields through untouched and keeps gw and X-Gw-* away from the provider', async () => {
    const res = await fetch(`${t.baseURL}/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/json',
        'X-Gw-Team': 'search',
        'X-Gw-User-Id': 'header-user',
        'X-Gw-Trace-Id': 'trace-1',
      },
      body: JSON.stringify({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'Hi' }],
        some_future_field: { nested: [1, 2] },
        gw: { user_id: 'alice', tags: ['beta'], extra: { feature: 'summarize' } },
      }),
    })
    assert.equal(res.status, 200)
    const body = await json(res)
    assert.equal(res.headers.get('x-request-id'), body.gw.request_id)
    const upstream = t.fake.received.at(-1)!
    assert.deepEqual(upstream.body.some_future_field, { nested: [1, 2] })
    assert.equal('gw' in upstream.body, false)
    assert.deepEqual(
      Object.keys(upstream.headers).filter((h) => h.startsWith('x-gw-')),
      [],
    )
    assert.equal(JSON.stringify(upstream.headers).includes(t.key), false)
    const record = await t.record(body.gw.request_id)
    assert.equal(record.attribution.user_id, 'alice')
    assert.equal(record.attribution.trace_id, 'trace-1')
    assert.deepEqual(record.attribution.tags, ['beta'])
    assert.deepEqual(record.dimensions, { team: 'search', feature: 'summarize' })
    assert.deepEqual(record.ignored, [{ name: 'x-gw-user-id', reason: 'gw.user_id in the body wins' }])
  })

  it('streams without a usage chunk when the client did not ask, and puts gw on the last chunk', async () => {
    const res = await fetch(`${t.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true }),
    })
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8')
    const events = await readSse(res)
    assert.equal(events.at(-1), '[DONE]')
    const chunks = events.slice(0, -1) as Array<Record<string, any>>
    // The stream's headers: the reply's own (its request id) and those of an event stream.
    const id = chunks.at(-1)!.gw.request_id
    assert.equal(res.headers.get('x-request-id'), id)
    assert.equal(res.headers.get('x-gw-request-id'), id)
    assert.equal(res.headers.get('cache-control'), 'no-cache')
    assert.equal(res.headers.get('x-accel-buffering'), 'no')
    assert.ok(chunks.length >= 4)
    for (const c of chunks) {
      assert.equal('usage' in c, false, 'no usage key on chunks the client did not ask usage for')
      assert.ok(c.choices.length > 0, 'no empty-choices chunk')
    }
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1)
    const last = chunks.at(-1)!
    assert.equal(last.choices[0].finish_reason, 'stop')
    assert.equal(last.gw.cost.priced, true)
    assert.equal(typeof last.gw.cost.final_usd, 'number')
    assert.deepEqual(t.fake.received.at(-1)!.body.stream_options, { include_usage: true })
  })

  it('streams a long answer whole to a client that stops reading for a while', async () => {
    // ~16 MB of chunks: more than loopback sockets buffer, so the gateway's writes back up and it
    // must pause the provider's body, then resume it when the client reads again.
    const piece = ` ${'x'.repeat(2000)}`
    const words = 8000
    t.fake.script({ kind: 'reply', content: piece.repeat(words) })
    const stream = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Long' }], stream: true })
    const it = stream[Symbol.asyncIterator]()
    const first = await it.next()
    assert.equal(first.done, false)
    // A slow reader: nothing is read until the gateway has stopped reading the provider's body.
    await heldBack(t.fake)
    let text = ''
    let chunks = 0
    let finish: string | null = null
    for (let r = await it.next(); !r.done; r = await it.next()) {
      chunks++
      text += r.value.choices[0]?.delta?.content ?? ''
      finish = r.value.choices[0]?.finish_reason ?? finish
    }
    assert.equal(chunks, words + 1)
    assert.equal(text.length, piece.length * words)
    assert.equal(text, piece.repeat(words))
    assert.equal(finish, 'stop')
  })

  it('streams the usage chunk, carrying gw, when the client asked with include_usage', async () => {
    t.fake.script({ kind: 'reply', content: 'one two three four', usage: { prompt_tokens: 20, completion_tokens: 4, cached_tokens: 0 } })
    const stream = await t.client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Count' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks: any[] = []
    for await (const c of stream) chunks.push(c)
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')
    assert.equal(text, 'one two three four')
    const last = chunks.at(-1)
    assert.deepEqual(last.choices, [])
    assert.equal(last.usage.prompt_tokens, 20)
    assert.equal(last.usage.completion_tokens, 4)
    // 20 × $0.15 + 4 × $0.60 per 1M = 0.000003 + 0.0000024
    assert.equal(last.gw.cost.final_usd, 0.0000054)
    for (const c of chunks.slice(0, -1)) assert.equal(c.usage, null)
  })

  it("works with the SDK's stream helper, tool calls included", async () => {
    t.fake.script({ kind: 'reply', toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"weather in Oslo"}' }], finishReason: 'tool_calls' })
    const runner = t.client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
    })
    const final = await runner.finalChatCompletion()
    const call = final.choices[0].message.tool_calls![0] as any
    assert.equal(call.function.name, 'lookup')
    assert.equal(call.function.arguments, '{"q":"weather in Oslo"}')
    assert.equal(final.choices[0].finish_reason, 'tool_calls')
  })

  it('flags a model without a price as unpriced, never $0', async () => {
    const res: any = await t.client.chat.completions.create({ model: 'openai/gpt-brand-new', messages: [{ role: 'user', content: 'x' }] })
    assert.equal(res.gw.cost.priced, false)
    assert.equal(res.gw.cost.final_usd, null)
    assert.match(res.gw.cost.unpriced_reason, /openai\/gpt-brand-new/)
    const record = await t.record(res.gw.request_id)
    assert.equal(record.cost!.priced, false)
    assert.equal(record.upstream_model, 'gpt-brand-new')
  })
})

describe('errors in OpenAI shape', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway({ bodyLimitBytes: 64 * 1024 })
  })
  after(() => t.close())

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${t.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...headers },
      body,
    })

  it('401 invalid_api_key for missing, malformed, unknown and revoked keys, on every /v1 route', async () => {
    const revoked = await t.running.gateway.store.keys.create('to-revoke')
    await t.running.gateway.store.keys.revoke(revoked.info.id)
    await t.running.gateway.configChanged()
    const cases: Array<[string, string | undefined, RegExp]> = [
      ['missing', undefined, /didn't provide an API key/],
      ['malformed', 'Bearer sk-not-ours', /Malformed API key/],
      ['unknown', `Bearer gw-${'A'.repeat(43)}`, /Incorrect API key/],
      ['revoked', `Bearer ${revoked.secret}`, /was revoked/],
    ]
    for (const [name, authorization, message] of cases) {
      for (const [method, path] of [
        ['POST', '/chat/completions'],
        ['POST', '/embeddings'],
        ['GET', '/models'],
        ['GET', '/models/gpt-4o-mini'],
      ]) {
        const res = await fetch(`${t.baseURL}${path}`, {
          method,
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body: method === 'POST' ? JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], input: 'x' }) : undefined,
        })
        assert.equal(res.status, 401, `${name} ${method} ${path}`)
        const body = await json(res)
        assert.equal(body.error.code, 'invalid_api_key')
        assert.match(body.error.message, message)
        assert.ok(res.headers.get('x-request-id'))
      }
    }
    const sdk = new OpenAI({ baseURL: t.baseURL, apiKey: revoked.secret, maxRetries: 0 })
    await assert.rejects(sdk.models.list(), (e: any) => e instanceof OpenAI.AuthenticationError && e.code === 'invalid_api_key')
  })

  it('400 for malformed JSON and for a missing model or messages, naming the field', async () => {
    let res = await post('/chat/completions', '{"model": "gpt-4o-mini", "messages": [')
    assert.equal(res.status, 400)
    assert.equal((await json(res)).error.type, 'invalid_request_error')
    res = await post('/chat/completions', JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }))
    assert.equal(res.status, 400)
    assert.equal((await json(res)).error.param, 'model')
    res = await post('/chat/completions', JSON.stringify({ model: 'gpt-4o-mini' }))
    assert.equal((await json(res)).error.param, 'messages')
    res = await post('/chat/completions', JSON.stringify({ model: 'gpt-4o-mini', messages: [{ content: 'x' }] }))
    assert.equal((await json(res)).error.param, 'messages[0].role')
    res = await post(
      '/chat/completions',
      JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream_options: { include_usage: true } }),
    )
    assert.equal((await json(res)).error.param, 'stream_options')
    res = await post('/chat/completions', JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], gw: { tags: 'x' } }))
    assert.equal((await json(res)).error.param, 'gw.tags')
  })

  it('records bad requests that passed authentication, and sends nothing upstream for them', async () => {
    const before = t.fake.received.length
    const res = await post('/chat/completions', JSON.stringify({ model: 'gpt-4o-mini' }))
    const id = res.headers.get('x-request-id')
    const record = await t.record(id)
    assert.equal(record?.status, 400)
    assert.equal(record?.outcome, 'error')
    assert.equal(t.fake.received.length, before)
  })

  it('404 model_not_found for unknown models and presets, 404 for unknown routes, 405 for wrong methods', async () => {
    await assert.rejects(
      t.client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }),
      (e: any) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found' && /no-such-model/.test(e.message),
    )
    await assert.rejects(
      t.client.chat.completions.create({ model: 'policy/nope', messages: [{ role: 'user', content: 'x' }] }),
      (e: any) => e.status === 404 && /nope/.test(e.message),
    )
    let res = await fetch(`${t.baseURL}/nothing-here`, { headers: { authorization: `Bearer ${t.key}` } })
    assert.equal(res.status, 404)
    assert.equal((await json(res)).error.type, 'invalid_request_error')
    res = await fetch(`${t.baseURL}/chat/completions`, { headers: { authorization: `Bearer ${t.key}` } })
    assert.equal(res.status, 405)
    assert.equal(res.headers.get('allow'), 'POST')
    assert.ok((await json(res)).error.message)
    // Routes with a parameter too: the management API, a stored response.
    res = await fetch(`${t.baseURL.replace(/\/v1$/, '')}/api/keys.list`)
    assert.equal(res.status, 405)
    assert.equal(res.headers.get('allow'), 'POST')
    res = await fetch(`${t.baseURL}/responses/resp_1`, { method: 'PUT', headers: { authorization: `Bearer ${t.key}` } })
    assert.equal(res.status, 405)
    assert.equal(res.headers.get('allow'), 'GET, DELETE')
  })

  it('413 when the body is over the limit', async () => {
    const res = await post('/chat/completions', JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(70 * 1024) }] }))
    assert.equal(res.status, 413)
    const body = await json(res)
    assert.equal(body.error.code, 'request_too_large')
  })

  it('maps provider failures before the first byte to 502/503/504, never 200 or 401, and records them', async () => {
    const cases: Array<[number, number]> = [
      [503, 503],
      [500, 502],
      [401, 502],
      [504, 504],
    ]
    for (const [upstream, expected] of cases) {
      t.fake.script({ kind: 'status', status: upstream })
      const err: any = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)
      assert.equal(err.status, expected, `upstream ${upstream}`)
      assert.ok(err.error?.message, 'OpenAI-shaped error body')
      if (upstream === 401) assert.doesNotMatch(err.error.message, new RegExp(t.fake.apiKey))
      const record = await t.record(err.requestID)
      assert.equal(record.outcome, 'error')
      assert.equal(record.status, expected)
      assert.equal(record.attempts[0].status, upstream)
    }
    t.fake.script({
      kind: 'status',
      status: 400,
      body: { error: { message: 'temperature too high', type: 'invalid_request_error', param: 'temperature', code: null } },
    })
    const bad: any = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)
    assert.equal(bad.status, 400)
    assert.equal(bad.param, 'temperature')
  })

  it('a provider failure after the first byte ends the stream with an error the SDK surfaces', async () => {
    for (const mode of ['error-event', 'drop'] as const) {
      t.fake.script({ kind: 'fail-mid-stream', afterChunks: 2, mode })
      const { data: stream, response } = await t.client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true })
        .withResponse()
      const seen: string[] = []
      await assert.rejects(async () => {
        for await (const c of stream) seen.push(c.choices[0]?.delta?.content ?? '')
      }, `SDK throws on ${mode}`)
      assert.ok(seen.length >= 1, `content before the failure arrives (${mode})`)
      const record = (await t.record(response.headers.get('x-request-id')))!
      assert.equal(record.status, 200)
      assert.equal(record.outcome, 'error')
    }
  })

  it('a client abort closes the provider stream at once and is recorded', async () => {
    t.fake.script({ kind: 'endless-stream', intervalMs: 20 })
    const ac = new AbortController()
    const { data: stream, response } = await t.client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true }, { signal: ac.signal })
      .withResponse()
    const closed = t.fake.waitForClientClose(2000)
    let n = 0
    // The SDK ends its loop quietly when its own signal aborts.
    for await (const _ of stream) if (++n === 3) ac.abort()
    await closed
    const id = response.headers.get('x-request-id')
    const record = await t.record(id)
    assert.equal(record.outcome, 'aborted')
  })

  it('a client that stops reading a long stream and then leaves is recorded as aborted, paying for what was sent', async () => {
    t.fake.script({ kind: 'reply', content: ` ${'y'.repeat(2000)}`.repeat(8000) })
    const ac = new AbortController()
    const { data: stream, response } = await t.client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true }, { signal: ac.signal })
      .withResponse()
    const it = stream[Symbol.asyncIterator]()
    assert.equal((await it.next()).done, false)
    // The gateway's writes back up and it pauses the provider's body; the client then leaves.
    await heldBack(t.fake)
    ac.abort()
    const record = await t.record(response.headers.get('x-request-id'))
    assert.equal(record.outcome, 'aborted')
    assert.ok(record.usage!.completion_tokens > 0)
    assert.equal(record.cost!.estimated, true)
  })

  it('a client abort of a non-streamed request aborts the provider call and is recorded as 499', async () => {
    t.fake.script({ kind: 'delay', ms: 5000 })
    const ac = new AbortController()
    const closed = t.fake.waitForClientClose(2000)
    const sent = t.fake.received.length
    const pending = t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'slow' }] }, { signal: ac.signal })
    // The client leaves while the provider call is under way.
    await waitUntil(() => t.fake.received.length > sent, { what: 'the request reached the provider' })
    ac.abort()
    await assert.rejects(pending)
    await closed
    const records = await t.records()
    const aborted = records.find((r) => r.status === 499)!
    assert.equal(aborted.outcome, 'aborted')
    assert.equal(aborted.attempts[0].error, 'client closed the connection')
  })
})
