import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { waitForRecord } from '../support/harness'
import { tempDir } from '../support/tempDir'

// gpt-4o in USD per million tokens: input 2.5, cached input 1.25, output 10.
const MODEL = 'openai/gpt-4o'
const hi = [{ role: 'user' as const, content: 'Hello' }]
const near = (a: number | null | undefined, b: number) => assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`)

const weather = {
  name: 'weather',
  description: 'The weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
}

describe('POST /v1/messages translated to chat completions for a provider of another kind, through the official Anthropic SDK', () => {
  let openai: FakeOpenAI
  let anthropic: FakeAnthropic
  let gateway: RunningGateway
  let dataDir: string
  let client: Anthropic
  let secret: string
  const sent = () => openai.received.at(-1)!
  const record = (response: Response) => waitForRecord(gateway.gateway, response.headers.get('request-id'))
  const raw = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  /** An SSE body's events in order: [name, data]. */
  const events = (text: string) => [...text.matchAll(/^event: (\S+)\ndata: (.*)$/gm)].map((m) => [m[1], JSON.parse(m[2])] as [string, any])

  before(async () => {
    openai = await startFakeOpenAI()
    anthropic = await startFakeAnthropic()
    dataDir = tempDir()
    gateway = await startGateway(
      { port: 0, dataDir, logLevel: 'silent' },
      { env: { OPENAI_API_KEY: openai.apiKey, ANTHROPIC_API_KEY: anthropic.apiKey }, routing: { maxRetries: 0, cooldownAfterFailures: 1_000_000 } },
    )
    const gw = gateway.gateway
    await gw.store.providers.upsert('openai', 'openai', openai.url)
    await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    secret = (await gw.store.keys.create('t')).secret
    await gw.configChanged()
    client = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
  })

  after(async () => {
    await gateway.close()
    await openai.close()
    await anthropic.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers a plain message: chat body sent, Anthropic message back, no Anthropic headers upstream, record endpoint messages', async () => {
    openai.script({ kind: 'reply', content: 'Bonjour.', usage: { prompt_tokens: 20, completion_tokens: 3, cached_tokens: 0 } })
    const { data, response } = await client.messages
      // Deprecated sampling fields: the SDK's newest types leave them out, the API still takes them.
      .create(
        { model: MODEL, max_tokens: 100, system: 'Answer in French.', messages: hi, temperature: 0.5, top_p: 0.9 } as Anthropic.MessageCreateParamsNonStreaming,
        {
          headers: { 'anthropic-beta': 'some-beta-2099-01-01' },
        },
      )
      .withResponse()
    assert.match(data.id, /^msg_/)
    assert.equal(data.type, 'message')
    assert.equal(data.role, 'assistant')
    assert.equal(data.model, MODEL)
    assert.deepEqual(data.content, [{ type: 'text', text: 'Bonjour.', citations: null }])
    assert.equal(data.stop_reason, 'end_turn')
    assert.equal(data.stop_sequence, null)
    assert.deepEqual(data.usage, { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3 })
    assert.equal(sent().path, '/v1/chat/completions')
    assert.deepEqual(sent().body, {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Hello' },
      ],
      // OpenAI's own API: the limit every one of its models takes.
      max_completion_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
    })
    assert.equal(sent().headers['anthropic-version'], undefined)
    assert.equal(sent().headers['anthropic-beta'], undefined)
    // 20 × 2.5 + 3 × 10 = 80 per million
    near(Number(response.headers.get('x-gw-cost-usd')), 0.00008)
    const rec = await record(response)
    assert.equal(rec.endpoint, 'messages')
    assert.equal(rec.provider, 'openai')
    assert.equal(rec.upstream_model, 'gpt-4o')
    assert.equal(rec.status, 200)
    near(rec.cost!.final_usd, 0.00008)
    assert.equal(response.headers.get('x-gw-request-id'), rec.id)
  })

  it('streams text through the SDK stream helper, events in the order the SDK expects, usage asked upstream', async () => {
    openai.script({ kind: 'reply', content: 'Streamed answer, in several pieces.' })
    const texts: string[] = []
    const stream = client.messages.stream({ model: MODEL, max_tokens: 50, messages: hi }).on('text', (t) => texts.push(t))
    const message = await stream.finalMessage()
    assert.deepEqual(message.content, [{ type: 'text', text: 'Streamed answer, in several pieces.', citations: null }])
    assert.ok(texts.length >= 3, 'the text arrives in pieces')
    assert.equal(texts.join(''), 'Streamed answer, in several pieces.')
    assert.equal(message.stop_reason, 'end_turn')
    assert.equal(message.model, MODEL)
    assert.equal(sent().body.stream, true)
    assert.deepEqual(sent().body.stream_options, { include_usage: true })

    openai.script({ kind: 'reply', content: 'One two three.' })
    const res = await raw({ model: MODEL, max_tokens: 50, messages: hi, stream: true })
    assert.equal(res.status, 200)
    const names = events(await res.text()).map(([name]) => name)
    assert.deepEqual(names, [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'gw',
      'message_stop',
    ])
  })

  it('reports cached tokens as cache reads outside input_tokens, and prices them exactly: header, stream event, record', async () => {
    const usage = { prompt_tokens: 1000, cached_tokens: 400, completion_tokens: 200 }
    // 600 × 2.5 + 400 × 1.25 + 200 × 10 = 1500 + 500 + 2000 = 4000 per million
    const expected = 0.004
    const anthropicUsage = { input_tokens: 600, cache_creation_input_tokens: 0, cache_read_input_tokens: 400, output_tokens: 200 }
    openai.script({ kind: 'reply', content: 'Cached.', usage })
    const { data, response } = await client.messages.create({ model: MODEL, max_tokens: 500, messages: hi }).withResponse()
    assert.deepEqual(data.usage, anthropicUsage)
    near(Number(response.headers.get('x-gw-cost-usd')), expected)
    const rec = await record(response)
    near(rec.cost!.final_usd, expected)
    assert.equal(rec.usage!.cached_tokens, 400)
    assert.equal(rec.usage!.prompt_tokens, 1000)

    openai.script({ kind: 'reply', content: 'Cached.', usage })
    const res = await raw({ model: MODEL, max_tokens: 500, messages: hi, stream: true })
    const evs = events(await res.text())
    const delta = evs.find(([n]) => n === 'message_delta')![1]
    assert.deepEqual(delta.usage, anthropicUsage)
    const gw = evs.find(([n]) => n === 'gw')![1].gw
    near(gw.cost.final_usd, expected)
    const streamed = await record(res)
    near(streamed.cost!.final_usd, expected)
    assert.equal(streamed.cost!.estimated, false)
    assert.equal(gw.request_id, streamed.id)

    // The SDK's stream helper takes the final counts from message_delta.
    openai.script({ kind: 'reply', content: 'Cached.', usage })
    const final = await client.messages.stream({ model: MODEL, max_tokens: 500, messages: hi }).finalMessage()
    assert.deepEqual(final.usage, { ...anthropicUsage, output_tokens: 200 })
  })

  it('tools: definitions and tool_choice translated, a tool_use answer non-streamed and streamed (input assembled by the SDK)', async () => {
    openai.script({ kind: 'reply', toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' }] })
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: hi,
      tools: [weather],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    })
    assert.deepEqual(sent().body.tools, [
      { type: 'function', function: { name: 'weather', description: 'The weather in a city', parameters: weather.input_schema } },
    ])
    assert.equal(sent().body.tool_choice, 'required')
    assert.equal(sent().body.parallel_tool_calls, false)
    assert.equal(message.stop_reason, 'tool_use')
    assert.deepEqual(message.content, [{ type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } }])

    const input = { city: 'Paris', days: [1, 2, 3], units: 'metric' }
    openai.script({
      kind: 'reply',
      content: 'Let me check both.',
      toolCalls: [
        { id: 'call_a', name: 'weather', arguments: JSON.stringify(input) },
        { id: 'call_b', name: 'weather', arguments: '{"city": "Lyon"}' },
      ],
    })
    const stream = client.messages.stream({ model: MODEL, max_tokens: 100, messages: hi, tools: [weather], tool_choice: { type: 'tool', name: 'weather' } })
    const streamed = await stream.finalMessage()
    assert.deepEqual(sent().body.tool_choice, { type: 'function', function: { name: 'weather' } })
    assert.equal(streamed.stop_reason, 'tool_use')
    assert.deepEqual(streamed.content, [
      { type: 'text', text: 'Let me check both.', citations: null },
      { type: 'tool_use', id: 'call_a', name: 'weather', input },
      { type: 'tool_use', id: 'call_b', name: 'weather', input: { city: 'Lyon' } },
    ])
  })

  it('a follow-up turn with tool results: tool messages right after the assistant turn, in order, then the rest of the user turn', async () => {
    openai.script({ kind: 'reply', content: 'Paris is cold, Lyon unknown.' })
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Weather in Paris and Lyon?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check both.' },
          { type: 'tool_use', id: 'call_a', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_b', name: 'weather', input: { city: 'Lyon' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: '4°C' },
          { type: 'tool_result', tool_use_id: 'call_b', content: [{ type: 'text', text: 'no station' }], is_error: true },
          { type: 'text', text: 'Thanks.' },
        ],
      },
    ]
    const answer = await client.messages.create({ model: MODEL, max_tokens: 100, messages, tools: [weather] })
    assert.equal(answer.content[0].type === 'text' && answer.content[0].text, 'Paris is cold, Lyon unknown.')
    assert.deepEqual(sent().body.messages, [
      { role: 'user', content: 'Weather in Paris and Lyon?' },
      {
        role: 'assistant',
        content: 'Let me check both.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'weather', arguments: '{"city":"Lyon"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '4°C' },
      { role: 'tool', tool_call_id: 'call_b', content: 'Error: no station' },
      { role: 'user', content: 'Thanks.' },
    ])
  })

  it('images: base64 as a data URL, url as is, next to the text', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    await client.messages.create({
      model: MODEL,
      max_tokens: 50,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What are these?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    })
    assert.deepEqual(sent().body.messages[0].content, [
      { type: 'text', text: 'What are these?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    ])
  })

  it("Claude Code's request shape: system blocks with cache_control, a mid-conversation system message; what has no counterpart is dropped and named in the record", async () => {
    const userId = JSON.stringify({ device_id: 'd'.repeat(64), account_uuid: '', session_id: '5f0c1b9e-0000-4000-8000-000000000000' })
    const body = {
      model: MODEL,
      max_tokens: 32000,
      system: [
        { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'You are an interactive CLI tool.' },
        { type: 'text', text: 'Environment: linux.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>Be careful.</system-reminder>' },
            { type: 'text', text: 'List the files.', cache_control: { type: 'ephemeral' } },
          ],
        },
        { role: 'system', content: 'The user switched to plan mode.' },
        { role: 'user', content: 'Go on.' },
      ],
      tools: [
        { ...weather, cache_control: { type: 'ephemeral' } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
      ],
      metadata: { user_id: userId },
      thinking: { type: 'adaptive' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      output_config: { effort: 'medium' },
      top_k: 5,
      stream: true,
    }
    const beta = 'claude-code-20250219,interleaved-thinking,context-management-2025-06-27,effort-2025-11-24'
    openai.script({ kind: 'reply', content: 'Two files.' })
    const res = await raw(body, { 'anthropic-beta': beta })
    assert.equal(res.status, 200, await res.clone().text())
    const answered = events(await res.text())
    assert.equal(
      answered
        .filter(([n]) => n === 'content_block_delta')
        .map(([, e]) => e.delta.text)
        .join(''),
      'Two files.',
    )
    const upstream = sent()
    // The fake refuses, as OpenAI does, thinking, cache_control, context_management and the rest by name: it answered.
    assert.deepEqual(upstream.body.messages, [
      { role: 'system', content: "You are Claude Code, Anthropic's official CLI for Claude.\n\nYou are an interactive CLI tool.\n\nEnvironment: linux." },
      { role: 'user', content: '<system-reminder>Be careful.</system-reminder>\n\nList the files.' },
      { role: 'system', content: 'The user switched to plan mode.' },
      { role: 'user', content: 'Go on.' },
    ])
    assert.deepEqual(upstream.body.tools, [
      { type: 'function', function: { name: 'weather', description: 'The weather in a city', parameters: weather.input_schema } },
    ])
    assert.deepEqual(Object.keys(upstream.body).sort(), ['max_completion_tokens', 'messages', 'model', 'prompt_cache_key', 'stream', 'stream_options', 'tools'])
    // The session Claude Code names in its metadata keys OpenAI's prompt cache.
    assert.equal(upstream.body.prompt_cache_key, '5f0c1b9e-0000-4000-8000-000000000000')
    assert.equal(upstream.headers['anthropic-beta'], undefined)
    const rec = await record(res)
    assert.equal(rec.outcome, 'ok')
    const ignored = Object.fromEntries(rec.ignored.map((i) => [i.name, i.reason]))
    assert.deepEqual(Object.keys(ignored).sort(), [
      'cache_control',
      'context_management',
      'max_tokens',
      'metadata.user_id',
      'output_config.effort',
      'thinking',
      'tools[1]',
      'top_k',
    ])
    // Claude Code's 32,000 is more than gpt-4o can write, which OpenAI refuses: the catalog's limit is sent.
    assert.equal(upstream.body.max_completion_tokens, 16384)
    assert.match(ignored.max_tokens, /32000 is above the model's output limit of 16384/)
    assert.match(ignored.cache_control, /on 4 \(first system\[0\]\)/)
    assert.match(ignored['tools[1]'], /web_search_20250305/)
    assert.match(ignored['metadata.user_id'], /X-Gw-User-Id/)

    // A short plain user id travels as `user`.
    await client.messages.create({ model: MODEL, max_tokens: 10, messages: hi, metadata: { user_id: 'user-42' } })
    assert.equal(sent().body.user, 'user-42')
  })

  it('stop_sequences become stop; finish reasons map to stop reasons, a matched stop sequence where the provider names it', async () => {
    openai.script({ kind: 'reply', content: 'one two', matchedStop: 'three' })
    const matched = await client.messages.create({ model: MODEL, max_tokens: 50, messages: hi, stop_sequences: ['three', 'four'] })
    assert.deepEqual(sent().body.stop, ['three', 'four'])
    assert.equal(matched.stop_reason, 'stop_sequence')
    assert.equal(matched.stop_sequence, 'three')

    openai.script({ kind: 'reply', content: 'one two', matchedStop: 'four' })
    const streamed = await client.messages.stream({ model: MODEL, max_tokens: 50, messages: hi, stop_sequences: ['three', 'four'] }).finalMessage()
    assert.equal(streamed.stop_reason, 'stop_sequence')
    assert.equal(streamed.stop_sequence, 'four')

    openai.script({ kind: 'reply', content: 'cut', finishReason: 'length' })
    assert.equal((await client.messages.create({ model: MODEL, max_tokens: 1, messages: hi })).stop_reason, 'max_tokens')
    openai.script({ kind: 'reply', content: '', finishReason: 'content_filter' })
    assert.equal((await client.messages.stream({ model: MODEL, max_tokens: 10, messages: hi }).finalMessage()).stop_reason, 'refusal')
  })

  it("provider errors in Anthropic's shape: before the first byte, and mid-stream as an error event; a PDF is refused, naming the block", async () => {
    openai.script({ kind: 'status', status: 429, headers: { 'retry-after': '7' } })
    const limited: any = await client.messages.create({ model: MODEL, max_tokens: 10, messages: hi }).catch((e) => e)
    assert.equal(limited.status, 429)
    assert.equal(limited.error.type, 'error')
    assert.equal(limited.error.error.type, 'rate_limit_error')
    assert.equal(limited.headers.get('retry-after'), '7')

    openai.script({ kind: 'fail-mid-stream', afterChunks: 3, mode: 'error-event' })
    const texts: string[] = []
    const midStream: any = await client.messages
      .stream({ model: MODEL, max_tokens: 10, messages: hi })
      .on('text', (t) => texts.push(t))
      .finalMessage()
      .catch((e) => e)
    assert.ok(texts.length > 0, 'text arrived before the error')
    assert.equal(midStream.error.type, 'error')
    assert.equal(midStream.error.error.type, 'api_error')
    assert.match(midStream.error.error.message, /openai/)

    openai.script({ kind: 'fail-mid-stream', afterChunks: 2, mode: 'drop' })
    const res = await raw({ model: MODEL, max_tokens: 10, messages: hi, stream: true })
    const evs = events(await res.text())
    assert.deepEqual(evs.at(-1)![0], 'error')
    assert.equal(
      evs.some(([n]) => n === 'message_stop'),
      false,
    )
    const rec = await record(res)
    assert.equal(rec.outcome, 'error')
    assert.equal(rec.cost!.estimated, true)
    assert.ok(rec.usage!.completion_tokens > 0, 'what was generated is priced')

    const before = openai.received.length
    const pdf: any = await client.messages
      .create({
        model: MODEL,
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
              { type: 'text', text: 'Summarise.' },
            ],
          },
        ],
      })
      .catch((e) => e)
    assert.equal(pdf.status, 400)
    assert.equal(pdf.error.error.type, 'invalid_request_error')
    assert.match(pdf.error.error.message, /messages\[0\]\.content\[0\].*PDF/)
    assert.equal(openai.received.length, before, 'nothing reached the provider')
  })

  it("an alias sends Claude Code's haiku model to a local Ollama model: max_tokens as such, no key, priced as local", async () => {
    const ollama = await startFakeOpenAI({ quirks: { noAuth: true }, models: ['qwen3-coder'] })
    try {
      const gw = gateway.gateway
      await gw.store.providers.upsert('ollama', 'openai', ollama.url)
      await gw.store.aliases.set('claude-haiku-*', 'ollama/qwen3-coder', null)
      await gw.configChanged()
      ollama.script({ kind: 'reply', content: 'Local answer.' })
      const stream = client.messages.stream({ model: 'claude-haiku-4-5-20251001', max_tokens: 512, messages: hi })
      const message = await stream.finalMessage()
      assert.deepEqual(message.content, [{ type: 'text', text: 'Local answer.', citations: null }])
      assert.equal(message.model, 'claude-haiku-4-5-20251001')
      const upstream = ollama.received.at(-1)!
      assert.equal(upstream.body.model, 'qwen3-coder')
      assert.equal(upstream.body.max_tokens, 512)
      assert.equal(upstream.headers.authorization, undefined)
      const rec = await record((await stream.withResponse()).response)
      assert.equal(rec.provider, 'ollama')
      assert.deepEqual(rec.alias, { pattern: 'claude-haiku-*', target: 'ollama/qwen3-coder' })
      assert.equal(rec.cost!.final_usd, 0)
    } finally {
      await gateway.gateway.store.aliases.remove('claude-haiku-*')
      await gateway.gateway.configChanged()
      await ollama.close()
    }
  })

  it('a preset whose anthropic model fails falls back to an openai-kind model on the same request; a key default preset steers Claude Code to it', async () => {
    const gw = gateway.gateway
    await gw.store.presets.save(
      {
        name: 'mixed',
        model: 'anthropic/claude-sonnet-4-5',
        system_prompt: 'Be brief.',
        temperature: 0.2,
        top_p: null,
        max_tokens: 4096,
        fallbacks: [MODEL],
        description: null,
      },
      'test',
    )
    const steered = new Anthropic({ baseURL: gateway.url, apiKey: (await gw.store.keys.create('steered', { default_preset: 'mixed' })).secret, maxRetries: 0 })
    await gw.configChanged()

    anthropic.script({ kind: 'status', status: 529 })
    openai.script({ kind: 'reply', content: 'From the fallback.' })
    const system = [{ type: 'text' as const, text: 'Use French.', cache_control: { type: 'ephemeral' as const } }]
    const { data, response } = await steered.messages
      .create(
        { model: 'claude-sonnet-4-5-20250929', max_tokens: 16000, system, messages: hi, thinking: { type: 'enabled', budget_tokens: 2048 } },
        { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } },
      )
      .withResponse()
    assert.deepEqual(data.content, [{ type: 'text', text: 'From the fallback.', citations: null }])
    // The primary got the Messages body natively, with the caller's headers…
    const first = anthropic.received.at(-1)!
    assert.equal(first.body.model, 'claude-sonnet-4-5')
    assert.deepEqual(first.body.thinking, { type: 'enabled', budget_tokens: 2048 })
    assert.equal(first.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14')
    // …the fallback its translation, under the same preset, without them.
    assert.deepEqual(sent().body, {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.\n\nUse French.' },
        { role: 'user', content: 'Hello' },
      ],
      max_completion_tokens: 4096,
      temperature: 0.2,
    })
    assert.equal(sent().headers['anthropic-beta'], undefined)
    assert.equal(sent().headers['anthropic-version'], undefined)
    const rec = await record(response)
    assert.equal(rec.provider, 'openai')
    assert.equal(rec.preset, 'mixed')
    assert.equal(rec.fallback_used, true)
    assert.deepEqual(
      rec.attempts.map((a) => [a.provider, a.status]),
      [
        ['anthropic', 529],
        ['openai', 200],
      ],
    )
    assert.deepEqual(rec.ignored.map((i) => i.name).sort(), ['cache_control', 'thinking'])
  })
})
