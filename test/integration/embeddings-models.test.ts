import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startTestGateway, type TestGateway, json } from '../support/harness'
import { fakeEmbedding } from '../support/fake-openai'

const close = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) < 1e-6)

describe('POST /v1/embeddings', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it("decodes correctly with the SDK's default base64 encoding", async () => {
    const res: any = await t.client.embeddings.create({ model: 'text-embedding-3-small', input: ['hello world', 'bye'] })
    assert.equal(t.fake.received.at(-1)!.body.encoding_format, 'base64')
    assert.equal(res.data.length, 2)
    assert.ok(close(res.data[0].embedding, fakeEmbedding('hello world', 8)))
    assert.ok(close(res.data[1].embedding, fakeEmbedding('bye', 8)))
    assert.equal(res.gw.routing.provider, 'openai')
  })

  it('returns floats when asked, passes dimensions through, and prices tokens exactly', async () => {
    const res: any = await t.client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'one two three',
      encoding_format: 'float',
      dimensions: 4,
    })
    assert.equal(t.fake.received.at(-1)!.body.dimensions, 4)
    assert.deepEqual(res.data[0].embedding.length, 4)
    assert.ok(close(res.data[0].embedding, fakeEmbedding('one two three', 4)))
    const tokens = res.usage.prompt_tokens
    assert.ok(tokens > 0)
    // text-embedding-3-small: $0.02 per 1M tokens.
    assert.equal(res.gw.cost.final_usd, (tokens * 20_000) / 1e12)
    assert.equal(res.gw.cost.output_usd, 0)
  })

  it('accepts token arrays, and re-encodes when the provider answers in the other encoding', async () => {
    const res: any = await t.client.embeddings.create({
      model: 'text-embedding-3-small',
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      encoding_format: 'float',
    })
    assert.ok(close(res.data[0].embedding, fakeEmbedding([1, 2, 3], 8)))
    assert.ok(close(res.data[1].embedding, fakeEmbedding([4, 5], 8)))
  })

  it('rejects bad input naming the field', async () => {
    for (const [body, param] of [
      [{ model: 'text-embedding-3-small' }, 'input'],
      [{ model: 'text-embedding-3-small', input: '' }, 'input'],
      [{ model: 'text-embedding-3-small', input: ['ok', 3] }, 'input[1]'],
      [{ model: 'text-embedding-3-small', input: 'x', encoding_format: 'hex' }, 'encoding_format'],
      [{ input: 'x' }, 'model'],
    ] as const) {
      const res = await fetch(`${t.baseURL}/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      assert.equal(res.status, 400)
      assert.equal((await json(res)).error.param, param)
    }
  })
})

describe('GET /v1/models', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('lists catalog models with prices, limits, provider and availability with a reason', async () => {
    const page = await t.client.models.list()
    const models = page.data as any[]
    const mini = models.find((m) => m.id === 'openai/gpt-4o-mini')
    assert.ok(mini, 'openai/gpt-4o-mini is listed')
    assert.equal(mini.object, 'model')
    assert.equal(mini.owned_by, 'openai')
    assert.equal(mini.gw.pricing.input, 0.15)
    assert.equal(mini.gw.pricing.cached_input, 0.075)
    assert.equal(mini.gw.pricing.output, 0.6)
    assert.ok(mini.gw.context_length > 0)
    assert.deepEqual(mini.gw.availability, { available: true, reason: null })
    const claude = models.find((m) => m.gw.provider === 'anthropic')
    assert.equal(claude.gw.availability.available, false)
    assert.match(claude.gw.availability.reason, /ANTHROPIC_API_KEY/)
    const embedding = models.find((m) => m.id === 'openai/text-embedding-3-small')
    assert.equal(embedding.gw.kind, 'embedding')
  })

  it('retrieves one model by canonical or bare id, 404 model_not_found otherwise', async () => {
    const one: any = await t.client.models.retrieve('openai/gpt-4o-mini')
    assert.equal(one.id, 'openai/gpt-4o-mini')
    const bare: any = await t.client.models.retrieve('gpt-4o-mini')
    assert.equal(bare.id, 'openai/gpt-4o-mini')
    await assert.rejects(t.client.models.retrieve('nope-model'), (e: any) => e.status === 404 && e.code === 'model_not_found')
  })

  it('reflects a price override set while the gateway runs', async () => {
    await t.running.gateway.store.prices.set({
      model: 'openai/gpt-brand-new',
      row: { input: 1, output: 2, context_length: 1000 },
      as_of: '2026-11-23',
      note: null,
    })
    const res: any = await t.client.chat.completions.create({ model: 'openai/gpt-brand-new', messages: [{ role: 'user', content: 'x' }] })
    // default fake usage: 12 prompt × $1 + 5 completion × $2 per 1M
    assert.equal(res.gw.cost.final_usd, 0.000022)
    assert.equal(res.gw.cost.price_source, 'override 2026-11-23')
  })
})
