import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import { gwCli, json, startTestGateway, type TestGateway } from '../support/harness'

describe('presets', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
    await gwCli(['presets', 'set', 'terse', '--model', 'gpt-4o-mini', '--system', 'You are terse.', '--temperature', '0.2', '--max-tokens', '50'], {
      dataDir: t.dataDir,
    })
  })
  after(() => t.close())

  it('policy/<name>: preset model always, its system prompt first, its parameters win, unset ones pass through', async () => {
    const res: any = await t.client.chat.completions.create({
      model: 'policy/terse',
      messages: [
        { role: 'system', content: 'caller system' },
        { role: 'user', content: 'hi' },
      ],
      temperature: 0.9,
      top_p: 0.5,
      max_tokens: 500,
      presence_penalty: 0.1,
    })
    const upstream = t.fake.received.at(-1)!.body
    assert.deepEqual(upstream, {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'system', content: 'caller system' },
        { role: 'user', content: 'hi' },
      ],
      temperature: 0.2,
      top_p: 0.5,
      max_tokens: 50,
      presence_penalty: 0.1,
    })
    assert.deepEqual(res.gw.routing.preset, { name: 'terse', version: 1 })
    assert.equal(res.gw.routing.requested_model, 'policy/terse')
    const record = await t.record(res.gw.request_id)
    assert.equal(record.preset, 'terse')
    assert.equal(record.preset_version, 1)
    assert.equal(record.model, 'policy/terse')
  })

  it('@preset/<name> resolves too, and a preset max_tokens replaces the field the caller used', async () => {
    await t.client.chat.completions.create({ model: '@preset/terse', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 999 })
    const upstream = t.fake.received.at(-1)!.body
    assert.equal(upstream.model, 'gpt-4o-mini')
    assert.equal(upstream.max_completion_tokens, 50)
    assert.equal('max_tokens' in upstream, false)
  })

  it('a change saved from another process applies to the next request, as a new version', async () => {
    await gwCli(['presets', 'set', 'terse', '--model', 'gpt-4o', '--temperature', '1.5'], { dataDir: t.dataDir })
    const res: any = await t.client.chat.completions.create({ model: 'policy/terse', messages: [{ role: 'user', content: 'hi' }], max_tokens: 7 })
    const upstream = t.fake.received.at(-1)!.body
    assert.equal(upstream.model, 'gpt-4o')
    assert.equal(upstream.temperature, 1.5)
    assert.equal(upstream.max_tokens, 7, 'the new version sets no max_tokens, so the caller’s passes through')
    assert.equal(upstream.messages.length, 1, 'the new version has no system prompt')
    assert.deepEqual(res.gw.routing.preset, { name: 'terse', version: 2 })
    const { stdout } = await gwCli(['presets', 'show', 'terse', '--json'], { dataDir: t.dataDir })
    assert.deepEqual(
      JSON.parse(stdout).versions.map((v: any) => v.version),
      [2, 1],
    )
  })

  it("a key's default preset steers every request of that key, whatever model it sends", async () => {
    await gwCli(['presets', 'set', 'cheap', '--model', 'gpt-4o-mini', '--system', 'Be cheap.'], { dataDir: t.dataDir })
    const { stdout } = await gwCli(['keys', 'create', '--name', 'steered', '--default-preset', 'cheap'], { dataDir: t.dataDir })
    const client = new OpenAI({ baseURL: t.baseURL, apiKey: stdout.trim(), maxRetries: 0 })
    const res: any = await client.chat.completions.create({ model: 'gpt-5.5', messages: [{ role: 'user', content: 'hi' }] })
    const upstream = t.fake.received.at(-1)!.body
    assert.equal(upstream.model, 'gpt-4o-mini')
    assert.equal(upstream.messages[0].content, 'Be cheap.')
    assert.equal(res.gw.routing.preset.name, 'cheap')
    assert.equal(res.gw.routing.requested_model, 'gpt-5.5')
  })

  it('an unknown preset is a 404 naming it, with nothing sent upstream', async () => {
    const before = t.fake.received.length
    const err: any = await t.client.chat.completions.create({ model: 'policy/ghost', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)
    assert.equal(err.status, 404)
    assert.equal(err.code, 'model_not_found')
    assert.match(err.message, /ghost/)
    assert.equal(t.fake.received.length, before)
  })

  it('refuses to delete a preset that is a key’s default, naming the keys', async () => {
    await assert.rejects(gwCli(['presets', 'delete', 'cheap'], { dataDir: t.dataDir }), (e: any) => /steered/.test(e.stderr))
    await gwCli(['presets', 'delete', 'terse'], { dataDir: t.dataDir })
    const err: any = await t.client.chat.completions.create({ model: 'policy/terse', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)
    assert.equal(err.status, 404)
  })

  it('validates presets with messages naming the field', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['presets', 'set', 'Bad Name', '--model', 'gpt-4o-mini'], /name: must be a slug/],
      [['presets', 'set', 'p', '--model', 'gpt-4o-mini', '--temperature', '2.5'], /temperature: must be between 0 and 2/],
      [['presets', 'set', 'p', '--model', 'gpt-4o-mini', '--top-p', '1.5'], /top_p: must be between 0 and 1/],
      [['presets', 'set', 'p', '--model', 'gpt-4o-mini', '--max-tokens', '0'], /max_tokens: must be a positive integer/],
      [['presets', 'set', 'p', '--model', 'gpt-4o-mini', '--max-tokens', '20000'], /max_tokens: 20000 is above gpt-4o-mini's output limit of 16384/],
      [['presets', 'set', 'p', '--model', 'no-such-model'], /model: unknown model "no-such-model"/],
      [['presets', 'set', 'p', '--model', 'gpt-4o-mini', '--fallbacks', 'gpt-4o,nope'], /fallbacks.1: unknown model "nope"/],
      [['presets', 'set', 'p', '--model', 'policy/cheap'], /cannot point at another preset/],
    ]
    for (const [args, message] of cases) {
      await assert.rejects(gwCli(args, { dataDir: t.dataDir }), (e: any) => message.test(e.stderr), message.source)
    }
    const ok = await gwCli(['presets', 'set', 'p', '--model', 'openai/brand-new-model', '--fallbacks', 'gpt-4o', '--json'], { dataDir: t.dataDir })
    assert.deepEqual(JSON.parse(ok.stdout).fallbacks, ['gpt-4o'])
  })

  it('embeddings take no preset', async () => {
    const res = await fetch(`${t.baseURL}/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'policy/cheap', input: 'x' }),
    })
    assert.equal(res.status, 400)
    assert.equal((await json(res)).error.param, 'model')
  })
})
