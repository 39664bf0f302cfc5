import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { startFakeAnthropic, fakeTokenCount, type FakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { waitForRecord } from '../support/harness'
import { MemorySecretStore } from '../support/memorySecretStore'
import { tempDir } from '../support/tempDir'

const MODEL = 'anthropic/claude-sonnet-4-5'
const system = [{ type: 'text' as const, text: 'You are a coding agent.', cache_control: { type: 'ephemeral' as const } }]
const messages = [{ role: 'user' as const, content: 'How many tokens is this?' }]
const tools = [{ name: 'read_file', description: 'Reads a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } }]

describe('count_tokens and the model list on Anthropic’s wire, through the official Anthropic SDK', () => {
  let anthropic: FakeAnthropic
  let openai: FakeOpenAI
  let gateway: RunningGateway
  let dataDir: string
  let secret: string
  let client: Anthropic
  const sdk = (apiKey: string, opts: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) =>
    new Anthropic({ baseURL: gateway.url, apiKey, maxRetries: 0, ...opts })
  const last = () => anthropic.received.at(-1)!

  before(async () => {
    anthropic = await startFakeAnthropic()
    openai = await startFakeOpenAI()
    dataDir = tempDir()
    gateway = await startGateway(
      { port: 0, dataDir, logLevel: 'silent' },
      { env: { ANTHROPIC_API_KEY: anthropic.apiKey, OPENAI_API_KEY: openai.apiKey }, secrets: new MemorySecretStore(), routing: { maxRetries: 0 } },
    )
    const gw = gateway.gateway
    await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await gw.store.providers.upsert('openai', 'openai', openai.url)
    secret = (await gw.store.keys.create('t')).secret
    await gw.configChanged()
    client = sdk(secret)
  })

  after(async () => {
    await gateway.close()
    await anthropic.close()
    await openai.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  describe('POST /v1/messages/count_tokens', () => {
    it('natively: the body as sent but for the model, version and beta headers forwarded, the count as Anthropic wrote it, recorded free', async () => {
      const body = { model: MODEL, system, messages, tools }
      const { data, response } = await client.messages.countTokens(body).withResponse()
      assert.equal(last().path, '/v1/messages/count_tokens')
      assert.deepEqual(last().body, { ...body, model: 'claude-sonnet-4-5' })
      assert.ok(last().headers['anthropic-version'])
      assert.deepEqual(data, { input_tokens: fakeTokenCount(last().body) })
      assert.equal(response.headers.get('x-gw-token-count'), 'provider')
      const id = response.headers.get('request-id')
      assert.match(id ?? '', /^req_/)
      assert.equal(response.headers.get('x-request-id'), id)

      const record = await waitForRecord(gateway.gateway, id)
      assert.equal(record.endpoint, 'messages.count_tokens')
      assert.equal(record.status, 200)
      assert.equal(record.provider, 'anthropic')
      assert.equal(record.usage, null, 'no inference tokens: nothing to add to token totals')
      assert.equal(record.cost!.priced, true)
      assert.equal(record.cost!.final_usd, 0)
      assert.match(record.cost!.price_source!, /^free/)

      // The beta client (`?beta=true`) reaches the same route; a beta field travels with its header.
      const beta = await client.beta.messages.countTokens({ ...body, betas: ['context-management-2025-06-27'], context_management: { edits: [] } } as any)
      assert.equal(last().path, '/v1/messages/count_tokens')
      // The SDK adds the token-counting beta of its own.
      assert.equal(last().headers['anthropic-beta'], 'context-management-2025-06-27,token-counting-2024-11-01')
      assert.equal(beta.input_tokens, fakeTokenCount(last().body))
    })

    it("under a key's default preset: the preset's model and system prompt, none of its sampling parameters (count_tokens takes none)", async () => {
      const gw = gateway.gateway
      await gw.store.presets.save(
        { name: 'counted', model: MODEL, system_prompt: 'Be brief.', temperature: 0.3, top_p: null, max_tokens: 64, fallbacks: [], description: null },
        'test',
      )
      const steered = sdk((await gw.store.keys.create('steered', { default_preset: 'counted' })).secret)
      await gw.configChanged()
      const { response } = await steered.messages.countTokens({ model: 'claude-haiku-4-5', system: 'Use French.', messages }).withResponse()
      assert.deepEqual(last().body, { model: 'claude-sonnet-4-5', system: 'Be brief.\n\nUse French.', messages })
      const record = await waitForRecord(gw, response.headers.get('request-id'))
      assert.equal(record.preset, 'counted')
    })

    it('on an openai-kind provider: an estimate from system, messages and tools, said in a header, and no provider is called', async () => {
      const calls = anthropic.received.length + openai.received.length
      const { data, response } = await client.messages.countTokens({ model: 'openai/gpt-4o-mini', system, messages, tools }).withResponse()
      assert.equal(response.headers.get('x-gw-token-count'), 'estimate')
      // About 4 characters per token over each part's JSON.
      const expected = [system, messages, tools].reduce((n, part) => n + Math.ceil(JSON.stringify(part).length / 4), 0)
      assert.deepEqual(data, { input_tokens: expected })
      assert.equal(anthropic.received.length + openai.received.length, calls)
      const record = await waitForRecord(gateway.gateway, response.headers.get('request-id'))
      assert.equal(record.endpoint, 'messages.count_tokens')
      assert.equal(record.provider, 'openai')
      assert.equal(record.cost!.final_usd, 0)
      assert.equal(record.cost!.priced, true)
    })

    it("is free: it uses none of the key's request rate and needs no balance, but the key's model rules apply", async () => {
      const gw = gateway.gateway
      const limited = sdk((await gw.store.keys.create('one-a-minute', { policy: { rpm: 1, allowed_models: ['anthropic/*'] }, balanceUsd: 0 })).secret)
      await gw.configChanged()
      for (let i = 0; i < 3; i++) assert.equal(typeof (await limited.messages.countTokens({ model: MODEL, messages })).input_tokens, 'number')
      const refused: any = await limited.messages.countTokens({ model: 'openai/gpt-4o-mini', messages }).catch((e) => e)
      assert.equal(refused.status, 403)
      assert.equal(refused.error.error.type, 'permission_error')
      assert.match(refused.error.error.message, /allowed_models/)
      // The one request of the minute is still there for a message; that key has no balance for it.
      const message: any = await limited.messages.create({ model: MODEL, max_tokens: 10, messages }).catch((e) => e)
      assert.equal(message.status, 402, 'refused for its balance, not its rate')
    })

    it("errors in Anthropic's shape: bad key (no provider call), unknown model, bad body, the provider's own refusal", async () => {
      const calls = anthropic.received.length
      const bad: any = await sdk('gw-not-a-real-key-at-all-0000000000000000000000')
        .messages.countTokens({ model: MODEL, messages })
        .catch((e) => e)
      assert.equal(bad instanceof Anthropic.AuthenticationError, true)
      assert.equal(bad.error.error.type, 'authentication_error')
      assert.equal(bad.headers.get('x-should-retry'), 'false')
      assert.ok(bad.headers.get('request-id'))
      assert.equal(anthropic.received.length, calls)

      const unknown: any = await client.messages.countTokens({ model: 'no-such-model-anywhere', messages }).catch((e) => e)
      assert.equal(unknown instanceof Anthropic.NotFoundError, true)
      assert.equal(unknown.error.error.type, 'not_found_error')

      const noMessages: any = await client.messages.countTokens({ model: MODEL } as any).catch((e) => e)
      assert.equal(noMessages.status, 400)
      assert.equal(noMessages.error.error.type, 'invalid_request_error')
      assert.match(noMessages.error.error.message, /messages/)

      anthropic.script({ kind: 'status', status: 429, headers: { 'retry-after': '3' } })
      const limited: any = await client.messages.countTokens({ model: MODEL, messages }).catch((e) => e)
      assert.equal(limited.status, 429)
      assert.equal(limited.error.error.type, 'rate_limit_error')
      assert.equal(limited.headers.get('retry-after'), '3')
      // A count the provider refused is free too: not "unpriced", since nothing is billed for it.
      const refused = await waitForRecord(gateway.gateway, limited.headers.get('request-id'))
      assert.equal(refused.status, 429)
      assert.equal(refused.cost!.final_usd, 0)
      assert.equal(refused.cost!.priced, true)
    })
  })

  it('request-id and x-request-id, the same id, on every Messages-wire answer: JSON, stream, count, errors of the route and of the framework', async () => {
    const post = (path: string, body: string) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body,
      })
    const answers = [
      await post('/v1/messages', JSON.stringify({ model: MODEL, max_tokens: 10, messages })),
      await post('/v1/messages?beta=true', JSON.stringify({ model: MODEL, max_tokens: 10, messages, stream: true })),
      await post('/v1/messages/count_tokens', JSON.stringify({ model: MODEL, messages })),
      await post('/v1/messages', JSON.stringify({ model: 'no-such-model-anywhere', max_tokens: 10, messages })),
      await post('/v1/messages', '{"model":'),
      await post('/v1/messages/%E0%A4%A', '{}'),
      await fetch(`${gateway.url}/v1/messages`),
    ]
    // A wrong method is Anthropic's invalid_request_error, 400, as its other 4xx are.
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200, 404, 400, 400, 400],
    )
    for (const res of answers) {
      const text = await res.text()
      assert.match(res.headers.get('request-id') ?? '', /^req_/, text)
      assert.equal(res.headers.get('x-request-id'), res.headers.get('request-id'))
      if (res.status >= 400) assert.equal(JSON.parse(text).type, 'error', text)
    }
    assert.match(answers[1].headers.get('content-type')!, /^text\/event-stream/)
  })

  describe('GET /v1/models in Anthropic’s shape (a request with anthropic-version)', () => {
    it('lists the models the gateway can serve, by their gateway ids, paged as the SDK pages', async () => {
      const all: Anthropic.ModelInfo[] = []
      for await (const model of client.models.list({ limit: 2 })) all.push(model)
      const ids = all.map((m) => m.id)
      assert.ok(ids.includes(MODEL), ids.join(', '))
      assert.ok(ids.includes('openai/gpt-4o-mini'), ids.join(', '))
      assert.ok(!ids.some((id) => id.startsWith('gemini/')), 'a provider without a key serves nothing')
      assert.equal(new Set(ids).size, ids.length, 'no model twice across pages')
      for (const m of all) {
        assert.equal(m.type, 'model')
        assert.equal(typeof m.display_name, 'string')
        assert.equal(new Date(m.created_at).toISOString(), m.created_at)
      }
      const sorted = [...all].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))
      assert.deepEqual(
        ids,
        sorted.map((m) => m.id),
        'newest first',
      )

      const whole = await client.models.list({ limit: 1000 })
      assert.deepEqual(
        whole.data.map((m) => m.id),
        ids,
      )
      assert.equal(whole.has_more, false)
      const page = await client.models.list({ limit: 2, after_id: ids[0] })
      assert.deepEqual(
        page.data.map((m) => m.id),
        ids.slice(1, 3),
      )
      assert.equal(page.first_id, ids[1])
      assert.equal(page.last_id, ids[2])
      assert.equal(page.has_more, ids.length > 3)
      const back = await client.models.list({ limit: 5, before_id: ids[3] })
      assert.deepEqual(
        back.data.map((m) => m.id),
        ids.slice(0, 3),
      )
      assert.equal(back.has_more, false)

      const badLimit: any = await client.models.list({ limit: 0 }).catch((e) => e)
      assert.equal(badLimit.status, 400)
      assert.equal(badLimit.error.error.type, 'invalid_request_error')
      assert.match(badLimit.error.error.message, /limit/)
    })

    it('retrieves one model by its gateway id, and an alias as the model it names; usable as model on /v1/messages', async () => {
      const model = await client.models.retrieve(MODEL)
      assert.deepEqual(Object.keys(model).sort(), ['created_at', 'display_name', 'id', 'type'])
      assert.equal(model.id, MODEL)
      assert.equal(model.type, 'model')
      await gateway.gateway.store.aliases.set('claude-latest', MODEL, null)
      await gateway.gateway.configChanged()
      assert.equal((await client.models.retrieve('claude-latest')).id, MODEL)
      const answer = await client.messages.create({ model: model.id, max_tokens: 10, messages })
      assert.equal(answer.type, 'message')
      // The key as a bearer token (ANTHROPIC_AUTH_TOKEN) works here too.
      const bearer = new Anthropic({ baseURL: gateway.url, authToken: secret, apiKey: null, maxRetries: 0 })
      assert.equal((await bearer.models.retrieve(MODEL)).id, MODEL)
    })

    it("errors in Anthropic's shape: a bad key (401, x-should-retry false), an unknown model (404 not_found_error)", async () => {
      const bad: any = await sdk('gw-not-a-real-key-at-all-0000000000000000000000')
        .models.list()
        .catch((e) => e)
      assert.equal(bad instanceof Anthropic.AuthenticationError, true)
      assert.equal(bad.error.type, 'error')
      assert.equal(bad.error.error.type, 'authentication_error')
      assert.equal(bad.headers.get('x-should-retry'), 'false')
      assert.ok(bad.headers.get('request-id'))
      const missing: any = await sdk('gw-not-a-real-key-at-all-0000000000000000000000')
        .models.retrieve(MODEL)
        .catch((e) => e)
      assert.equal(missing.error.error.type, 'authentication_error')

      const unknown: any = await client.models.retrieve('nobody/no-such-model').catch((e) => e)
      assert.equal(unknown instanceof Anthropic.NotFoundError, true)
      assert.equal(unknown.error.error.type, 'not_found_error')
      assert.match(unknown.error.error.message, /nobody\/no-such-model/)
      assert.ok(unknown.headers.get('request-id'))
    })

    it("without anthropic-version the list stays OpenAI's, Bearer only", async () => {
      const res = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })
      const body: any = await res.json()
      assert.equal(body.object, 'list')
      assert.ok(body.data.some((m: any) => m.id === MODEL && m.gw))
      assert.equal(res.headers.get('request-id'), null)
      const refused = await fetch(`${gateway.url}/v1/models`, { headers: { 'x-api-key': secret } })
      assert.equal(refused.status, 401)
      assert.equal(((await refused.json()) as any).error.code, 'invalid_api_key')
    })
  })
})
