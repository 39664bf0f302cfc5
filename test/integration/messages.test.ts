import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import Database from 'better-sqlite3'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { DB_FILE } from '../../src/gateway/store/db'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { waitForRecord } from '../support/harness'
import { tempDir } from '../support/tempDir'

const MODEL = 'anthropic/claude-sonnet-4-5'
const hi = [{ role: 'user' as const, content: 'Hello' }]

describe('POST /v1/messages through the official Anthropic SDK, natively to an anthropic provider', () => {
  let fake: FakeAnthropic
  let gateway: RunningGateway
  let dataDir: string
  let secret: string
  let client: Anthropic
  const last = () => fake.received.at(-1)!
  const sdk = (apiKey: string, opts: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) =>
    new Anthropic({ baseURL: gateway.url, apiKey, maxRetries: 0, ...opts })

  before(async () => {
    fake = await startFakeAnthropic()
    dataDir = tempDir()
    gateway = await startGateway(
      { port: 0, dataDir, logLevel: 'silent' },
      // One upstream attempt per request: each scripted behaviour meets the request it was written for.
      { env: { ANTHROPIC_API_KEY: fake.apiKey, OPENAI_API_KEY: 'sk-unused' }, routing: { maxRetries: 0 } },
    )
    const gw = gateway.gateway
    await gw.store.providers.upsert('anthropic', 'anthropic', fake.url)
    secret = (await gw.store.keys.create('t')).secret
    await gw.configChanged()
    client = sdk(secret)
  })

  after(async () => {
    await gateway.close()
    await fake.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers a plain message: body as sent but for the model, version header forwarded, ids and cost in headers, record endpoint messages', async () => {
    fake.script({ kind: 'reply', text: 'Bonjour.', usage: { input_tokens: 20, output_tokens: 3 } })
    const body = { model: MODEL, max_tokens: 100, system: [{ type: 'text' as const, text: 'Answer in French.' }], messages: hi, metadata: { user_id: 'u1' } }
    // A version other than the gateway's own default (2023-06-01), to see the caller's travel.
    const { data, response } = await client.messages.create(body, { headers: { 'anthropic-version': '2099-01-01' } }).withResponse()
    assert.equal(data.type, 'message')
    assert.deepEqual(data.content, [{ type: 'text', text: 'Bonjour.', citations: null }])
    assert.deepEqual(last().body, { ...body, model: 'claude-sonnet-4-5' })
    assert.equal(last().headers['anthropic-version'], '2099-01-01')
    const id = response.headers.get('request-id')
    assert.ok(id)
    assert.equal(response.headers.get('x-request-id'), id)
    assert.equal(response.headers.get('x-gw-request-id'), id)
    // 20 × $3/M + 3 × $15/M = 0.00006 + 0.000045
    assert.ok(Math.abs(Number(response.headers.get('x-gw-cost-usd')) - 0.000105) < 1e-9)
    const record = await waitForRecord(gateway.gateway, id)
    assert.equal(record.endpoint, 'messages')
    assert.equal(record.provider, 'anthropic')
    assert.equal(record.status, 200)
  })

  it('streams event by event as the provider wrote them, through the SDK stream helper, with ?beta=true and beta headers forwarded', async () => {
    fake.script({ kind: 'reply', text: 'Streamed answer, in pieces.', pings: true })
    const stream = client.beta.messages.stream({
      model: MODEL,
      max_tokens: 50,
      messages: hi,
      betas: ['context-management-2025-06-27'],
      context_management: { edits: [] },
    } as any)
    const message = await stream.finalMessage()
    assert.deepEqual(message.content, [{ type: 'text', text: 'Streamed answer, in pieces.', citations: null }])
    assert.equal(message.stop_reason, 'end_turn')
    assert.match(last().path, /^\/v1\/messages$/)
    assert.equal(last().headers['anthropic-beta'], 'context-management-2025-06-27')
    assert.deepEqual(last().body.context_management, { edits: [] })

    // The raw stream: the provider's events in order (pings included), then `gw` just before message_stop.
    fake.script({ kind: 'reply', text: 'Raw.' })
    const res = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 50, messages: hi, stream: true }),
    })
    const text = await res.text()
    const names = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1])
    assert.deepEqual(names.slice(0, 3), ['message_start', 'ping', 'content_block_start'])
    assert.deepEqual(names.slice(-3), ['message_delta', 'gw', 'message_stop'])
    const gw = JSON.parse(/^event: gw\ndata: (.*)$/m.exec(text)![1]).gw
    const record = await waitForRecord(gateway.gateway, res.headers.get('request-id'))
    assert.equal(gw.request_id, record.id)
    assert.deepEqual(gw.cost, record.cost)
    assert.equal(record.endpoint, 'messages')
  })

  it('refuses a beta field without its beta header, as Anthropic does, in its shape', async () => {
    const err: any = await client.messages.create({ model: MODEL, max_tokens: 10, messages: hi, context_management: { edits: [] } } as any).catch((e) => e)
    assert.equal(err.status, 400)
    assert.equal(err.error.type, 'error')
    assert.equal(err.error.error.type, 'invalid_request_error')
    assert.match(err.error.error.message, /context_management: Extra inputs are not permitted/)
  })

  it('assembles streamed tool input (input_json_delta) in the SDK', async () => {
    const input = { city: 'Paris', days: [1, 2, 3], units: 'metric' }
    fake.script({ kind: 'reply', toolUses: [{ id: 'toolu_1', name: 'weather', input }] })
    const tools = [{ name: 'weather', description: 'Weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }]
    const message = await client.messages.stream({ model: MODEL, max_tokens: 100, messages: hi, tools, tool_choice: { type: 'auto' } }).finalMessage()
    assert.equal(message.stop_reason, 'tool_use')
    const use = message.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock
    assert.deepEqual(use.input, input)
    assert.deepEqual(last().body.tools, tools)
  })

  it('round-trips thinking blocks natively, with their signatures', async () => {
    fake.script({ kind: 'reply', thinking: 'Let me think.', text: 'Done.' })
    const thinking = { type: 'enabled' as const, budget_tokens: 1024 }
    const first = await client.messages.stream({ model: MODEL, max_tokens: 2048, thinking, messages: hi }).finalMessage()
    const block = first.content[0] as Anthropic.ThinkingBlock
    assert.equal(block.type, 'thinking')
    assert.equal(block.thinking, 'Let me think.')
    assert.ok(block.signature.length > 0)
    const messages: Anthropic.MessageParam[] = [...hi, { role: 'assistant', content: first.content as any }, { role: 'user', content: 'Go on.' }]
    await client.messages.create({ model: MODEL, max_tokens: 2048, thinking, messages })
    assert.deepEqual(last().body.thinking, thinking)
    assert.deepEqual(last().body.messages[1].content[0], { type: 'thinking', thinking: 'Let me think.', signature: block.signature })
  })

  it('prices cache reads and 5-minute and 1-hour cache writes exactly: header, stream event and record', async () => {
    const usage = {
      input_tokens: 1000,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 1500,
      cache_creation_1h_input_tokens: 500,
      output_tokens: 400,
    }
    // claude-sonnet-4-5 in USD per million tokens: input 3, cache read 0.3, 5-minute write 3.75,
    // 1-hour write 6, output 15. The 1500 written tokens are 1000 for 5 minutes and 500 for 1 hour:
    //   1000 × 3 + 2000 × 0.3 + 1000 × 3.75 + 500 × 6 + 400 × 15 = 3000 + 600 + 3750 + 3000 + 6000
    //   = 16350 per million = $0.01635
    const expected = 0.01635
    const system = [{ type: 'text' as const, text: 'Long instructions.', cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } }]
    fake.script({ kind: 'reply', text: 'Cached.', usage })
    const { response } = await client.messages.create({ model: MODEL, max_tokens: 500, system, messages: hi }).withResponse()
    assert.ok(Math.abs(Number(response.headers.get('x-gw-cost-usd')) - expected) < 1e-9)
    const record = await waitForRecord(gateway.gateway, response.headers.get('request-id'))
    assert.ok(Math.abs(record.cost!.final_usd! - expected) < 1e-9)
    assert.equal(record.cost!.cache_write_tokens, 1500)
    assert.equal(record.cost!.cached_tokens, 2000)
    assert.deepEqual(last().body.system, system)

    fake.script({ kind: 'reply', text: 'Cached.', usage })
    const stream = client.messages.stream({ model: MODEL, max_tokens: 500, system, messages: hi })
    const message = await stream.finalMessage()
    assert.equal(message.usage.cache_creation_input_tokens, 1500)
    const { response: streamed } = await stream.withResponse()
    const streamedRecord = await waitForRecord(gateway.gateway, streamed.headers.get('request-id'))
    assert.ok(Math.abs(streamedRecord.cost!.final_usd! - expected) < 1e-9)
    assert.equal(streamedRecord.cost!.estimated, false)
  })

  it('a bad key: one attempt, 401 authentication_error, x-should-retry false', async () => {
    let attempts = 0
    const counting: typeof fetch = (input, init) => {
      attempts++
      return fetch(input, init)
    }
    const sent = fake.received.length
    const err: any = await sdk('gw-not-a-real-key-at-all-0000000000000000000000', { maxRetries: 2, fetch: counting })
      .messages.create({ model: MODEL, max_tokens: 10, messages: hi })
      .catch((e) => e)
    assert.equal(err instanceof Anthropic.AuthenticationError, true)
    assert.equal(err.status, 401)
    assert.equal(err.error.error.type, 'authentication_error')
    assert.equal(err.headers.get('x-should-retry'), 'false')
    assert.ok(err.headers.get('request-id'))
    assert.equal(attempts, 1)
    assert.equal(fake.received.length, sent, 'the provider is never called')
    // The gateway key works as a bearer token too (ANTHROPIC_AUTH_TOKEN).
    fake.script({ kind: 'reply' })
    const ok = await new Anthropic({ baseURL: gateway.url, authToken: secret, apiKey: null, maxRetries: 0 }).messages.create({
      model: MODEL,
      max_tokens: 10,
      messages: hi,
    })
    assert.equal(ok.type, 'message')
  })

  it('an unknown model is a 404 not_found_error; a provider 529 an overloaded_error 529; bad input a 400 naming the field', async () => {
    const unknown: any = await client.messages.create({ model: 'no-such-model-anywhere', max_tokens: 10, messages: hi }).catch((e) => e)
    assert.equal(unknown instanceof Anthropic.NotFoundError, true)
    assert.equal(unknown.error.error.type, 'not_found_error')
    assert.match(unknown.error.error.message, /no-such-model-anywhere/)

    fake.script({ kind: 'status', status: 529 })
    const overloaded: any = await client.messages.create({ model: MODEL, max_tokens: 10, messages: hi }).catch((e) => e)
    assert.equal(overloaded.status, 529)
    assert.equal(overloaded.error.error.type, 'overloaded_error')

    fake.script({ kind: 'status', status: 429, headers: { 'retry-after': '7' } })
    const limited: any = await client.messages.create({ model: MODEL, max_tokens: 10, messages: hi }).catch((e) => e)
    assert.equal(limited.status, 429)
    assert.equal(limited.error.error.type, 'rate_limit_error')
    assert.equal(limited.headers.get('retry-after'), '7')

    // After the first byte an error travels inside the stream, as Anthropic's error event.
    fake.script({ kind: 'error-mid-stream', errorType: 'overloaded_error' })
    const midStream: any = await client.messages
      .stream({ model: MODEL, max_tokens: 10, messages: hi })
      .finalMessage()
      .catch((e) => e)
    assert.equal(midStream.error.error.type, 'overloaded_error')
    assert.match(midStream.error.error.message, /failed mid-stream/)

    const bad: any = await client.messages.create({ model: MODEL, max_tokens: 0, messages: hi }).catch((e) => e)
    assert.equal(bad.status, 400)
    assert.equal(bad.error.error.type, 'invalid_request_error')
    assert.match(bad.error.error.message, /max_tokens/)
  })

  it("a key's default preset steers Claude Code's own model id: preset model, its system prompt first (string or blocks), its parameters win", async () => {
    const gw = gateway.gateway
    await gw.store.presets.save(
      { name: 'claude', model: MODEL, system_prompt: 'Be brief.', temperature: 0.3, top_p: null, max_tokens: 64, fallbacks: [], description: null },
      'test',
    )
    const steered = sdk((await gw.store.keys.create('steered', { default_preset: 'claude' })).secret)
    await gw.configChanged()
    await steered.messages.create({ model: 'claude-sonnet-4-6-whatever', max_tokens: 1000, system: 'Use French.', messages: hi })
    assert.equal(last().body.model, 'claude-sonnet-4-5')
    assert.equal(last().body.system, 'Be brief.\n\nUse French.')
    assert.equal(last().body.temperature, 0.3)
    assert.equal(last().body.max_tokens, 64)
    const blocks = [{ type: 'text' as const, text: 'Use French.', cache_control: { type: 'ephemeral' as const } }]
    await steered.messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, system: blocks, messages: hi })
    assert.deepEqual(last().body.system, [{ type: 'text', text: 'Be brief.' }, ...blocks])
  })

  it("an alias to a model that writes less lowers Claude Code's max_tokens to that model's limit, and the record says so; a named model keeps what was sent", async () => {
    const gw = gateway.gateway
    await gw.store.aliases.set('claude-haiku-5-*', 'anthropic/claude-haiku-4-5', null)
    await gw.configChanged()
    try {
      // Claude Code asks its own haiku model for 128,000 tokens, streamed; claude-haiku-4-5 writes at most 64,000.
      const stream = client.messages.stream({ model: 'claude-haiku-5-5-20261001', max_tokens: 128_000, messages: hi })
      await stream.finalMessage()
      const { response } = await stream.withResponse()
      assert.equal(last().body.model, 'claude-haiku-4-5')
      assert.equal(last().body.max_tokens, 64_000)
      const record = await waitForRecord(gw, response.headers.get('request-id'))
      assert.deepEqual(
        record.ignored.filter((i) => i.name === 'max_tokens').map((i) => i.reason),
        ["128000 is above claude-haiku-4-5's output limit of 64000; 64000 was sent"],
      )
      await client.messages
        .stream({ model: 'anthropic/claude-haiku-4-5', max_tokens: 128_000, messages: hi })
        .finalMessage()
        .catch(() => null)
      assert.equal(last().body.max_tokens, 128_000, 'a model the caller named gets what the caller sent')
    } finally {
      await gw.store.aliases.remove('claude-haiku-5-*')
      await gw.configChanged()
    }
  })

  it("a prepaid key's debit is in the store before the answer reaches the client, JSON and streamed", async () => {
    const store = new Database(path.join(dataDir, DB_FILE), { readonly: true })
    try {
      const { info, secret: prepaid } = await gateway.gateway.store.keys.create('prepaid', { balanceUsd: 1 })
      await gateway.gateway.configChanged()
      const debits = () => store.prepare(`SELECT request_id FROM ledger WHERE key_id = ? AND kind = 'usage'`).pluck().all(info.id)
      const c = sdk(prepaid)
      const { response } = await c.messages.create({ model: MODEL, max_tokens: 10, messages: hi }).withResponse()
      // No flush, no wait: read at once by another connection.
      assert.deepEqual(debits(), [response.headers.get('request-id')])
      const stream = c.messages.stream({ model: MODEL, max_tokens: 10, messages: hi })
      await stream.finalMessage()
      const { response: streamed } = await stream.withResponse()
      assert.deepEqual(debits(), [response.headers.get('request-id'), streamed.headers.get('request-id')])
    } finally {
      store.close()
    }
  })
})
