import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import OpenAI from 'openai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { envVarFor } from '../../src/gateway/secrets/secretStore'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { tempDir } from '../support/tempDir'
import { waitForRecord } from '../support/harness'

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
const MODEL = 'anthropic/claude-sonnet-4-5'
/** A second provider of the same kind whose key Anthropic refuses. */
const WRONG_KEY_PROVIDER = 'anthropic-wrong-key'

describe('the anthropic kind through the official OpenAI SDK', () => {
  let fake: FakeAnthropic
  let gateway: RunningGateway
  let dataDir: string
  let client: OpenAI

  before(async () => {
    fake = await startFakeAnthropic()
    dataDir = tempDir()
    gateway = await startGateway(
      { port: 0, dataDir, logLevel: 'silent' },
      {
        env: { ANTHROPIC_API_KEY: fake.apiKey, [envVarFor(WRONG_KEY_PROVIDER)]: 'sk-ant-not-the-key' },
        // One upstream attempt per request: each scripted behaviour meets the request it was written for.
        routing: { maxRetries: 0 },
      },
    )
    const gw = gateway.gateway
    await gw.store.providers.upsert('anthropic', 'anthropic', fake.url)
    await gw.store.providers.upsert(WRONG_KEY_PROVIDER, 'anthropic', fake.url)
    const { secret } = await gw.store.keys.create('t')
    await gw.configChanged()
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 })
  })

  after(async () => {
    await gateway.close()
    await fake.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  const last = () => fake.received.at(-1)!

  it('has a fake that refuses what Anthropic refuses', async () => {
    const post = async (body: unknown, headers: Record<string, string> = { 'x-api-key': fake.apiKey, 'anthropic-version': '2023-06-01' }) => {
      const res = await fetch(`${fake.url}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
      return { status: res.status, body: (await res.json()) as any }
    }
    const valid = { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }
    const text = (t: string, cached = false) => ({ type: 'text', text: t, ...(cached ? { cache_control: { type: 'ephemeral' } } : {}) })
    assert.equal((await post(valid)).status, 200)
    assert.equal((await post(valid, { 'anthropic-version': '2023-06-01' })).body.error.type, 'authentication_error')
    const cases: Array<[string, unknown, RegExp]> = [
      ['no max_tokens', { ...valid, max_tokens: undefined }, /max_tokens: Field required/],
      ['system role', { ...valid, messages: [{ role: 'system', content: 'x' }, ...valid.messages] }, /role/],
      ['temperature', { ...valid, temperature: 1.2 }, /temperature/],
      ['unknown field', { ...valid, stream_options: { include_usage: true } }, /Extra inputs/],
      [
        'svg',
        { ...valid, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/svg+xml', data: 'PHN2Zz4=' } }] }] },
        /media_type/,
      ],
      [
        'five breakpoints',
        { ...valid, system: [text('a', true), text('b', true)], messages: [{ role: 'user', content: [text('c', true), text('d', true), text('e', true)] }] },
        /maximum of 4/,
      ],
      [
        'unanswered tool_use',
        {
          ...valid,
          messages: [
            ...valid.messages,
            { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
            { role: 'user', content: 'go on' },
          ],
        },
        /t1/,
      ],
      ['stray tool_result', { ...valid, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't9', content: 'x' }] }] }, /t9/],
    ]
    for (const [name, body, message] of cases) {
      const res = await post(body)
      assert.equal(res.status, 400, name)
      assert.equal(res.body.type, 'error', name)
      assert.equal(res.body.error.type, 'invalid_request_error', name)
      assert.match(res.body.error.message, message, name)
    }
  })

  it('answers a non-streamed text completion, speaking the Messages API upstream', async () => {
    fake.script({ kind: 'reply', text: 'Bonjour.', usage: { input_tokens: 20, output_tokens: 3 } })
    const res = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Hello' },
      ],
      temperature: 0.2,
    })
    assert.equal(res.object, 'chat.completion')
    assert.equal(res.model, 'claude-sonnet-4-5')
    assert.equal(res.choices[0].message.content, 'Bonjour.')
    assert.equal(res.choices[0].finish_reason, 'stop')
    assert.equal(res.usage!.prompt_tokens, 20)
    assert.equal(res.usage!.completion_tokens, 3)
    const upstream = last()
    assert.equal(upstream.path, '/v1/messages')
    assert.equal(upstream.headers['x-api-key'], fake.apiKey)
    assert.equal(upstream.headers['anthropic-version'], '2023-06-01')
    assert.equal(upstream.headers.authorization, undefined)
    assert.deepEqual(upstream.body, {
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Answer in French.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      temperature: 0.2,
    })
  })

  it('streams text: role first, one id, the finish reason, no usage chunk unless asked', async () => {
    fake.script({ kind: 'reply', text: 'one two three four five', pings: true })
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Count' }], stream: true })
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = []
    for await (const c of stream) chunks.push(c)
    assert.equal(chunks[0].choices[0].delta.role, 'assistant')
    assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'one two three four five')
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1)
    assert.ok(chunks.every((c) => c.choices.length === 1 && !('usage' in c)))
    assert.equal(chunks.at(-1)!.choices[0].finish_reason, 'stop')
    assert.equal(last().body.stream, true)
    assert.equal('stream_options' in last().body, false)
  })

  it('streams the usage chunk, with gw, when asked with include_usage', async () => {
    fake.script({ kind: 'reply', text: 'Short.', usage: { input_tokens: 40, output_tokens: 2 } })
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks: any[] = []
    for await (const c of stream) chunks.push(c)
    const usageChunk = chunks.at(-1)
    assert.deepEqual(usageChunk.choices, [])
    assert.equal(usageChunk.usage.prompt_tokens, 40)
    assert.equal(usageChunk.usage.completion_tokens, 2)
    assert.equal(usageChunk.usage.total_tokens, 42)
    // 40 × $3 + 2 × $15 per 1M = 0.00012 + 0.00003
    assert.equal(usageChunk.gw.cost.final_usd, 0.00015)
    assert.equal(chunks.at(-2).choices[0].finish_reason, 'stop')
    for (const c of chunks.slice(0, -1)) assert.equal(c.usage, null)
  })

  it('assembles streamed tool calls with the stream helper', async () => {
    fake.script({
      kind: 'reply',
      text: 'Checking both.',
      thinking: 'Two cities, two calls.',
      toolUses: [
        { id: 'toolu_01', name: 'weather', input: { city: 'Oslo', unit: 'celsius' } },
        { id: 'toolu_02', name: 'weather', input: { city: 'Bergen', unit: 'celsius' } },
      ],
    })
    const runner = client.chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Oslo and Bergen?' }],
      tools: [
        { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } } } } },
      ],
      tool_choice: 'required',
      parallel_tool_calls: true,
    })
    const final = await runner.finalChatCompletion()
    const choice = final.choices[0]
    assert.equal(choice.finish_reason, 'tool_calls')
    assert.equal(choice.message.content, 'Checking both.')
    const calls = choice.message.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>
    assert.deepEqual(
      calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
      [
        ['toolu_01', 'weather', { city: 'Oslo', unit: 'celsius' }],
        ['toolu_02', 'weather', { city: 'Bergen', unit: 'celsius' }],
      ],
    )
    assert.deepEqual(last().body.tool_choice, { type: 'any' })
    assert.deepEqual(last().body.tools[0].input_schema.properties.city, { type: 'string' })
  })

  it('sends a tool-result round trip as a history Anthropic accepts, and passes its 400 for a broken one', async () => {
    const history: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Weather in Oslo and Bergen?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'toolu_01', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          { id: 'toolu_02', type: 'function', function: { name: 'weather', arguments: '{"city":"Bergen"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01', content: '4°C' },
      { role: 'tool', tool_call_id: 'toolu_02', content: '7°C' },
    ]
    fake.script({ kind: 'reply', text: 'Oslo 4°C, Bergen 7°C.' })
    const res = await client.chat.completions.create({ model: MODEL, messages: history })
    assert.equal(res.choices[0].message.content, 'Oslo 4°C, Bergen 7°C.')
    assert.deepEqual(last().body.messages.slice(1), [
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_01', name: 'weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'toolu_02', name: 'weather', input: { city: 'Bergen' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01', content: '4°C' },
          { type: 'tool_result', tool_use_id: 'toolu_02', content: '7°C' },
        ],
      },
    ])
    // One call left unanswered: Anthropic's own 400 reaches the client as a 400.
    const err: any = await client.chat.completions.create({ model: MODEL, messages: history.slice(0, 3) }).catch((e) => e)
    assert.ok(err instanceof OpenAI.BadRequestError)
    assert.match(err.message, /toolu_02/)
  })

  it('sends an image data URI as a base64 image block', async () => {
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    })
    assert.deepEqual(last().body.messages[0].content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } })
  })

  it('maps stop reasons: max_tokens → length, stop_sequence → stop', async () => {
    fake.script({ kind: 'reply', text: 'Once upon a', stopReason: 'max_tokens' })
    let res = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Story' }], max_tokens: 3 })
    assert.equal(res.choices[0].finish_reason, 'length')
    assert.equal(last().body.max_tokens, 3)
    fake.script({ kind: 'reply', text: 'one, two', stopReason: 'stop_sequence', stopSequence: 'three' })
    res = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Count' }], stop: 'three' })
    assert.equal(res.choices[0].finish_reason, 'stop')
    assert.deepEqual(last().body.stop_sequences, ['three'])
    fake.script({ kind: 'reply', text: 'Once upon a', stopReason: 'max_tokens' })
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Story' }], stream: true })
    let finish: string | null = null
    for await (const c of stream) finish = c.choices[0]?.finish_reason ?? finish
    assert.equal(finish, 'length')
  })

  it('prices cache reads and 5-minute and 1-hour cache writes exactly, streamed or not', async () => {
    const usage = {
      input_tokens: 1000,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 1500,
      cache_creation_1h_input_tokens: 500,
      output_tokens: 400,
    }
    // claude-sonnet-4-5, in pico-dollars per token: input 3_000_000, 5m write 3_750_000, 1h write 6_000_000,
    // read 300_000, output 15_000_000.
    //   input   1000 × 3_000_000                          = 3_000_000_000  → 0.003
    //   read    2000 × 300_000                            =   600_000_000  → 0.0006
    //   writes  1000 × 3_750_000 + 500 × 6_000_000        = 6_750_000_000  → 0.00675
    //   output   400 × 15_000_000                         = 6_000_000_000  → 0.006
    //   final                                             = 16_350_000_000 → 0.01635
    //   savings 2000 × (3_000_000 − 300_000) − (6_750_000_000 − 1500 × 3_000_000)
    //         = 5_400_000_000 − 2_250_000_000             = 3_150_000_000  → 0.00315
    const expectCost = (cost: any, how: string) => {
      assert.equal(cost.priced, true, how)
      assert.equal(cost.prompt_tokens, 4500, how)
      assert.equal(cost.cached_tokens, 2000, how)
      assert.equal(cost.cache_write_tokens, 1500, how)
      assert.ok(cost.input_usd === 0.003, how)
      assert.ok(cost.cached_input_usd === 0.0006, how)
      assert.ok(cost.cache_write_usd === 0.00675, how)
      assert.ok(cost.output_usd === 0.006, how)
      assert.ok(cost.final_usd === 0.01635, how)
      assert.ok(cost.cache_savings_usd === 0.00315, how)
    }
    fake.script({ kind: 'reply', text: 'Cached.', usage })
    const res: any = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Long prompt' }] })
    assert.equal(res.usage.prompt_tokens, 4500)
    assert.equal(res.usage.total_tokens, 4900)
    assert.equal(res.usage.prompt_tokens_details.cached_tokens, 2000)
    assert.equal(res.usage.prompt_tokens_details.cache_write_tokens, 1500)
    expectCost(res.gw.cost, 'non-streamed')

    fake.script({ kind: 'reply', text: 'Cached.', usage })
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Long prompt' }], stream: true })
    let gw: any = null
    for await (const c of stream) gw = (c as any).gw ?? gw
    expectCost(gw.cost, 'streamed')
  })

  it('gw.auto_cache puts breakpoints upstream, and the gw envelope never reaches Anthropic', async () => {
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are a careful assistant.' },
        { role: 'user', content: 'First' },
        { role: 'assistant', content: 'Answer one' },
        { role: 'user', content: 'Second' },
      ],
      tools: [{ type: 'function', function: { name: 'lookup' } }],
      gw: { auto_cache: true, user_id: 'alice' },
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming)
    const body = last().body
    assert.equal('gw' in body, false)
    assert.deepEqual(body.tools[0].cache_control, { type: 'ephemeral' })
    assert.deepEqual(body.system[0].cache_control, { type: 'ephemeral' })
    assert.deepEqual(body.messages[1].content[0].cache_control, { type: 'ephemeral' })
    assert.equal(body.messages[2].content[0].cache_control, undefined, 'the final user turn changes every time')
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'x' },
      ],
    })
    assert.equal(JSON.stringify(last().body).includes('cache_control'), false, 'no breakpoints without gw.auto_cache')
  })

  it('refuses a temperature above 1 without calling Anthropic', async () => {
    const before = fake.received.length
    const err: any = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], temperature: 1.4 }).catch((e) => e)
    assert.ok(err instanceof OpenAI.BadRequestError)
    assert.equal(err.param, 'temperature')
    assert.equal(fake.received.length, before)
  })

  it('turns 529 overloaded into a 503 before the first byte', async () => {
    fake.script({ kind: 'status', status: 529 })
    const err: any = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true }).catch((e) => e)
    // Were it to open a stream after all, an unread one would keep the gateway from closing.
    if (!(err instanceof Error)) err.controller.abort()
    assert.ok(err instanceof OpenAI.InternalServerError)
    assert.equal(err.status, 503)
    assert.match(err.message, /Overloaded/)
  })

  it('surfaces an error event mid-stream as an SDK error, after the content that came before it', async () => {
    fake.script({ kind: 'error-mid-stream', afterBlocks: 1 })
    const { data: stream, response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true })
      .withResponse()
    let text = ''
    const err: any = await (async () => {
      for await (const c of stream) text += c.choices[0]?.delta?.content ?? ''
    })().catch((e) => e)
    assert.ok(err instanceof OpenAI.APIError, 'the SDK throws')
    assert.match(err.message, /Overloaded/)
    assert.equal(text, 'Partial answer 1. ')
    // Anthropic reported the prompt in message_start but no final output count: the prompt is
    // billed as reported, the output estimated from the 18 characters sent (ceil(18 / 4) = 5).
    const record = await waitForRecord(gateway.gateway, response.headers.get('x-request-id'))
    assert.equal(record.outcome, 'error')
    assert.equal(record.usage!.completion_tokens, 5)
    assert.ok(record.usage!.prompt_tokens > 0)
    assert.equal(record.cost!.estimated, true)
    assert.ok(record.cost!.final_usd! > 0)
  })

  it('lists the provider as available after probing its model list with the Anthropic headers', async () => {
    const models: any[] = []
    for await (const m of client.models.list()) models.push(m)
    const sonnet = models.find((m) => m.id === MODEL)
    assert.deepEqual(sonnet.gw.availability, { available: true, reason: null })
    const probe = fake.received.find((r) => r.method === 'GET' && r.path.startsWith('/v1/models') && r.headers['x-api-key'] === fake.apiKey)
    assert.equal(probe?.headers['anthropic-version'], '2023-06-01')
  })

  it('answers 502, never 401, when Anthropic refuses the gateway’s key', async () => {
    const err: any = await client.chat.completions
      .create({ model: `${WRONG_KEY_PROVIDER}/claude-sonnet-4-5`, messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e)
    assert.equal(last().headers['x-api-key'], 'sk-ant-not-the-key')
    assert.equal(err.status, 502)
    assert.equal(err.code, 'provider_auth_failed')
    assert.equal(err.headers.get('x-should-retry'), 'false')
    assert.doesNotMatch(err.message, /sk-ant-not-the-key/)
  })
})
