import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { startGateway } from '../../src/gateway/server'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { gwCli, startTestGateway, tempDir, testStoreFor, waitForRecord, type TestGateway } from '../support/harness'

const ask = (client: OpenAI, model: string): Promise<any> => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })

describe('model aliases', () => {
  let t: TestGateway
  const cli = (...args: string[]) => gwCli(args, { dataDir: t.dataDir })
  before(async () => {
    t = await startTestGateway()
    await cli('aliases', 'set', 'claude-haiku-*', '--to', 'openai/gpt-4o-mini')
    await cli('aliases', 'set', 'claude-sonnet-*', '--to', 'openai/gpt-4o')
  })
  after(() => t.close())

  it("sends Claude Code's small and big models to different places, and the record shows why", async () => {
    const small = await ask(t.client, 'claude-haiku-4-5-20251001')
    assert.equal(t.fake.received.at(-1)!.body.model, 'gpt-4o-mini')
    const big = await ask(t.client, 'claude-sonnet-4-5')
    assert.equal(t.fake.received.at(-1)!.body.model, 'gpt-4o')
    assert.deepEqual(big.gw.routing.alias, { pattern: 'claude-sonnet-*', target: 'openai/gpt-4o' })
    assert.equal(big.gw.routing.requested_model, 'claude-sonnet-4-5')
    const record = await t.record(small.gw.request_id)
    assert.equal(record.model, 'claude-haiku-4-5-20251001', 'the record keeps the model as requested')
    assert.deepEqual(record.alias, { pattern: 'claude-haiku-*', target: 'openai/gpt-4o-mini' })
    assert.equal(record.provider, 'openai')
    assert.equal(record.upstream_model, 'gpt-4o-mini')
  })

  it('an exact pattern beats a glob, and a longer literal prefix beats a shorter one', async () => {
    await cli('aliases', 'set', 'claude-*', '--to', 'openai/gpt-4.1')
    await cli('aliases', 'set', 'claude-haiku-4-5', '--to', 'openai/gpt-4o')
    await ask(t.client, 'claude-haiku-4-5')
    assert.equal(t.fake.received.at(-1)!.body.model, 'gpt-4o', 'exact')
    await ask(t.client, 'claude-haiku-3')
    assert.equal(t.fake.received.at(-1)!.body.model, 'gpt-4o-mini', 'claude-haiku-* is more specific than claude-*')
    await ask(t.client, 'claude-opus-4')
    assert.equal(t.fake.received.at(-1)!.body.model, 'gpt-4.1')
    await cli('aliases', 'remove', 'claude-haiku-4-5')
    await cli('aliases', 'remove', 'claude-*')
  })

  it('an alias to a preset runs the preset; a target is never aliased again', async () => {
    await cli('presets', 'set', 'terse', '--model', 'gpt-4o-mini', '--system', 'You are terse.')
    await cli('aliases', 'set', 'small-*', '--to', 'policy/terse')
    const res = await ask(t.client, 'small-model')
    const upstream = t.fake.received.at(-1)!.body
    assert.equal(upstream.model, 'gpt-4o-mini')
    assert.equal(upstream.messages[0].content, 'You are terse.')
    assert.deepEqual(res.gw.routing.preset, { name: 'terse', version: 1 })
    assert.deepEqual(res.gw.routing.alias, { pattern: 'small-*', target: 'policy/terse' })
    await assert.rejects(cli('presets', 'delete', 'terse'), (err: any) =>
      /preset terse is the target of alias small-\*; change those aliases first/.test(err.stderr),
    )
    // gpt-4o-mini would match this alias, but as a target it is used as is.
    await cli('aliases', 'set', 'gpt-4o-m*', '--to', 'openai/gpt-4.1')
    await ask(t.client, 'claude-haiku-9')
    assert.equal(t.fake.received.at(-1)!.body.model, 'gpt-4o-mini')
    await cli('aliases', 'remove', 'gpt-4o-m*')
  })

  it('GET /v1/models/{id} shows an alias as the model it steers to: its target, or the model of the preset it targets', async () => {
    const direct: any = await t.client.models.retrieve('claude-sonnet-9')
    assert.equal(direct.id, 'openai/gpt-4o')
    const throughPreset: any = await t.client.models.retrieve('small-model')
    assert.equal(throughPreset.gw.upstream_model, 'gpt-4o-mini', 'policy/terse runs gpt-4o-mini')
    await assert.rejects(t.client.models.retrieve('no-alias-matches-this'), (e: any) => e.status === 404 && e.code === 'model_not_found')
  })

  it("a key's default preset comes before aliases; a preset named in the request too", async () => {
    await cli('presets', 'set', 'big', '--model', 'gpt-4.1')
    const { stdout } = await cli('keys', 'create', '--name', 'steered', '--default-preset', 'big')
    const steered = new OpenAI({ baseURL: t.baseURL, apiKey: stdout.trim(), maxRetries: 0 })
    const res = await ask(steered, 'claude-haiku-4-5')
    assert.equal(t.fake.received.at(-1)!.body.model, 'gpt-4.1')
    assert.equal(res.gw.routing.alias, null)
    await ask(t.client, 'policy/big')
    assert.equal(t.fake.received.at(-1)!.body.model, 'gpt-4.1')
  })

  it('refuses an unknown target or a bad pattern on save, naming the field, and saves nothing', async () => {
    const before = JSON.parse((await cli('aliases', 'list', '--json')).stdout)
    for (const [args, message] of [
      [['x-*', '--to', 'nowhere/model-x'], /to: unknown model "nowhere\/model-x"/],
      [['x-*', '--to', 'policy/missing'], /to: no preset named "missing"/],
      [['x-*', '--to', 'openai/*'], /to: a target is one model or preset/],
      [['bad pattern', '--to', 'openai/gpt-4o'], /pattern: may hold only/],
      [['*-*-*-*', '--to', 'openai/gpt-4o'], /pattern: at most 3 \* wildcards/],
    ] as const) {
      await assert.rejects(cli('aliases', 'set', ...args), (err: any) => {
        assert.match(err.stderr, message)
        assert.equal(err.code, 1)
        return true
      })
    }
    assert.deepEqual(JSON.parse((await cli('aliases', 'list', '--json')).stdout), before)
    await assert.rejects(cli('aliases', 'remove', 'never-set'), (err: any) => /alias never-set was not found/.test(err.stderr))
  })

  it('lists aliases as a table and over the management API', async () => {
    const { stdout } = await cli('aliases', 'list')
    assert.match(stdout, /PATTERN\s+TARGET/)
    assert.match(stdout, /claude-haiku-\*\s+openai\/gpt-4o-mini/)
    const { stdout: api } = await cli('api', 'aliases.list')
    assert.deepEqual(
      JSON.parse(api).map((a: any) => [a.pattern, a.target]),
      [
        ['claude-haiku-*', 'openai/gpt-4o-mini'],
        ['claude-sonnet-*', 'openai/gpt-4o'],
        ['small-*', 'policy/terse'],
      ],
    )
  })
})

describe('model aliases on the Messages wire', () => {
  it("steers Claude Code's haiku requests through /v1/messages, and the record keeps what it asked for", async () => {
    const fake = await startFakeAnthropic()
    const dataDir = tempDir()
    const gateway = await startGateway(
      { port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
      { env: { ANTHROPIC_API_KEY: fake.apiKey, OPENAI_API_KEY: 'sk-unused' }, routing: { maxRetries: 0 } },
    )
    try {
      const gw = gateway.gateway
      await gw.store.providers.upsert('anthropic', 'anthropic', fake.url)
      const secret = (await gw.store.keys.create('claude-code')).secret
      await gw.configChanged()
      await gwCli(['aliases', 'set', 'claude-haiku-*', '--to', 'anthropic/claude-sonnet-4-5'], { dataDir })
      const client = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
      const { response } = await client.messages
        .create({ model: 'claude-haiku-4-5-20251001', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse()
      assert.equal(fake.received.at(-1)!.body.model, 'claude-sonnet-4-5')
      const record = await waitForRecord(gw, response.headers.get('request-id')!)
      assert.equal(record.endpoint, 'messages')
      assert.equal(record.model, 'claude-haiku-4-5-20251001')
      assert.deepEqual(record.alias, { pattern: 'claude-haiku-*', target: 'anthropic/claude-sonnet-4-5' })
      assert.equal(record.upstream_model, 'claude-sonnet-4-5')
    } finally {
      await gateway.close()
      await fake.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
