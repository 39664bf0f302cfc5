import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import Database from 'better-sqlite3'
import OpenAI from 'openai'
import { gwCli, json, startTestGateway, TEST_STORE, type TestGateway } from '../support/harness'
import type { KeySettings } from '../../src/gateway/store/keysRepo'
import { DB_FILE } from '../../src/gateway/store/db'
import type { RecordWriter } from '../../src/gateway/store/recordWriter'
import { waitUntil } from '../support/waitUntil'

/** The fake's default usage (12 prompt, 5 completion tokens) on gpt-4o-mini: 12 × $0.15 + 5 × $0.60 per 1M. */
const C = 0.0000048
const hi = [{ role: 'user' as const, content: 'n' }]

describe('balances', () => {
  let t: TestGateway
  const keyWith = async (name: string, settings: KeySettings & { balanceUsd?: number }) => {
    const { secret, info } = await t.running.gateway.store.keys.create(name, settings)
    return { id: info.id, client: new OpenAI({ baseURL: t.baseURL, apiKey: secret, maxRetries: 0 }) }
  }
  const balanceOf = async (id: string) => JSON.parse((await gwCli(['balance', 'show', id, '--json'], { dataDir: t.dataDir })).stdout)
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('402 insufficient_balance, not retryable, with nothing sent upstream, when the balance is spent', async () => {
    const { client } = await keyWith('empty', { balanceUsd: 0 })
    const before = t.fake.received.length
    const { response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hi })
      .withResponse()
      .catch((e) => ({ response: e }))
    const err: any = response
    assert.equal(err.status, 402)
    assert.equal(err.code, 'insufficient_balance')
    assert.match(err.message, /Key "empty" has no prepaid balance left/)
    assert.equal(err.headers.get('x-should-retry'), 'false')
    assert.equal(t.fake.received.length, before)
  })

  it('debits the exact cost of each request; the balance is the sum of the ledger', async () => {
    const { id, client } = await keyWith('ledgered', { balanceUsd: 1 })
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push(((await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })) as any).gw.request_id)
    await t.records(ids.length)
    const b = await balanceOf(id)
    assert.equal(b.balance_usd, 1 - 3 * C)
    assert.equal(b.balance_usd, 0.9999856)
    const usage = b.entries.filter((e: any) => e.kind === 'usage')
    assert.deepEqual(usage.map((e: any) => e.request_id).sort(), [...ids].sort())
    for (const e of usage) assert.equal(e.amount_usd, -C)
    const sum = b.entries.reduce((s: bigint, e: any) => s + BigInt(Math.round(e.amount_usd * 1e12)), 0n)
    assert.equal(Number(sum) / 1e12, b.balance_usd)
  })

  it('parallel requests cannot overdraw by more than those already in flight', async () => {
    const { id, client } = await keyWith('burst', { balanceUsd: 3 * C })
    // Every admitted request is held upstream for a moment, so all of the burst is in flight together.
    t.fake.script(...Array.from({ length: 4 }, () => ({ kind: 'delay' as const, ms: 150 })))
    const before = t.fake.received.length
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, max_tokens: 5 })),
    )
    const ok = results.filter((r) => r.status === 'fulfilled').length
    const refused = results.filter((r) => r.status === 'rejected' && (r.reason as any).status === 402).length
    assert.equal(ok + refused, 12)
    assert.ok(ok >= 3, `the balance pays for 3 (got ${ok})`)
    assert.ok(ok <= 4, `at most one request past the balance while others were in flight (got ${ok}, not 12)`)
    assert.equal(t.fake.received.length - before, ok, 'refused requests never reached the provider')
    await t.records()
    const b = await balanceOf(id)
    assert.equal(Math.round(b.balance_usd * 1e12), Math.round((3 - ok) * C * 1e12))
    assert.ok(b.balance_usd >= -C)
    const after = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).catch((e) => e)
    assert.equal(after.status, 402)
  })

  it('a top-up from the CLI reaches the running gateway at once', async () => {
    const { id, client } = await keyWith('topped', { balanceUsd: 0 })
    assert.equal((await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).catch((e) => e)).status, 402)
    await gwCli(['balance', 'top-up', id, '0.01', '--note', 'test credit'], { dataDir: t.dataDir })
    const res: any = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    assert.equal(res.gw.cost.final_usd, C)
    const b = await balanceOf(id)
    const topUp = b.entries.find((e: any) => e.kind === 'top_up' && e.note === 'test credit')
    assert.equal(topUp.amount_usd, 0.01)
    assert.match(topUp.actor, /^cli:/)
  })

  it('a daily spend limit refuses with 402 naming the limit', async () => {
    const { id, client } = await keyWith('daily', { daily_limit_usd: 0.00001 })
    for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    const err: any = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).catch((e) => e)
    assert.equal(err.status, 402)
    assert.match(err.message, /daily spend limit of \$0.00001/)
    // The key's page shows the figure the limit counted: three priced requests, the fourth refused.
    const shown = JSON.parse((await gwCli(['api', 'keys.get', '--input', JSON.stringify({ id }), '--json'], { dataDir: t.dataDir })).stdout)
    assert.equal(Math.round(shown.spent.today_usd * 1e12), Math.round(3 * C * 1e12))
    assert.equal(Math.round(shown.spent.month_usd * 1e12), Math.round(3 * C * 1e12))
  })

  const sqliteOnly = TEST_STORE === 'postgres' && 'about SQLite’s record thread, stalled by a lock on the SQLite file; PostgreSQL has no such thread'
  it('a spend check waiting on a stalled record thread holds up only its own request: others are answered meanwhile', { skip: sqliteOnly }, async () => {
    const limited = await keyWith('limited-stalled', { daily_limit_usd: 1 })
    const busy = await keyWith('busy', {})
    await busy.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    await t.records()
    // The thread this is about: until it has started (seconds on a loaded machine), batches are
    // written on the event loop, which the lock below would then stop.
    const records = t.running.gateway.records as RecordWriter
    await records.threadStarted()
    // Another process holds the store's write lock: the record thread waits on it (busy_timeout, 5 s).
    const lock = new Database(path.join(t.dataDir, DB_FILE))
    lock.exec('BEGIN IMMEDIATE')
    let waiting: Promise<unknown> | undefined
    try {
      await busy.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
      // Its record is pushed once the answer went out, and cannot be committed while the lock is held.
      await waitUntil(() => records.unwritten(busy.id).length > 0, { what: "the busy key's record waiting to be written" })
      let answered = false
      // The key's first request of the day reads its spend once the records before it are committed.
      // How long the event loop stood still while the spend check waited: a blocking wait would
      // stop it for the record thread's whole busy timeout (5 s); an awaited one never does.
      let last = performance.now()
      let longestStall = 0
      const ticker = setInterval(() => {
        const now = performance.now()
        longestStall = Math.max(longestStall, now - last)
        last = now
      }, 10)
      waiting = limited.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).then(() => (answered = true))
      // That no answer comes is what this checks, so it takes a while: a waiting request gives no other sign.
      await new Promise((r) => setTimeout(r, 300))
      assert.equal(answered, false, 'the spend check waits for the record thread')
      const other = await busy.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
      assert.ok(other.choices[0].message.content)
      assert.equal((await fetch(`${t.url}/healthz`)).status, 200)
      await waiting
      clearInterval(ticker)
      assert.ok(longestStall < 2500, `the event loop stood still for ${Math.round(longestStall)} ms while the spend check waited`)
    } finally {
      lock.exec('COMMIT')
      lock.close()
    }
    await waiting
  })

  it('an aborted stream pays for what was generated, flagged as estimated', async () => {
    const { id, client } = await keyWith('aborter', { balanceUsd: 1 })
    t.fake.script({ kind: 'endless-stream', intervalMs: 10 })
    const ac = new AbortController()
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hi, stream: true }, { signal: ac.signal })
      .withResponse()
    let n = 0
    for await (const _ of stream) if (++n === 5) ac.abort()
    const rid = response.headers.get('x-request-id')
    const record = await t.record(rid)
    assert.equal(record.outcome, 'aborted')
    assert.equal(record.cost!.estimated, true)
    assert.ok(record.cost!.completion_tokens > 0)
    assert.ok(record.cost!.final_usd! > 0)
    const b = await balanceOf(id)
    assert.equal(b.entries.find((e: any) => e.request_id === rid).amount_usd, -record.cost!.final_usd!)
  })
})

describe('key policies', () => {
  let t: TestGateway
  const clientWith = async (name: string, settings: KeySettings) => {
    const { secret } = await t.running.gateway.store.keys.create(name, settings)
    return new OpenAI({ baseURL: t.baseURL, apiKey: secret, maxRetries: 0 })
  }
  /** A refusal and proof that nothing reached the provider. */
  const refused = async (p: Promise<unknown>, status: number, message: RegExp) => {
    const before = t.fake.received.length
    const err: any = await p.then(
      () => assert.fail('expected a refusal'),
      (e) => e,
    )
    assert.equal(err.status, status)
    assert.match(err.message, message)
    assert.equal(t.fake.received.length, before, 'nothing sent upstream')
    return err
  }
  before(async () => {
    t = await startTestGateway()
    await t.running.gateway.store.presets.save(
      { name: 'only', model: 'gpt-4o-mini', system_prompt: null, temperature: null, max_tokens: null, top_p: null, fallbacks: [], description: null },
      'test',
    )
  })
  after(() => t.close())

  it('allowed models (globs over bare and provider/model ids)', async () => {
    const c = await clientWith('models', { policy: { allowed_models: ['gpt-4o-mini', 'openai/text-*'] } })
    await c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    await c.embeddings.create({ model: 'text-embedding-3-small', input: 'x' })
    const err = await refused(c.chat.completions.create({ model: 'gpt-4o', messages: hi }), 403, /may not use model openai\/gpt-4o \[rule: allowed_models/)
    assert.equal(err.code, 'policy_violation')
  })

  it('allowed providers', async () => {
    const c = await clientWith('providers', { policy: { allowed_providers: ['groq', 'ollama'] } })
    await refused(c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }), 403, /may not use provider openai \[rule: allowed_providers/)
  })

  it('preset-only keys', async () => {
    const c = await clientWith('presets-only', { policy: { preset_only: true } })
    await refused(c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }), 403, /may only use presets.*\[rule: preset_only\]/)
    await refused(c.embeddings.create({ model: 'text-embedding-3-small', input: 'x' }), 403, /preset_only/)
    const res: any = await c.chat.completions.create({ model: 'policy/only', messages: hi })
    assert.equal(res.gw.routing.preset.name, 'only')
  })

  it('a max_tokens ceiling refuses more and fills in the ceiling when none was asked', async () => {
    const c = await clientWith('ceiling', { policy: { max_tokens: 100 } })
    const err = await refused(
      c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, max_tokens: 500 }),
      403,
      /at most 100 output tokens.*\[rule: max_tokens\]/,
    )
    assert.equal(err.param, 'max_tokens')
    await refused(c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, max_completion_tokens: 101 }), 403, /rule: max_tokens/)
    await c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    assert.equal(t.fake.received.at(-1)!.body.max_tokens, 100)
  })

  it('a per-request cost ceiling from the worst case at list price', async () => {
    const c = await clientWith('cost-cap', { policy: { max_cost_per_request_usd: 0.0001 } })
    // 5,000 output tokens × $0.60 per 1M = $0.003 worst case
    await refused(
      c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, max_tokens: 5000 }),
      403,
      /at most \$0.0001 per request.*\[rule: max_cost_per_request_usd\]/,
    )
    await refused(c.chat.completions.create({ model: 'openai/unpriced-model', messages: hi, max_tokens: 5 }), 403, /no known price/)
    await c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, max_tokens: 5 })
  })

  it('requests per minute: 429 with retry-after, nothing sent upstream', async () => {
    const c = await clientWith('rpm', { policy: { rpm: 2 } })
    await c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    await c.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    const res = await fetch(`${t.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: hi }),
    })
    assert.equal(res.status, 429)
    const retryAfter = Number(res.headers.get('retry-after'))
    // Gateways sharing a PostgreSQL database count the minute in whole seconds: up to one more.
    assert.ok(retryAfter >= 1 && retryAfter <= 61, `retry-after ${retryAfter}`)
    const body = await json(res)
    assert.equal(body.error.code, 'rate_limit_exceeded')
    assert.match(body.error.message, /\[rule: rpm\]/)
  })

  it('a prepaid key cannot spend on a model without a price', async () => {
    const c = await clientWith('prepaid-unpriced', {})
    await t.running.gateway.store.ledger.credit(
      (await t.running.gateway.store.keys.all()).find((k) => k.name === 'prepaid-unpriced')!.id,
      1_000_000_000_000n,
      'top_up',
      'test',
      null,
    )
    await refused(
      c.chat.completions.create({ model: 'openai/unpriced-model', messages: hi }),
      403,
      /prepaid balance, and openai\/unpriced-model has no known price/,
    )
  })

  it('policies set from the CLI apply to the running gateway', async () => {
    const { stdout } = await gwCli(['keys', 'create', '--name', 'cli-policy', '--allow-models', 'gpt-4o-mini', '--rpm', '100', '--json'], {
      dataDir: t.dataDir,
    })
    const created = JSON.parse(stdout)
    assert.deepEqual(created.policy, { allowed_models: ['gpt-4o-mini'], rpm: 100 })
    const c = new OpenAI({ baseURL: t.baseURL, apiKey: created.secret, maxRetries: 0 })
    await refused(c.chat.completions.create({ model: 'gpt-4o', messages: hi }), 403, /allowed_models/)
    await gwCli(['keys', 'update', created.id, '--allow-models', 'none'], { dataDir: t.dataDir })
    await c.chat.completions.create({ model: 'gpt-4o', messages: hi })
    await assert.rejects(gwCli(['keys', 'update', created.id, '--rpm', '0'], { dataDir: t.dataDir }), (e: any) =>
      /--rpm must be a positive integer/.test(e.stderr),
    )
  })
})
