// The fake provider is only worth something if the official SDK cannot tell it from OpenAI, so
// every test here drives it with `openai` pointed straight at it, no gateway in between.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'

const close = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) < 1e-6)
const hi = [{ role: 'user' as const, content: 'Hi' }]

describe('fake OpenAI provider, seen by the official SDK', () => {
  let fake: FakeOpenAI
  let client: OpenAI
  before(async () => {
    fake = await startFakeOpenAI()
    client = new OpenAI({ baseURL: fake.url, apiKey: fake.apiKey, maxRetries: 0 })
  })
  after(() => fake.close())

  it('answers a non-streamed completion with the full chat.completion shape and records the request', async () => {
    const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, temperature: 0.2 })
    assert.match(res.id, /^chatcmpl-/)
    assert.equal(res.object, 'chat.completion')
    assert.ok(Number.isInteger(res.created) && Math.abs(res.created - Date.now() / 1000) < 5, 'created is unix seconds')
    assert.equal(res.model, 'gpt-4o-mini')
    assert.deepEqual(res.choices[0].message, { role: 'assistant', content: 'Hello from the fake provider.', refusal: null, annotations: [] })
    assert.equal(res.choices[0].finish_reason, 'stop')
    assert.equal(res.choices[0].logprobs, null)
    assert.deepEqual(res.usage, {
      prompt_tokens: 12,
      completion_tokens: 5,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    })
    assert.match(res._request_id!, /^req_[0-9a-f]+$/)
    const got = fake.received.at(-1)!
    assert.equal(got.method, 'POST')
    assert.equal(got.path, '/v1/chat/completions')
    assert.equal(got.headers.authorization, `Bearer ${fake.apiKey}`)
    assert.equal(got.body.temperature, 0.2)

    fake.script({ kind: 'reply', content: 'Hi there.', usage: { prompt_tokens: 100, cached_tokens: 40, cache_write_tokens: 7, reasoning_tokens: 3 } })
    const scripted = await client.chat.completions.create({ model: 'gpt-4.1', messages: hi })
    assert.equal(scripted.choices[0].message.content, 'Hi there.')
    assert.equal(scripted.model, 'gpt-4.1')
    assert.equal(scripted.usage!.total_tokens, 105)
    assert.deepEqual(scripted.usage!.prompt_tokens_details, { cached_tokens: 40, audio_tokens: 0, cache_write_tokens: 7 })
    assert.equal(scripted.usage!.completion_tokens_details!.reasoning_tokens, 3)
  })

  it('streams with usage: null on every chunk and one final usage chunk when include_usage is set', async () => {
    fake.script({ kind: 'reply', content: 'one two three four', usage: { prompt_tokens: 20, completion_tokens: 4, cached_tokens: 2 } })
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, stream: true, stream_options: { include_usage: true } })
    const chunks: OpenAI.ChatCompletionChunk[] = []
    for await (const c of stream) chunks.push(c)
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1)
    assert.equal(new Set(chunks.map((c) => c.created)).size, 1)
    assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '', refusal: null })
    const contents = chunks.slice(1, -2).map((c) => c.choices[0].delta.content)
    assert.deepEqual(contents, ['one', ' two', ' three', ' four'])
    const finish = chunks.at(-2)!
    assert.deepEqual(finish.choices[0].delta, {})
    assert.equal(finish.choices[0].finish_reason, 'stop')
    for (const c of chunks.slice(0, -1)) {
      assert.equal(c.object, 'chat.completion.chunk')
      assert.equal(c.usage, null)
    }
    const last = chunks.at(-1)!
    assert.deepEqual(last.choices, [])
    assert.equal(last.usage!.prompt_tokens, 20)
    assert.equal(last.usage!.completion_tokens, 4)
    assert.equal(last.usage!.prompt_tokens_details!.cached_tokens, 2)
  })

  it('streams without any usage key when usage was not asked, framed as unnamed data events ending in [DONE]', async () => {
    const res = await fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: hi, stream: true }),
    })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8')
    assert.equal(res.headers.get('cache-control'), 'no-cache')
    assert.match(res.headers.get('x-request-id')!, /^req_/)
    const text = await res.text()
    assert.ok(text.endsWith('data: [DONE]\n\n'))
    const events = text.split('\n\n').slice(0, -1)
    for (const e of events) assert.match(e, /^data: [^\n]+$/, 'one data line per event, no event: line')
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice('data: '.length)))
    assert.ok(chunks.filter((c) => c.choices[0].delta.content).length >= 3, 'content arrives in at least three pieces')
    assert.equal(chunks.map((c) => c.choices[0].delta.content ?? '').join(''), 'Hello from the fake provider.')
    for (const c of chunks) {
      assert.equal('usage' in c, false)
      assert.equal(c.choices.length, 1)
    }
  })

  it('streams tool calls OpenAI-style, which the SDK stream helper rebuilds', async () => {
    const toolCalls = [{ id: 'call_1', name: 'lookup', arguments: '{"q":"weather in Oslo"}' }]
    fake.script({ kind: 'reply', toolCalls })
    const raw = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, stream: true })
    const fragments = []
    for await (const c of raw) fragments.push(...(c.choices[0].delta.tool_calls ?? []))
    assert.deepEqual(fragments[0], { index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } })
    assert.ok(fragments.length >= 3)
    for (const f of fragments.slice(1)) assert.deepEqual(Object.keys(f), ['index', 'function'])
    assert.equal(fragments.map((f) => f.function!.arguments).join(''), toolCalls[0].arguments)

    fake.script({ kind: 'reply', toolCalls })
    const final = await client.chat.completions
      .stream({ model: 'gpt-4o-mini', messages: hi, tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] })
      .finalChatCompletion()
    const call = final.choices[0].message.tool_calls![0]
    assert.equal(call.type, 'function')
    assert.equal(call.id, 'call_1')
    assert.deepEqual(call.type === 'function' && call.function, { name: 'lookup', arguments: '{"q":"weather in Oslo"}' })
    assert.equal(final.choices[0].message.content, null)
    assert.equal(final.choices[0].finish_reason, 'tool_calls')
  })

  it('answers embeddings in base64 (the SDK default, decoded by it) and in floats, deterministically', async () => {
    const byDefault = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['hello world', 'bye'] })
    assert.equal(fake.received.at(-1)!.body.encoding_format, 'base64')
    assert.equal(byDefault.data.length, 2)
    assert.ok(close(byDefault.data[0].embedding, fakeEmbedding('hello world', 8)))
    assert.ok(close(byDefault.data[1].embedding, fakeEmbedding('bye', 8)))
    assert.deepEqual(byDefault.usage, { prompt_tokens: 3, total_tokens: 3 })

    const floats = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'one two three', encoding_format: 'float', dimensions: 4 })
    assert.deepEqual(floats.data[0].embedding, fakeEmbedding('one two three', 4))
    assert.equal(floats.model, 'text-embedding-3-small')

    const tokens = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      encoding_format: 'float',
    })
    assert.deepEqual(
      tokens.data.map((d) => d.embedding),
      [fakeEmbedding([1, 2, 3], 8), fakeEmbedding([4, 5], 8)],
    )
    assert.equal(tokens.usage.prompt_tokens, 5)
    assert.notDeepEqual(fakeEmbedding('hello world', 8), fakeEmbedding('hello worle', 8))
  })

  it('lists and retrieves models, 404 model_not_found for others', async () => {
    const page = await client.models.list()
    assert.deepEqual(
      page.data.map((m) => [m.id, m.object, m.owned_by]),
      [
        ['gpt-4o-mini', 'model', 'fake'],
        ['text-embedding-3-small', 'model', 'fake'],
      ],
    )
    assert.equal((await client.models.retrieve('gpt-4o-mini')).id, 'gpt-4o-mini')
    await assert.rejects(client.models.retrieve('nope'), (e: InstanceType<typeof OpenAI.NotFoundError>) => e.status === 404 && e.code === 'model_not_found')
  })

  it('rejects a wrong key with 401 invalid_api_key, without echoing the key, and records the attempt', async () => {
    const wrong = new OpenAI({ baseURL: fake.url, apiKey: 'sk-wrong-0123456789', maxRetries: 0 })
    const before = fake.received.length
    const err = await wrong.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).catch((e: unknown) => e)
    assert.ok(err instanceof OpenAI.AuthenticationError)
    assert.equal(err.code, 'invalid_api_key')
    assert.equal(err.type, 'invalid_request_error')
    assert.match(err.message, /^401 Incorrect API key provided/)
    assert.equal(err.message.includes('sk-wrong-0123456789'), false)
    assert.equal(fake.received.length, before + 1)
  })

  it('validates requests like OpenAI, naming the parameter', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ messages: hi }, 'model'],
      [{ model: 'gpt-4o-mini' }, 'messages'],
      [{ model: 'gpt-4o-mini', messages: [] }, 'messages'],
      [{ model: 'gpt-4o-mini', messages: hi, stream_options: { include_usage: true } }, 'stream_options'],
      // What a Messages request carries and chat completions does not.
      [
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }] }] },
        'messages[0].content[0]',
      ],
      [{ model: 'gpt-4o-mini', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't' }] }] }, 'messages[0].content[0].type'],
      [{ model: 'gpt-4o-mini', messages: hi, tools: [{ type: 'function', function: { name: 'f' }, cache_control: {} }] }, 'tools[0]'],
      [{ model: 'gpt-4o-mini', messages: hi, parallel_tool_calls: false }, 'parallel_tool_calls'],
      [{ model: 'gpt-4o-mini', messages: [{ role: 'tool', tool_call_id: 'c', content: 'x' }] }, 'messages.[0].role'],
      [
        {
          model: 'gpt-4o-mini',
          messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, ...hi],
        },
        'messages.[1].role',
      ],
    ]
    for (const [body, param] of cases) {
      const err = await client.chat.completions.create(body as never).catch((e: unknown) => e)
      assert.ok(err instanceof OpenAI.BadRequestError, param)
      assert.equal(err.param, param)
    }
    const err = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, stream_options: { include_usage: true } }).catch((e: unknown) => e)
    assert.ok(err instanceof OpenAI.BadRequestError)
    assert.match(err.message, /The 'stream_options' parameter is only allowed when 'stream' is enabled\./)
    for (const field of ['thinking', 'context_management', 'output_config', 'top_k', 'system', 'stop_sequences']) {
      const foreign = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, [field]: {} } as never).catch((e: unknown) => e)
      assert.ok(foreign instanceof OpenAI.BadRequestError, field)
      assert.equal(foreign.message, `400 Unrecognized request argument supplied: ${field}`)
    }
  })

  it('plays scripted statuses before the first byte, in order, then falls back to replies', async () => {
    fake.script(
      { kind: 'status', status: 503 },
      { kind: 'delay', ms: 30, then: { kind: 'status', status: 429, headers: { 'retry-after': '1' } } },
      { kind: 'status', status: 400, body: { error: { message: 'temperature too high', type: 'invalid_request_error', param: 'temperature', code: null } } },
    )
    const overloaded = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).catch((e: unknown) => e)
    assert.ok(overloaded instanceof OpenAI.InternalServerError)
    assert.equal(overloaded.status, 503)
    assert.equal(overloaded.type, 'server_error')
    const started = Date.now()
    const limited = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).catch((e: unknown) => e)
    assert.ok(Date.now() - started >= 25, 'delayed')
    assert.ok(limited instanceof OpenAI.RateLimitError)
    assert.equal(limited.code, 'rate_limit_exceeded')
    assert.equal(limited.headers.get('retry-after'), '1')
    const bad = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'x' }).catch((e: unknown) => e)
    assert.ok(bad instanceof OpenAI.BadRequestError)
    assert.equal(bad.param, 'temperature')
    const ok = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    assert.equal(ok.choices[0].message.content, 'Hello from the fake provider.')
  })

  it('leaves usage out entirely for a no-usage provider, even when asked', async () => {
    fake.script({ kind: 'no-usage' }, { kind: 'no-usage' })
    const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    assert.equal('usage' in res, false)
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, stream: true, stream_options: { include_usage: true } })
    for await (const c of stream) {
      assert.equal('usage' in c, false)
      assert.ok(c.choices.length > 0)
    }
  })

  it('fails mid-stream with an error event the SDK throws on, or a dropped connection', async () => {
    for (const mode of ['error-event', 'drop'] as const) {
      fake.script({ kind: 'fail-mid-stream', afterChunks: 3, mode })
      const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, stream: true })
      const seen: OpenAI.ChatCompletionChunk[] = []
      const err = await (async () => {
        for await (const c of stream) seen.push(c)
      })().catch((e: unknown) => e)
      assert.equal(seen.length, 3, mode)
      assert.ok(err instanceof Error, `${mode} surfaces as an error`)
      if (mode === 'error-event') {
        assert.ok(err instanceof OpenAI.APIError)
        assert.equal(err.status, undefined)
        assert.equal(err.type, 'server_error')
      }
    }
    assert.equal(fake.streamsClosedByClient, 0, 'a failure of our own is not a client close')
  })

  it('counts an endless stream the client aborts, and lets a test wait for that', async () => {
    const before = fake.streamsClosedByClient
    fake.script({ kind: 'endless-stream', intervalMs: 10 })
    const ac = new AbortController()
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, stream: true }, { signal: ac.signal })
    const closed = fake.waitForClientClose(1000)
    let n = 0
    // The SDK ends iteration quietly when its own signal aborts it.
    for await (const _ of stream) if (++n === 5) ac.abort()
    assert.equal(n, 5)
    await closed
    assert.equal(fake.streamsClosedByClient, before + 1)
    await assert.rejects(fake.waitForClientClose(20), /no client close within 20 ms/)
  })

  it('counts a client that gives up during a delay, and never answers it', async () => {
    const before = fake.streamsClosedByClient
    fake.script({ kind: 'delay', ms: 300 })
    const err = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }, { timeout: 30 }).catch((e: unknown) => e)
    assert.ok(err instanceof OpenAI.APIConnectionTimeoutError)
    await fake.waitForClientClose(500)
    assert.equal(fake.streamsClosedByClient, before + 1)
  })
})

// Quirks make the fake speak another provider's dialect; these pin the bytes each one puts on the
// wire (reference §5), read raw since the point is what a strict client would trip on.
describe('fake provider quirks, on the wire', () => {
  const post = (fake: FakeOpenAI, body: Record<string, unknown>, key: string | null = fake.apiKey) =>
    fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ model: 'm', messages: hi, ...body }),
    })
  // Every event these fakes send is a single `data:` line.
  const events = (text: string) =>
    text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length))
  const json = async (res: Response): Promise<any> => res.json()
  const toolCalls = [
    { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'call_b', name: 'get_time', arguments: '{}' },
  ]

  it('Gemini: array errors (400 for a wrong key), whole index-less tool calls with empty ids and "stop", models/ ids', async () => {
    const fake = await startFakeOpenAI({
      quirks: { errorsAsArray: true, toolCallsWithoutIndex: true, emptyToolCallIds: true, stopWithToolCalls: true, modelsPrefix: true },
      models: ['gemini-2.5-flash'],
    })
    try {
      fake.script({ kind: 'status', status: 429 })
      let res = await post(fake, {})
      assert.equal(res.status, 429)
      const [limited] = await json(res)
      assert.equal(limited.error.code, 429)
      assert.equal(limited.error.status, 'RESOURCE_EXHAUSTED')
      assert.match(limited.error.message, /Rate limit reached/)
      res = await post(fake, {}, 'wrong')
      assert.equal(res.status, 400)
      assert.equal((await json(res))[0].error.details[0].reason, 'API_KEY_INVALID')

      fake.script({ kind: 'reply', toolCalls })
      const chunks = events(await (await post(fake, { stream: true })).text())
        .slice(0, -1)
        .map((e) => JSON.parse(e))
      const fragments = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? [])
      assert.deepEqual(fragments, [
        { id: '', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: '', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ])
      assert.equal(chunks.at(-1).choices[0].finish_reason, 'stop')
      assert.equal(chunks.at(-1).choices[0].delta.tool_calls.length, 1, 'the finish reason rides on the last call')

      fake.script({ kind: 'reply', toolCalls })
      const whole = await json(await post(fake, {}))
      assert.equal(whole.choices[0].finish_reason, 'stop')
      assert.deepEqual(
        whole.choices[0].message.tool_calls.map((c: any) => c.id),
        ['', ''],
      )
      const models = await json(await fetch(`${fake.url}/models`, { headers: { authorization: `Bearer ${fake.apiKey}` } }))
      assert.deepEqual(
        models.data.map((m: any) => m.id),
        ['models/gemini-2.5-flash'],
      )
    } finally {
      await fake.close()
    }
  })

  it('Groq, DeepSeek, Together, Ollama, OpenRouter: x_groq usage, cache-hit usage after blank lines, bare lists, no key, numeric codes', async () => {
    const groq = await startFakeOpenAI({ quirks: { groqUsage: true } })
    const deepseek = await startFakeOpenAI({ quirks: { deepseekUsage: true, blankLinesBeforeJson: true } })
    const local = await startFakeOpenAI({ quirks: { bareModelList: true, noAuth: true, numericErrorCode: true } })
    try {
      groq.script({ kind: 'reply', usage: { prompt_tokens: 7, completion_tokens: 3, cached_tokens: 0 } })
      const text = await (await post(groq, { stream: true, stream_options: { include_usage: true } })).text()
      const chunks = events(text)
        .slice(0, -1)
        .map((e) => JSON.parse(e))
      assert.ok(
        chunks.every((c) => !('usage' in c)),
        'no top-level usage, not even null',
      )
      assert.ok(
        chunks.every((c) => c.choices.length === 1),
        'no usage chunk',
      )
      const finish = chunks.at(-1)
      assert.equal(finish.choices[0].finish_reason, 'stop')
      assert.equal(finish.x_groq.usage.prompt_tokens, 7)
      assert.equal(finish.x_groq.usage.total_tokens, 10)
      assert.equal(typeof finish.x_groq.usage.queue_time, 'number')

      deepseek.script({ kind: 'reply', usage: { prompt_tokens: 100, completion_tokens: 5, cached_tokens: 60 } })
      const raw = await (await post(deepseek, {})).text()
      assert.match(raw, /^\n\n\n\{/)
      const usage = JSON.parse(raw).usage
      assert.deepEqual(usage, { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_cache_hit_tokens: 60, prompt_cache_miss_tokens: 40 })

      const list = await json(await fetch(`${local.url}/models`))
      assert.ok(Array.isArray(list))
      assert.deepEqual(list[0], { id: 'gpt-4o-mini', object: 'model', created: 1_700_000_000, owned_by: 'fake' })
      assert.equal((await post(local, {}, null)).status, 200, 'no key needed')
      local.script({
        kind: 'status',
        status: 402,
        body: { error: { message: 'Insufficient credits', type: 'x', param: null, code: null, metadata: { a: 1 } } },
      })
      const res = await post(local, {})
      assert.equal(res.status, 402)
      assert.deepEqual(await json(res), { error: { code: 402, message: 'Insufficient credits', metadata: { a: 1 } } })
    } finally {
      await Promise.all([groq.close(), deepseek.close(), local.close()])
    }
  })

  it('SSE framing: keep-alive comments, extra blank lines, \\r\\n, writes split inside UTF-8 characters; OpenRouter mid-stream errors', async () => {
    const fake = await startFakeOpenAI({ quirks: { keepAlives: true, crlf: true, splitWrites: true, numericErrorCode: true } })
    try {
      fake.script({ kind: 'reply', content: 'Grüße 東京 ✓' })
      const res = await post(fake, { stream: true })
      const reads: Uint8Array[] = []
      for await (const part of res.body!) reads.push(part)
      const text = Buffer.concat(reads).toString('utf8')
      assert.ok(text.startsWith(': keep-alive\r\n\r\ndata: '))
      assert.match(text, /\r\n\r\n: OPENROUTER PROCESSING\r\n\r\n\r\ndata: /)
      assert.equal(text.replace(/\r\n/g, '').includes('\n'), false, 'every line ends in \\r\\n')
      const datas = events(text)
      assert.equal(datas.at(-1), '[DONE]')
      assert.equal(
        datas
          .slice(0, -1)
          .map((e) => JSON.parse(e).choices[0].delta.content ?? '')
          .join(''),
        'Grüße 東京 ✓',
      )
      assert.ok(reads.length >= 3 * datas.length, `each event arrives in several reads (${reads.length} reads, ${datas.length} events)`)
      const decoder = new TextDecoder('utf-8', { fatal: true })
      assert.ok(
        reads.some((r) => {
          try {
            decoder.decode(r)
            return false
          } catch {
            return true
          }
        }),
        'some read ends inside a UTF-8 character',
      )

      fake.script({ kind: 'fail-mid-stream', afterChunks: 2, mode: 'error-event' })
      const failed = events(await (await post(fake, { stream: true })).text()).map((e) => JSON.parse(e))
      assert.equal(failed.length, 3)
      assert.deepEqual(failed[2].error, { code: 'server_error', message: 'Provider disconnected unexpectedly' })
      assert.equal(failed[2].choices[0].finish_reason, 'error')
    } finally {
      await fake.close()
    }
  })
})
