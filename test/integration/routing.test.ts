import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import OpenAI from 'openai'
import { gwCli, startTestGateway, type TestGateway } from '../support/harness'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import type { PresetFields } from '../../src/gateway/store/presetsRepo'
import { waitUntil } from '../support/waitUntil'

const hi = [{ role: 'user' as const, content: 'hi' }]
const preset = (name: string, model: string, fallbacks: string[]): PresetFields => ({
  name,
  model,
  fallbacks,
  system_prompt: null,
  temperature: null,
  max_tokens: null,
  top_p: null,
  description: null,
})

describe('routing: retries, fallbacks, cool-down', () => {
  let t: TestGateway
  let backup: FakeOpenAI
  before(async () => {
    t = await startTestGateway({}, { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5, retryAfterCapMs: 1000, cooldownAfterFailures: 1_000_000 })
    backup = await startFakeOpenAI()
    const gw = t.running.gateway
    await gw.store.providers.upsert('backup', 'openai', backup.url)
    await gw.store.presets.save(preset('resilient', 'gpt-4o-mini', ['backup/gpt-4o-mini']), 'test')
  })
  after(async () => {
    await t.close()
    await backup.close()
  })
  // Each test scripts its own failures; the backup needs its key in the environment of the gateway.
  beforeEach(async () => {
    ;(t.running.gateway.options.env as NodeJS.ProcessEnv).BACKUP_API_KEY = backup.apiKey
    await t.running.gateway.configChanged()
  })

  it('retries retryable failures before the first byte, and records every attempt', async () => {
    t.fake.script({ kind: 'status', status: 503 }, { kind: 'status', status: 502 })
    const before = t.fake.received.length
    const res: any = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    assert.equal(t.fake.received.length - before, 3)
    assert.deepEqual(
      res.gw.routing.attempts.map((a: any) => [a.provider, a.status]),
      [
        ['openai', 503],
        ['openai', 502],
        ['openai', 200],
      ],
    )
    const record = await t.record(res.gw.request_id)
    assert.equal(record.attempts.length, 3)
    assert.equal(record.fallback_used, false)
  })

  it('honours retry-after up to the cap, and a longer wait goes to the fallback instead', async () => {
    t.fake.script({ kind: 'status', status: 429, headers: { 'retry-after-ms': '20' } })
    const ok: any = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    assert.deepEqual(
      ok.gw.routing.attempts.map((a: any) => a.status),
      [429, 200],
    )
    t.fake.script({ kind: 'status', status: 429, headers: { 'retry-after': '3600' } })
    const res: any = await t.client.chat.completions.create({ model: 'policy/resilient', messages: hi })
    assert.deepEqual(
      res.gw.routing.attempts.map((a: any) => [a.provider, a.status]),
      [
        ['openai', 429],
        ['backup', 200],
      ],
    )
    assert.equal(res.gw.routing.fallback_used, true)
  })

  it('a client that leaves during the wait before a retry ends it: no further attempt, recorded as 499', async () => {
    t.fake.script({ kind: 'status', status: 429, headers: { 'retry-after-ms': '600' } })
    const before = t.fake.received.length
    // The gateway counts the provider's failure against its cool-down just before it begins to wait.
    const failures = () => (t.running.gateway.cooldown as unknown as { states: Map<string, { failures: number }> }).states.get('openai')?.failures ?? 0
    const failed = failures()
    const ac = new AbortController()
    const pending = t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }, { signal: ac.signal, maxRetries: 0 })
    await waitUntil(() => failures() > failed, { what: 'the gateway waiting to retry after the 429' })
    ac.abort()
    await assert.rejects(pending)
    // Past the end of the wait: a retry would have reached the provider by now. Time is what this
    // checks (a retry the abort failed to cancel fires once the 600 ms are up), and the gateway's
    // wait runs on the real clock.
    await new Promise((r) => setTimeout(r, 800))
    assert.equal(t.fake.received.length - before, 1)
    const aborted = (await t.records()).find((r) => r.status === 499)!
    assert.equal(aborted.outcome, 'aborted')
    assert.deepEqual(
      aborted.attempts.map((a) => a.status),
      [429],
    )
  })

  it('never retries once the stream has started', async () => {
    t.fake.script({ kind: 'fail-mid-stream', afterChunks: 2, mode: 'drop' })
    const before = t.fake.received.length
    const backupBefore = backup.received.length
    const stream = await t.client.chat.completions.create({ model: 'policy/resilient', messages: hi, stream: true })
    await assert.rejects(async () => {
      for await (const _ of stream);
    })
    assert.equal(t.fake.received.length - before, 1)
    assert.equal(backup.received.length, backupBefore, 'no fallback either')
  })

  it('falls back in order after retries, billing only the attempt that served', async () => {
    t.fake.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 }, { kind: 'status', status: 500 })
    backup.script({ kind: 'reply', content: 'from backup', usage: { prompt_tokens: 100, completion_tokens: 10, cached_tokens: 0 } })
    const res: any = await t.client.chat.completions.create({ model: 'policy/resilient', messages: hi })
    assert.equal(res.choices[0].message.content, 'from backup')
    assert.equal(res.gw.routing.provider, 'backup')
    assert.equal(res.gw.routing.fallback_used, true)
    assert.deepEqual(
      res.gw.routing.attempts.map((a: any) => [a.provider, a.status]),
      [
        ['openai', 500],
        ['openai', 500],
        ['openai', 500],
        ['backup', 200],
      ],
    )
    // backup/gpt-4o-mini has no catalog price: the serving attempt decides, and says so.
    assert.equal(res.gw.cost.priced, false)
    assert.equal(res.gw.cost.prompt_tokens, 100)
    const record = await t.record(res.gw.request_id)
    assert.equal(record.provider, 'backup')
    assert.equal(record.fallback_used, true)
  })

  it("moves to the next candidate without retrying on the provider's own refusal (credential)", async () => {
    t.fake.script({ kind: 'status', status: 401 })
    const res: any = await t.client.chat.completions.create({ model: 'policy/resilient', messages: hi })
    assert.deepEqual(
      res.gw.routing.attempts.map((a: any) => [a.provider, a.status]),
      [
        ['openai', 401],
        ['backup', 200],
      ],
    )
  })

  it("stops at the caller's own mistake (400) without trying fallbacks", async () => {
    t.fake.script({ kind: 'status', status: 400 })
    const before = backup.received.length
    const err: any = await t.client.chat.completions.create({ model: 'policy/resilient', messages: hi }).catch((e) => e)
    assert.equal(err.status, 400)
    assert.equal(backup.received.length, before)
  })

  it("passes over a fallback the key's policy forbids", async () => {
    const { secret } = await t.running.gateway.store.keys.create('openai-only', { policy: { allowed_providers: ['openai'] } })
    const client = new OpenAI({ baseURL: t.baseURL, apiKey: secret, maxRetries: 0 })
    t.fake.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 }, { kind: 'status', status: 500 })
    const before = backup.received.length
    const { response, error } = await client.chat.completions
      .create({ model: 'policy/resilient', messages: hi })
      .withResponse()
      .then((r) => ({ response: r.response, error: null }))
      .catch((e) => ({ response: null, error: e }))
    assert.equal(response, null)
    assert.equal(error.status, 502)
    assert.equal(backup.received.length, before)
    const record = await t.record(error.requestID)
    assert.match(record.attempts.at(-1)!.error!, /skipped: key policy: .*allowed_providers/)
  })
})

describe('routing: cool-down and timeouts', () => {
  let t: TestGateway
  let backup: FakeOpenAI
  before(async () => {
    backup = await startFakeOpenAI()
    t = await startTestGateway({}, { maxRetries: 0, cooldownAfterFailures: 2, cooldownMs: 60_000 })
    const gw = t.running.gateway
    ;(gw.options.env as NodeJS.ProcessEnv).BACKUP_API_KEY = backup.apiKey
    await gw.store.providers.upsert('backup', 'openai', backup.url)
    await gw.store.presets.save(preset('resilient', 'gpt-4o-mini', ['backup/gpt-4o-mini']), 'test')
  })
  after(async () => {
    await t.close()
    await backup.close()
  })

  it('cools down a provider that keeps failing: it is skipped and shown unavailable', async () => {
    t.fake.script({ kind: 'status', status: 503 }, { kind: 'status', status: 503 })
    await t.client.chat.completions.create({ model: 'policy/resilient', messages: hi })
    await t.client.chat.completions.create({ model: 'policy/resilient', messages: hi })
    const before = t.fake.received.length
    const res: any = await t.client.chat.completions.create({ model: 'policy/resilient', messages: hi })
    assert.equal(t.fake.received.length, before, 'the cooled provider is not called')
    assert.match(res.gw.routing.attempts[0].error, /skipped: openai is cooling down until .* after 2 failures/)
    assert.equal(res.gw.routing.provider, 'backup')
    const direct: any = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).catch((e) => e)
    assert.equal(direct.status, 503)
    assert.ok(Number(direct.headers.get('retry-after')) > 0)
    // Nothing went to any provider: it cost exactly $0, and says why, never "unpriced".
    const skippedCost = (await t.record(direct.requestID)).cost
    assert.equal(skippedCost?.priced, true)
    assert.equal(skippedCost?.final_usd, 0)
    assert.match(skippedCost?.price_source ?? '', /nothing was sent/)
    // One that reached a provider and failed before usage stays unpriced: the provider may bill it.
    backup.script({ kind: 'status', status: 400 })
    const refused: any = await t.client.chat.completions.create({ model: 'backup/gpt-4o-mini', messages: hi }).catch((e) => e)
    assert.equal(refused.status, 400)
    const reachedCost = (await t.record(refused.requestID)).cost
    assert.equal(reachedCost?.priced ?? false, false)
    const model: any = await t.client.models.retrieve('openai/gpt-4o-mini')
    assert.equal(model.gw.availability.available, false)
    assert.match(model.gw.availability.reason, /cooling down/)
  })

  it('a provider without a key is never cooled down, however often it is asked: each answer says to give it one', async () => {
    const gw = t.running.gateway
    await gw.store.providers.upsert('keyless', 'openai', t.fake.url)
    await gw.configChanged()
    for (let i = 0; i < 3; i++) {
      const err: any = await t.client.chat.completions.create({ model: 'keyless/gpt-4o-mini', messages: hi }).catch((e) => e)
      assert.equal(err.status, 503)
      assert.equal(err.code, 'provider_not_configured')
    }
    assert.equal(gw.cooldown.cooling('keyless'), null)
  })

  it('a provider saved again from another process (its address or its key) starts afresh: its cool-down ends', async () => {
    const gw = t.running.gateway
    ;(gw.options.env as NodeJS.ProcessEnv).FLAKY_API_KEY = t.fake.apiKey
    await gw.store.providers.upsert('flaky', 'openai', t.fake.url)
    await gw.configChanged()
    t.fake.script({ kind: 'status', status: 503 }, { kind: 'status', status: 503 })
    for (let i = 0; i < 2; i++) await t.client.chat.completions.create({ model: 'flaky/gpt-4o-mini', messages: hi }).catch((e) => e)
    const cooled: any = await t.client.models.retrieve('flaky/gpt-4o-mini')
    assert.match(cooled.gw.availability.reason, /flaky is cooling down/)

    await gwCli(['providers', 'set', 'flaky', '--kind', 'openai', '--base-url', t.fake.url], { dataDir: t.dataDir })
    const fresh: any = await t.client.models.retrieve('flaky/gpt-4o-mini')
    assert.deepEqual(fresh.gw.availability, { available: true, reason: null })
    const res = await t.client.chat.completions.create({ model: 'flaky/gpt-4o-mini', messages: hi })
    assert.equal((res as any).gw.routing.provider, 'flaky')
  })

  it('applies per-provider timeouts set from the CLI (first byte)', async () => {
    await gwCli(['providers', 'set', 'backup', '--kind', 'openai', '--base-url', backup.url, '--first-byte-timeout-ms', '100'], { dataDir: t.dataDir })
    backup.script({ kind: 'delay', ms: 2000 })
    const err: any = await t.client.chat.completions.create({ model: 'backup/gpt-4o-mini', messages: hi }).catch((e) => e)
    assert.equal(err.status, 504)
    assert.equal(err.code, 'provider_timeout')
  })

  it('applies per-provider idle timeouts: a body that stops, streamed or not, ends with a timeout', async () => {
    await gwCli(['providers', 'set', 'backup', '--kind', 'openai', '--base-url', backup.url, '--idle-timeout-ms', '150'], { dataDir: t.dataDir })
    // Headers at once, then a body that never comes.
    backup.script({ kind: 'endless-stream', intervalMs: 60_000 })
    const started = performance.now()
    const err: any = await t.client.chat.completions.create({ model: 'backup/gpt-4o-mini', messages: hi }, { maxRetries: 0 }).catch((e) => e)
    assert.equal(err.status, 504)
    assert.equal(err.code, 'provider_timeout')
    assert.match(err.message, /stopped sending data/)
    assert.ok(performance.now() - started < 5_000)
    // A JSON answer whose parts come 100 ms apart is alive though it takes twice the idle limit.
    backup.script({ kind: 'trickle', pieces: 4, intervalMs: 100 })
    const slow = await t.client.chat.completions.create({ model: 'backup/gpt-4o-mini', messages: hi }, { maxRetries: 0 })
    assert.equal(slow.choices[0].message.content, 'Hello from the fake provider.')
    assert.equal((slow as any).gw.routing.provider, 'backup')
    // Chunks 100 ms apart keep the stream alive; a silence of 400 ms ends it.
    backup.script({ kind: 'endless-stream', intervalMs: 100 })
    const alive = await t.client.chat.completions.create({ model: 'backup/gpt-4o-mini', messages: hi, stream: true })
    let n = 0
    for await (const _ of alive) if (++n === 5) break
    assert.equal(n, 5)
    backup.script({ kind: 'endless-stream', intervalMs: 400 })
    const { data: stream, response } = await t.client.chat.completions
      .create({ model: 'backup/gpt-4o-mini', messages: hi, stream: true }, { maxRetries: 0 })
      .withResponse()
    const broken: any = await (async () => {
      for await (const _ of stream);
    })().catch((e) => e)
    assert.match(String(broken?.message), /stopped sending data/)
    const record = await t.record(response.headers.get('x-request-id'))
    assert.equal(record.outcome, 'error')
  })
})

describe('gw providers test', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('from a shell without the key, tests through the running gateway, whose environment holds it', async () => {
    const file = path.join(t.dataDir, 'gateway.json')
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, "the operator token is readable by the data dir's owner only")
    const ok = await gwCli(['providers', 'test', 'openai', '--json'], { dataDir: t.dataDir, env: { OPENAI_API_KEY: '' } })
    const status = JSON.parse(ok.stdout)
    assert.equal(status.ok, true)
    assert.ok(status.latency_ms >= 0)
    assert.equal(status.tested_by, `the running gateway at ${t.url}`)
    assert.equal(t.fake.received.at(-1)!.path, '/v1/models')
    const text = await gwCli(['providers', 'test', 'openai'], { dataDir: t.dataDir, env: { OPENAI_API_KEY: '' } })
    assert.match(text.stdout, new RegExp(`^openai: ok in \\d+ ms, \\d+ models listed \\(tested by the running gateway at ${t.url}\\)`))
    // The token is the only way in: a wrong one is an anonymous caller.
    const refused = await fetch(`${t.url}/api/providers.test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-operator': 'x'.repeat(43) },
      body: JSON.stringify({ id: 'openai' }),
    })
    assert.equal(refused.status, 401)
  })

  it('with no gateway running, tests from this shell: the exact error, or where each process looks for a missing key', async () => {
    await t.running.close()
    assert.equal(fs.existsSync(path.join(t.dataDir, 'gateway.json')), false, 'a stopped gateway withdraws its announcement')
    const bad = await gwCli(['providers', 'test', 'openai'], { dataDir: t.dataDir, env: { OPENAI_API_KEY: 'sk-wrong' } }).catch((e) => e)
    assert.equal(bad.code, 1)
    assert.match(bad.stdout, /openai: failed: openai answered 401: Incorrect API key provided/)
    assert.match(bad.stdout, /\(tested by this shell\)/)
    assert.equal(bad.stdout.includes('sk-wrong'), false)
    const none = await gwCli(['providers', 'test', 'openai'], {
      dataDir: t.dataDir,
      env: { OPENAI_API_KEY: '', GW_KEYCHAIN_SERVICE: `gw-empty-${process.pid}` },
    }).catch((e) => e)
    assert.equal(none.code, 1)
    assert.match(none.stdout, /openai: failed: this shell has no OPENAI_API_KEY and .* holds no key for openai, and no gateway is running on this data dir/)
  })
})
