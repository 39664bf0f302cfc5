import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import Database from 'better-sqlite3'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { KeychainSecretStore, envVarFor } from '../../src/gateway/secrets/secretStore'
import { DB_FILE } from '../../src/gateway/store/db'
import { startFakeOpenAI, type FakeOpenAI, type UsageSpec } from '../support/fake-openai'
import { startFakeAnthropic, type FakeAnthropic, type UsageSpec as AnthropicUsage } from '../support/fake-anthropic'
import { gwCli, readSse, tempDir, waitForRecord } from '../support/harness'

/**
 * Costs of the rules issue 18 added, on the chat wire, hand-computed next to each case (pico-dollars
 * per token: $1 per 1M = 1,000,000 pico), checked on the JSON response, the stream's final chunk and
 * the stored record, to 1e-9 USD. The gateway's clock is set per case: the request's time picks
 * schedules, peak hours and holidays.
 */
describe('cost matrix: reasoning conventions, calendars, history, retired slugs, whole-row overrides, repricing, service tiers, per-call fees', () => {
  let running: RunningGateway
  let dataDir: string
  let now = Date.parse('2026-11-23T12:00:00Z')
  const fakes: Record<string, FakeOpenAI> = {}
  let anthropic: FakeAnthropic
  let key = ''

  before(async () => {
    fakes.openai = await startFakeOpenAI()
    fakes.xai = await startFakeOpenAI({ quirks: { xaiUsage: true } })
    fakes.deepseek = await startFakeOpenAI({ quirks: { deepseekUsage: true } })
    // Gemini through its OpenAI-compatible endpoint, as the gateway calls it.
    fakes.gemini = await startFakeOpenAI()
    anthropic = await startFakeAnthropic({ models: ['claude-sonnet-5-5', 'claude-haiku-4-5', 'claude-opus-5-5'] })
    dataDir = tempDir()
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' },
      {
        env: { ...Object.fromEntries(Object.entries(fakes).map(([id, f]) => [envVarFor(id), f.apiKey])), ANTHROPIC_API_KEY: anthropic.apiKey },
        secrets: new KeychainSecretStore('GW Gateway test'),
        routing: { maxRetries: 0, cooldownAfterFailures: 1_000_000 },
        clock: () => now,
      },
    )
    // Gemini's fake is its OpenAI layer (at /v1, not under Google's version root): its dialect declared.
    for (const [id, f] of Object.entries(fakes))
      await running.gateway.store.providers.upsert(id, 'openai', f.url, {}, undefined, id === 'gemini' ? 'gemini' : undefined)
    await running.gateway.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    key = (await running.gateway.store.keys.create('matrix')).secret
    await running.gateway.configChanged()
  })
  after(async () => {
    await running.close()
    for (const f of Object.values(fakes)) await f.close()
    await anthropic.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  const chat = (model: string, stream: boolean, secret = key, extra: Record<string, unknown> = {}) =>
    fetch(`${running.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'x' }], stream, ...(stream && { stream_options: { include_usage: true } }), ...extra }),
    })

  /**
   * The cost of one request, JSON and streamed, at `at`: the three figures a user can see must agree
   * with `usd`. `o.body` adds to the request (a `service_tier`), `o.serviceTier` is the tier the
   * OpenAI-shaped provider reports serving.
   */
  async function expectCost(
    model: string,
    at: string,
    usage: Partial<UsageSpec> | Partial<AnthropicUsage>,
    usd: number,
    priceSource: string,
    o: { body?: Record<string, unknown>; serviceTier?: string } = {},
  ) {
    now = Date.parse(at)
    const provider = model.slice(0, model.indexOf('/'))
    if (provider === 'anthropic')
      anthropic.script({ kind: 'reply', usage: usage as Partial<AnthropicUsage> }, { kind: 'reply', usage: usage as Partial<AnthropicUsage> })
    else {
      const reply = { kind: 'reply' as const, usage: usage as Partial<UsageSpec>, serviceTier: o.serviceTier }
      fakes[provider].script(reply, reply)
    }
    const res: any = await (await chat(model, false, key, o.body)).json()
    assert.ok(res.gw, JSON.stringify(res))
    const events = await readSse(await chat(model, true, key, o.body))
    const last = events.at(-2) as any
    for (const [where, cost] of [
      ['response', res.gw.cost],
      ['final chunk', last.gw.cost],
      ['record', (await waitForRecord(running.gateway, res.gw.request_id)).cost],
      ['streamed record', (await waitForRecord(running.gateway, last.gw.request_id)).cost],
    ] as const) {
      assert.equal(cost.priced, true, `${model} at ${at} (${where}): ${cost.unpriced_reason}`)
      assert.ok(Math.abs(cost.final_usd - usd) < 1e-9, `${model} at ${at} (${where}): ${cost.final_usd} ≠ ${usd}`)
      assert.equal(cost.price_source, priceSource, `${model} at ${at} (${where})`)
    }
    const record = await waitForRecord(running.gateway, res.gw.request_id)
    assert.equal(record.created_at, new Date(at).toISOString(), 'the record carries the clock’s time')
    return record
  }

  /** The record's tier (asked for, served, region), from the JSON request and the streamed one alike. */
  const tierOf = (r: { tier?: unknown }) => r.tier

  it('bills xAI reasoning reported outside completion_tokens as output', async () => {
    // grok-4.7 $2 / $6; xAI reports completion 637 and reasoning 900 beside it (total 10,876):
    // 9,339 × 2,000,000 + (637 + 900) × 6,000,000 = 18,678,000,000 + 9,222,000,000 = 2.79e10 pico = $0.0279
    const r = await expectCost(
      'xai/grok-4.7',
      '2026-11-23T12:00:00Z',
      { prompt_tokens: 9_339, completion_tokens: 637, reasoning_tokens: 900 },
      0.0279,
      'catalog 2026-11-21',
    )
    assert.equal(r.usage?.completion_tokens, 1_537)
    assert.equal(r.usage?.reasoning_tokens, 900)
  })

  it('bills xAI reasoning as output on the Messages wire too: header, stream gw event and records', async () => {
    now = Date.parse('2026-11-23T12:00:00Z')
    const usage = { prompt_tokens: 9_339, completion_tokens: 637, reasoning_tokens: 900 }
    fakes.xai.script({ kind: 'reply', usage }, { kind: 'reply', usage })
    const messages = (stream: boolean) =>
      fetch(`${running.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'xai/grok-4.7', max_tokens: 2_000, messages: [{ role: 'user', content: 'x' }], stream }),
      })
    // The same $0.0279 as on the chat wire: 9,339 × 2,000,000 + (637 + 900) × 6,000,000 = 2.79e10 pico
    const json = await messages(false)
    const body: any = await json.json()
    assert.equal(body.usage.output_tokens, 1_537, 'Anthropic counts thinking inside output_tokens')
    assert.ok(Math.abs(Number(json.headers.get('x-gw-cost-usd')) - 0.0279) < 1e-9)
    assert.ok(Math.abs((await waitForRecord(running.gateway, json.headers.get('x-gw-request-id'))).cost!.final_usd! - 0.0279) < 1e-9)
    const streamed = await (await messages(true)).text()
    const gw = JSON.parse(/^event: gw\ndata: (.*)$/m.exec(streamed)![1]).gw
    assert.ok(Math.abs(gw.cost.final_usd - 0.0279) < 1e-9)
    assert.ok(Math.abs((await waitForRecord(running.gateway, gw.request_id)).cost!.final_usd! - 0.0279) < 1e-9)
  })

  it('keeps DeepSeek reasoning inside completion_tokens, and skips peak hours on a Chinese public holiday', async () => {
    const u = { prompt_tokens: 1_000, cached_tokens: 400, completion_tokens: 200, reasoning_tokens: 150 }
    // Thursday 2026-10-01 02:30Z is 10:30 on National Day in Beijing: off-peak $0.15 / hit $0.003 / $0.60:
    // 600 × 150,000 + 400 × 3,000 + 200 × 600,000 = 90,000,000 + 1,200,000 + 120,000,000 = 211,200,000 pico
    await expectCost('deepseek/deepseek-flash', '2026-10-01T02:30:00Z', u, 0.0002112, 'catalog 2026-11-21')
    // Thursday 2026-10-08 02:30Z, a working day: peak $0.30 / $0.006 / $1.20:
    // 600 × 300,000 + 400 × 6,000 + 200 × 1,200,000 = 180,000,000 + 2,400,000 + 240,000,000 = 422,400,000 pico
    await expectCost('deepseek/deepseek-flash', '2026-10-08T02:30:00Z', u, 0.0004224, 'catalog 2026-11-21 (peak)')
  })

  it("bills a retired xAI slug at its successor's rates, not unpriced", async () => {
    // grok-3-mini → grok-4.3 $1.25 / cached $0.20 / $2.50; output = 100 + 50 reasoning:
    // 800 × 1,250,000 + 200 × 200,000 + 150 × 2,500,000 = 1,000,000,000 + 40,000,000 + 375,000,000 = 1,415,000,000 pico
    await expectCost(
      'xai/grok-3-mini',
      '2026-11-23T12:00:00Z',
      { prompt_tokens: 1_000, cached_tokens: 200, completion_tokens: 100, reasoning_tokens: 50 },
      0.001415,
      'catalog 2026-11-21',
    )
  })

  it("prices Anthropic usage at the rate in force when it ran: Sonnet 5.5's cache reads before and after the 2026-10-07 cut", async () => {
    const u = { input_tokens: 2_000, cache_read_input_tokens: 8_000, output_tokens: 100 }
    // $2 / read $0.20 / $10: 2,000 × 2,000,000 + 8,000 × 200,000 + 100 × 10,000,000 = 4e9 + 1.6e9 + 1e9 = 6.6e9 pico
    await expectCost('anthropic/claude-sonnet-5-5', '2026-10-06T12:00:00Z', u, 0.0066, 'catalog 2026-11-21')
    // read $0.10 from 2026-10-07: 4e9 + 8,000 × 100,000 + 1e9 = 5.8e9 pico
    await expectCost('anthropic/claude-sonnet-5-5', '2026-10-07T12:00:00Z', u, 0.0058, 'catalog 2026-11-21')
  })

  it('bills 1-hour cache writes at the rate an override set from the CLI flags', async () => {
    await gwCli(
      [
        'prices',
        'set',
        'anthropic/claude-haiku-4-5',
        '--input',
        '0.8',
        '--cache-write',
        '1',
        '--cache-write-1h',
        '1.6',
        '--cached-input',
        '0.08',
        '--output',
        '4',
        '--as-of',
        '2026-11-22',
      ],
      { dataDir },
    )
    // 6,000 uncached × 800,000 + 1,000 5-minute writes × 1,000,000 + 3,000 1-hour writes × 1,600,000 + 100 × 4,000,000
    // = 4.8e9 + 1e9 + 4.8e9 + 4e8 = 1.1e10 pico (with the 1-hour rate dropped it would be 9.2e9)
    const u = { input_tokens: 6_000, cache_creation_input_tokens: 4_000, cache_creation_1h_input_tokens: 3_000, output_tokens: 100 }
    await expectCost('anthropic/claude-haiku-4-5', '2026-11-23T12:00:00Z', u, 0.011, 'override 2026-11-22')
  })

  it('applies an override’s own peak hours, holiday calendar and dated rows (the whole row is kept)', async () => {
    const set = await gwCli(['prices', 'set', 'openai/gpt-matrix', '--file', '-', '--as-of', '2026-11-20', '--note', 'contract rate'], {
      dataDir,
      input: JSON.stringify({
        input: 1,
        output: 2,
        peak: { windows_utc: [[8, 10]], weekdays_only: true, calendar: 'cn', rates: { input: 3, output: 6 } },
        schedule: [{ from: '2026-12-01', input: 0.5, output: 1 }],
      }),
    })
    assert.match(set.stdout, /saved/)
    const u = { prompt_tokens: 12, completion_tokens: 5 }
    // Monday 09:00Z, inside the window: 12 × 3,000,000 + 5 × 6,000,000 = 36,000,000 + 30,000,000 = 66,000,000 pico
    await expectCost('openai/gpt-matrix', '2026-11-23T09:00:00Z', u, 0.000066, 'override 2026-11-20 (peak)')
    // National Day, same hour: base 12 × 1,000,000 + 5 × 2,000,000 = 22,000,000 pico
    await expectCost('openai/gpt-matrix', '2026-10-01T09:00:00Z', u, 0.000022, 'override 2026-11-20')
    // From 2026-12-01 at noon (outside the window): 12 × 500,000 + 5 × 1,000,000 = 11,000,000 pico
    await expectCost('openai/gpt-matrix', '2026-12-02T12:00:00Z', u, 0.000011, 'override 2026-11-20')
  })

  it('refuses an invalid override row from the CLI, naming the field, and keeps the old one', async () => {
    await assert.rejects(
      gwCli(['prices', 'set', 'openai/gpt-matrix', '--file', '-'], {
        dataDir,
        input: JSON.stringify({ input: 1, schedule: [{ from: '2026-13-01', input: 2 }] }),
      }),
      (e: any) => /row\.schedule\.0\.from/.test(e.stderr),
    )
    const list = JSON.parse((await gwCli(['prices', 'list', '--json'], { dataDir })).stdout)
    assert.equal(list.find((o: any) => o.model === 'openai/gpt-matrix').row.peak.calendar, 'cn')
  })

  it('reprices stored requests with today’s prices while serving: history kept, unpriced become priced, prepaid keys adjusted', async () => {
    const gw = running.gateway
    const store = new Database(path.join(dataDir, DB_FILE), { readonly: true })
    try {
      now = Date.parse('2026-11-23T12:00:00Z')
      const prepaid = await gw.store.keys.create('prepaid', { balanceUsd: 1 })
      await gw.configChanged()
      // gpt-4o-mini at catalog $0.15 / $0.60: 12 × 150,000 + 5 × 600,000 = 1,800,000 + 3,000,000 = 4,800,000 pico
      const paid: any = await (await chat('gpt-4o-mini', false, prepaid.secret)).json()
      assert.equal(paid.gw.cost.final_usd, 0.0000048)
      // A model nobody priced yet: recorded unpriced.
      const unpriced: any = await (await chat('openai/gpt-late-price', false)).json()
      assert.equal(unpriced.gw.cost.priced, false)
      await waitForRecord(gw, unpriced.gw.request_id)

      await gwCli(['prices', 'set', 'openai/gpt-4o-mini', '--input', '1', '--output', '2'], { dataDir })
      await gwCli(['prices', 'set', 'openai/gpt-late-price', '--input', '0.5', '--output', '1.5'], { dataDir })

      const dry = await gwCli(['prices', 'reprice', '--since', '2026-11-23', '--dry-run', '--json'], { dataDir })
      const preview = JSON.parse(dry.stdout)
      assert.equal(preview.dry_run, true)
      assert.ok(preview.changed >= 2)
      assert.equal(store.prepare(`SELECT count(*) FROM request_costs`).pluck().get(), 0, 'a dry run writes nothing')
      const one = JSON.parse((await gwCli(['prices', 'reprice', '--since', '2026-11-23', '--model', 'gpt-4o-mini', '--dry-run', '--json'], { dataDir })).stdout)
      assert.deepEqual(
        one.sample.map((c: any) => [c.id, c.old_usd, c.new_usd]),
        [[paid.gw.request_id, 0.0000048, 0.000022]],
      )

      // Served while repricing runs in another process, in batches of 2.
      const [done] = await Promise.all([
        gwCli(['prices', 'reprice', '--since', '2026-11-23', '--batch', '2', '--json'], { dataDir }),
        chat('gpt-4o-mini', false).then((r) => r.json()),
      ])
      const result = JSON.parse(done.stdout)
      assert.equal(result.adjustments, 1)

      // gpt-4o-mini now $1 / $2: 12 × 1,000,000 + 5 × 2,000,000 = 22,000,000 pico; was 4,800,000
      const repriced = await waitForRecord(gw, paid.gw.request_id)
      assert.equal(repriced.cost?.final_usd, 0.000022)
      assert.match(repriced.cost?.price_source ?? '', /^override /)
      const history = store.prepare(`SELECT old_cost_usd, new_cost_usd, old_priced FROM request_costs WHERE request_id = ?`).all(paid.gw.request_id)
      assert.deepEqual(history, [{ old_cost_usd: 0.0000048, new_cost_usd: 0.000022, old_priced: 1 }])
      // What requests.get (and the request's page) shows of it; the unpriced one says it was unpriced.
      assert.deepEqual(
        (await gw.store.requests.costHistory(paid.gw.request_id)).map((h) => [h.old_usd, h.new_usd, h.actor.startsWith('cli:')]),
        [[0.0000048, 0.000022, true]],
      )
      assert.deepEqual(
        (await gw.store.requests.costHistory(unpriced.gw.request_id)).map((h) => [h.old_usd, h.new_usd]),
        [[null, 0.0000135]],
      )
      // The ledger: −4,800,000 usage, −17,200,000 adjustment (22,000,000 − 4,800,000), with a note.
      const ledger = store
        .prepare(`SELECT kind, amount_pico, note FROM ledger WHERE request_id = ? ORDER BY id`)
        .safeIntegers(true)
        .all(paid.gw.request_id) as Array<{ kind: string; amount_pico: bigint; note: string | null }>
      assert.deepEqual(
        ledger.map((l) => [l.kind, l.amount_pico]),
        [
          ['usage', -4_800_000n],
          ['adjustment', -17_200_000n],
        ],
      )
      assert.match(ledger[1].note!, /repriced .*\$0\.0000048 -> \$0\.000022/)
      assert.equal(await gw.store.ledger.balance(prepaid.info.id), 1_000_000_000_000n - 22_000_000n)

      // gpt-late-price $0.50 / $1.50: 12 × 500,000 + 5 × 1,500,000 = 6,000,000 + 7,500,000 = 13,500,000 pico
      const late = await waitForRecord(gw, unpriced.gw.request_id)
      assert.equal(late.cost?.priced, true)
      assert.equal(late.cost?.final_usd, 0.0000135)
      assert.equal(store.prepare(`SELECT priced FROM requests WHERE id = ?`).pluck().get(unpriced.gw.request_id), 1)

      // Again: nothing left to change, no second adjustment.
      const again = JSON.parse((await gwCli(['prices', 'reprice', '--since', '2026-11-23', '--json'], { dataDir })).stdout)
      assert.equal(again.changed, 0)
      assert.equal(again.adjustments, 0)
    } finally {
      store.close()
    }
  })
  it("the model list shows the rates in force on the gateway's clock, 1-hour cache writes included", async () => {
    const list = async () => {
      const res = await fetch(`${running.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
      return ((await res.json()) as { data: unknown }).data as Array<{ id: string; gw: { pricing: Record<string, unknown> } }>
    }
    const pricing = (models: Awaited<ReturnType<typeof list>>, id: string) => models.find((m) => m.id === id)!.gw.pricing
    try {
      // gpt-5.6-sol: $4 / $20 through 2026-11-21 (promotion), list $5 / $30 from 2026-11-22.
      now = Date.parse('2026-11-21T12:00:00Z')
      assert.deepEqual([pricing(await list(), 'openai/gpt-5.6-sol').input, pricing(await list(), 'openai/gpt-5.6-sol').output], [4, 20])
      now = Date.parse('2026-11-23T12:00:00Z')
      const today = await list()
      assert.deepEqual([pricing(today, 'openai/gpt-5.6-sol').input, pricing(today, 'openai/gpt-5.6-sol').output], [5, 30])
      // Claude's 1-hour cache write is twice its input rate: $2 × 2 = $4 per 1M on claude-sonnet-5-5.
      assert.equal(pricing(today, 'anthropic/claude-sonnet-5-5').cache_write_1h, 4)
    } finally {
      now = Date.parse('2026-11-23T12:00:00Z')
    }
  })
  describe('service tiers: the tier the provider says it served is billed, the one asked for is recorded beside it', () => {
    const luna = { prompt_tokens: 10_000, cached_tokens: 4_000, completion_tokens: 1_000 }

    it('bills OpenAI flex at 0.5x every rate, cache reads included', async () => {
      // gpt-6-luna $0.10 / cached $0.01 / $0.50, flex ×0.5 → 50,000 / 5,000 / 250,000 pico per token:
      // 6,000 × 50,000 + 4,000 × 5,000 + 1,000 × 250,000 = 300,000,000 + 20,000,000 + 250,000,000 = 570,000,000 pico
      const r = await expectCost('openai/gpt-6-luna', '2026-11-23T12:00:00Z', luna, 0.00057, 'catalog 2026-11-21 (flex ×0.5)', {
        body: { service_tier: 'flex' },
        serviceTier: 'flex',
      })
      assert.deepEqual(tierOf(r), { requested: 'flex', served: 'flex', inference_geo: null })
      assert.equal(r.cost?.service_tier, 'flex')
    })

    it('bills `auto` at the tier the answer reports (priority, 2x), and flex served as default at list price', async () => {
      // auto served as priority ×2 → 200,000 / 20,000 / 1,000,000 pico per token:
      // 6,000 × 200,000 + 4,000 × 20,000 + 1,000 × 1,000,000 = 1,200,000,000 + 80,000,000 + 1,000,000,000 = 2,280,000,000 pico
      const auto = await expectCost('openai/gpt-6-luna', '2026-11-23T12:00:00Z', luna, 0.00228, 'catalog 2026-11-21 (priority ×2)', {
        body: { service_tier: 'auto' },
        serviceTier: 'priority',
      })
      assert.deepEqual(tierOf(auto), { requested: 'auto', served: 'priority', inference_geo: null })
      // flex asked, default served: 6,000 × 100,000 + 4,000 × 10,000 + 1,000 × 500,000 = 600,000,000 + 40,000,000 + 500,000,000 = 1,140,000,000 pico
      const fellBack = await expectCost('openai/gpt-6-luna', '2026-11-23T12:00:00Z', luna, 0.00114, 'catalog 2026-11-21', {
        body: { service_tier: 'flex' },
        serviceTier: 'default',
      })
      assert.deepEqual(tierOf(fellBack), { requested: 'flex', served: 'default', inference_geo: null })
      const store = new Database(path.join(dataDir, DB_FILE), { readonly: true })
      try {
        assert.deepEqual(store.prepare(`SELECT service_tier_requested AS requested, service_tier AS served FROM requests WHERE id = ?`).get(fellBack.id), {
          requested: 'flex',
          served: 'default',
        })
      } finally {
        store.close()
      }
    })

    it('bills GPT-5.5 Fast at its own 2.5x, and leaves a tier the price row does not know unpriced, never at list price', async () => {
      // gpt-5.5 $5 / $30, fast ×2.5 → 12,500,000 / 75,000,000 pico per token:
      // 1,000 × 12,500,000 + 100 × 75,000,000 = 12,500,000,000 + 7,500,000,000 = 20,000,000,000 pico
      await expectCost('openai/gpt-5.5', '2026-11-23T12:00:00Z', { prompt_tokens: 1_000, completion_tokens: 100 }, 0.02, 'catalog 2026-11-21 (fast ×2.5)', {
        serviceTier: 'fast',
      })
      fakes.openai.script({ kind: 'reply', serviceTier: 'scale' })
      const res: any = await (await chat('openai/gpt-6-luna', false, key, { service_tier: 'scale' })).json()
      assert.equal(res.gw.cost.priced, false)
      assert.match(res.gw.cost.unpriced_reason, /no price for the scale service tier of openai\/gpt-6-luna/)
    })

    it('bills Gemini priority at 1.8x from what its OpenAI-compatible answer reports', async () => {
      // gemini-3.8-flash promo $0.75 / $3.75, priority ×1.8 → 1,350,000 / 6,750,000 pico per token:
      // 10,000 × 1,350,000 + 1,000 × 6,750,000 = 13,500,000,000 + 6,750,000,000 = 20,250,000,000 pico
      await expectCost(
        'gemini/gemini-3.8-flash',
        '2026-11-23T12:00:00Z',
        { prompt_tokens: 10_000, completion_tokens: 1_000 },
        0.02025,
        'catalog 2026-11-21 (priority ×1.8)',
        {
          serviceTier: 'priority',
        },
      )
    })

    it('bills Anthropic fast mode (usage speed: fast) at 2x, cache reads included', async () => {
      // claude-opus-5-5 $4 / read $0.20 / $20, fast ×2 → 8,000,000 / 400,000 / 40,000,000 pico per token:
      // 1,000 × 8,000,000 + 2,000 × 400,000 + 500 × 40,000,000 = 8,000,000,000 + 800,000,000 + 20,000,000,000 = 28,800,000,000 pico
      const r = await expectCost(
        'anthropic/claude-opus-5-5',
        '2026-11-23T12:00:00Z',
        { input_tokens: 1_000, cache_read_input_tokens: 2_000, output_tokens: 500, speed: 'fast' },
        0.0288,
        'catalog 2026-11-21 (fast ×2)',
      )
      assert.equal((tierOf(r) as any).served, 'fast')
    })
  })

  describe('per-call fees and data residency', () => {
    it('bills Anthropic web searches per call and the inference_geo "us" uplift (1.1x) on tokens only', async () => {
      // claude-sonnet-5-5 $2 / $10, geo us ×1.1 → 2,200,000 / 11,000,000 pico per token; 3 searches at $10 per 1,000 = 1e10 pico each:
      // 1,000 × 2,200,000 + 100 × 11,000,000 + 3 × 10,000,000,000 = 2,200,000,000 + 1,100,000,000 + 30,000,000,000 = 33,300,000,000 pico
      const r = await expectCost(
        'anthropic/claude-sonnet-5-5',
        '2026-11-23T12:00:00Z',
        { input_tokens: 1_000, output_tokens: 100, web_search_requests: 3, inference_geo: 'us' },
        0.0333,
        'catalog 2026-11-21 (geo us ×1.1)',
      )
      assert.equal(r.cost?.web_search_calls, 3)
      assert.ok(Math.abs(r.cost!.fees_usd! - 0.03) < 1e-12)
      assert.equal(r.usage?.web_search_calls, 3)
      assert.deepEqual(tierOf(r), { requested: null, served: 'standard', inference_geo: 'us' })
    })

    it('prices fast mode, geo and searches on the Messages wire: body, stream gw event and records', async () => {
      now = Date.parse('2026-11-23T12:00:00Z')
      const usage = { input_tokens: 1_000, output_tokens: 100, web_search_requests: 2, speed: 'fast', inference_geo: 'us' }
      anthropic.script({ kind: 'reply', usage }, { kind: 'reply', usage })
      const messages = (stream: boolean) =>
        fetch(`${running.url}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'fast-mode-2026-02-01', 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'anthropic/claude-opus-5-5', max_tokens: 100, speed: 'fast', messages: [{ role: 'user', content: 'x' }], stream }),
        })
      // claude-opus-5-5 $4 / $20, fast ×2 and geo us ×1.1 = ×2.2 → 8,800,000 / 44,000,000 pico per token; 2 searches × 1e10 pico:
      // 1,000 × 8,800,000 + 100 × 44,000,000 + 2 × 10,000,000,000 = 8,800,000,000 + 4,400,000,000 + 20,000,000,000 = 33,200,000,000 pico
      const expected = 0.0332
      const json = await messages(false)
      assert.equal(json.status, 200, await json.clone().text())
      assert.ok(Math.abs(Number(json.headers.get('x-gw-cost-usd')) - expected) < 1e-9)
      const record = await waitForRecord(running.gateway, json.headers.get('x-gw-request-id'))
      assert.ok(Math.abs(record.cost!.final_usd! - expected) < 1e-9)
      assert.equal(record.cost!.price_source, 'catalog 2026-11-21 (fast ×2, geo us ×1.1)')
      assert.deepEqual(tierOf(record), { requested: 'fast', served: 'fast', inference_geo: 'us' })
      const streamed = await (await messages(true)).text()
      const gw = JSON.parse(/^event: gw\ndata: (.*)$/m.exec(streamed)![1]).gw
      assert.ok(Math.abs(gw.cost.final_usd - expected) < 1e-9, `stream gw: ${gw.cost.final_usd}`)
      assert.equal(gw.cost.web_search_calls, 2, 'the searches come in message_delta')
      assert.ok(Math.abs((await waitForRecord(running.gateway, gw.request_id)).cost!.final_usd! - expected) < 1e-9)
    })

    it('prices a Responses answer’s web_search_call items per call, at the tier it reports: JSON, stream and records', async () => {
      now = Date.parse('2026-11-23T12:00:00Z')
      const usage = { input_tokens: 10_000, cached_tokens: 4_000, output_tokens: 1_000 }
      const reply = { kind: 'reply' as const, usage, webSearches: 2 }
      fakes.openai.scriptResponses(reply, reply)
      const responses = (stream: boolean) =>
        fetch(`${running.url}/v1/responses`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'openai/gpt-6-luna', input: 'news?', tools: [{ type: 'web_search' }], service_tier: 'flex', stream }),
        })
      // Tokens at flex ×0.5 as on chat: 570,000,000 pico; 2 searches at $10 per 1,000 = 2 × 10,000,000,000 pico:
      // 570,000,000 + 20,000,000,000 = 20,570,000,000 pico
      const expected = 0.02057
      const body: any = await (await responses(false)).json()
      assert.ok(Math.abs(body.gw.cost.final_usd - expected) < 1e-9, JSON.stringify(body.gw.cost))
      assert.equal(body.gw.cost.price_source, 'catalog 2026-11-21 (flex ×0.5)')
      const record = await waitForRecord(running.gateway, body.gw.request_id)
      assert.ok(Math.abs(record.cost!.final_usd! - expected) < 1e-9)
      assert.deepEqual(tierOf(record), { requested: 'flex', served: 'flex', inference_geo: null })
      const events = (await (await responses(true)).text()).split('\n\n').filter((b) => b.includes('response.completed'))
      const completed = JSON.parse(/^data: (.*)$/m.exec(events.at(-1)!)![1])
      assert.ok(Math.abs(completed.response.gw.cost.final_usd - expected) < 1e-9)
      assert.equal(completed.response.gw.cost.web_search_calls, 2)
      assert.ok(Math.abs((await waitForRecord(running.gateway, completed.response.gw.request_id)).cost!.final_usd! - expected) < 1e-9)
    })

    it('takes tier multipliers and call fees from a whole-row override, and reprices with the tier the record kept', async () => {
      await gwCli(['prices', 'set', 'openai/gpt-tiered', '--file', '-', '--as-of', '2026-11-22', '--note', 'negotiated'], {
        dataDir,
        input: JSON.stringify({ input: 1, output: 2, service_tiers: { flex: 0.4 } }),
      })
      // flex ×0.4 → 400,000 / 800,000 pico per token: 1,000 × 400,000 + 100 × 800,000 = 400,000,000 + 80,000,000 = 480,000,000 pico
      const r = await expectCost(
        'openai/gpt-tiered',
        '2026-11-23T12:00:00Z',
        { prompt_tokens: 1_000, completion_tokens: 100 },
        0.00048,
        'override 2026-11-22 (flex ×0.4)',
        {
          serviceTier: 'flex',
        },
      )
      await gwCli(['prices', 'set', 'openai/gpt-tiered', '--file', '-', '--as-of', '2026-11-23'], {
        dataDir,
        input: JSON.stringify({ input: 1, output: 2, service_tiers: { flex: 0.5 } }),
      })
      await gwCli(['prices', 'reprice', '--since', '2026-11-23', '--model', 'openai/gpt-tiered', '--json'], { dataDir })
      // Repriced at the stored tier, flex ×0.5: 1,000 × 500,000 + 100 × 1,000,000 = 500,000,000 + 100,000,000 = 600,000,000 pico
      const repriced = await waitForRecord(running.gateway, r.id)
      assert.equal(repriced.cost?.final_usd, 0.0006)
      assert.equal(repriced.cost?.price_source, 'override 2026-11-23 (flex ×0.5)')
    })
  })
  describe('live prices: gw prices refresh against a listing server on loopback', () => {
    let listing: http.Server
    let listingUrl = ''
    let status = 200
    let hits = 0
    // OpenRouter's shape: USD per token as decimal strings.
    const models = [
      // Unchanged: the catalog's $0.10 / $0.01 / $0.125 / $0.50.
      { id: 'openai/gpt-6-luna', pricing: { prompt: '0.0000001', completion: '0.0000005', input_cache_read: '0.00000001', input_cache_write: '0.000000125' } },
      // Changed: $1.50 / read $0.08 / $8 instead of $2 / $0.10 / $10 (dotted version, as OpenRouter names Claude).
      { id: 'anthropic/claude-sonnet-5.5', pricing: { prompt: '0.0000015', completion: '0.000008', input_cache_read: '0.00000008' } },
      // New: a model the catalog does not know.
      { id: 'google/gemini-9-test', pricing: { prompt: '0.000001', completion: '0.000004' } },
      // Skipped: another vendor, a free variant, a router's placeholder price.
      { id: 'meta-llama/llama-9', pricing: { prompt: '0.0000001', completion: '0.0000001' } },
      { id: 'openai/gpt-6-luna:free', pricing: { prompt: '0', completion: '0' } },
      { id: 'x-ai/grok-4.7', pricing: { prompt: '-1', completion: '-1' } },
    ]

    before(async () => {
      listing = http.createServer((req, res) => {
        hits++
        if (req.url !== '/api/v1/models') return void res.writeHead(404).end()
        res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? JSON.stringify({ data: models }) : '{"error":"down"}')
      })
      await new Promise<void>((resolve) => listing.listen(0, '127.0.0.1', resolve))
      listingUrl = `http://127.0.0.1:${(listing.address() as AddressInfo).port}/api/v1/models`
    })
    after(() => new Promise<void>((resolve) => listing.close(() => resolve())))

    it('fetches nothing until a source is configured, and says so', async () => {
      await assert.rejects(gwCli(['prices', 'refresh'], { dataDir }), (e: any) => /no price source is set \(the price_source_url setting\)/.test(e.stderr))
      assert.equal(hits, 0)
    })

    it('shows the diff (new, changed, unchanged, skipped) and saves nothing without --yes', async () => {
      const out = await gwCli(['prices', 'refresh', '--source', listingUrl], { dataDir })
      assert.match(out.stdout, /1 new, 1 changed, 1 unchanged, 3 skipped/)
      assert.match(out.stdout, /anthropic\/claude-sonnet-5-5\s+changed\s+2 \/ 0\.1 \/ 2\.5 \/ 10\s+1\.5 \/ 0\.08 \/ - \/ 8/)
      assert.match(out.stdout, /gemini\/gemini-9-test\s+new/)
      assert.match(out.stdout, /nothing saved: run again with --yes/)
      const list = JSON.parse((await gwCli(['prices', 'list', '--json'], { dataDir })).stdout)
      assert.equal(
        list.some((o: any) => o.model === 'anthropic/claude-sonnet-5-5'),
        false,
      )
    })

    it('on --yes saves dated override rows with a source note: requests from today bill the listed rates, earlier ones keep theirs', async () => {
      const applied = JSON.parse((await gwCli(['prices', 'refresh', '--yes', '--json'], { dataDir })).stdout)
      const today = new Date().toISOString().slice(0, 10)
      assert.equal(applied.applied, true)
      assert.deepEqual(applied.counts, { new: 1, changed: 1, unchanged: 1, skipped: 3 })
      const list = JSON.parse((await gwCli(['prices', 'list', '--json'], { dataDir })).stdout)
      const sonnet = list.find((o: any) => o.model === 'anthropic/claude-sonnet-5-5')
      assert.equal(sonnet.as_of, today)
      assert.match(sonnet.note, new RegExp(`^refreshed from ${listingUrl.replaceAll('.', '\\.')} on ${today} by cli:`))
      assert.deepEqual(list.find((o: any) => o.model === 'gemini/gemini-9-test').row, { kind: 'chat', input: 1, output: 4 })

      const u = { input_tokens: 1_000, cache_creation_input_tokens: 1_000, cache_creation_1h_input_tokens: 1_000, output_tokens: 100 }
      // From today, listed $1.50 / $8 with the 1-hour write the listing leaves out kept at the catalog's $4:
      // 1,000 × 1,500,000 + 1,000 × 4,000,000 + 100 × 8,000,000 = 1,500,000,000 + 4,000,000,000 + 800,000,000 = 6,300,000,000 pico
      await expectCost('anthropic/claude-sonnet-5-5', `${today}T12:00:00Z`, u, 0.0063, `override ${today}`)
      // The day before, the rates it ran at ($2 / 1-hour write $4 / $10):
      // 1,000 × 2,000,000 + 1,000 × 4,000,000 + 100 × 10,000,000 = 2,000,000,000 + 4,000,000,000 + 1,000,000,000 = 7,000,000,000 pico
      const dayBefore = new Date(Date.parse(`${today}T12:00:00Z`) - 86_400_000).toISOString()
      await expectCost('anthropic/claude-sonnet-5-5', dayBefore, u, 0.007, `override ${today}`)
      now = Date.parse('2026-11-23T12:00:00Z')
    })

    it('offline or failing, says so and leaves every price as it was', async () => {
      status = 500
      await assert.rejects(gwCli(['prices', 'refresh', '--yes'], { dataDir }), (e: any) =>
        /could not read prices from .*: HTTP 500\. Nothing changed: the catalog of 2026-11-21 and your overrides stand/.test(e.stderr),
      )
      const closed = http.createServer()
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
      const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/api/v1/models`
      await new Promise<void>((resolve) => closed.close(() => resolve()))
      await assert.rejects(gwCli(['prices', 'refresh', '--source', gone], { dataDir }), (e: any) =>
        /could not read prices from .*ECONNREFUSED.*Nothing changed/.test(e.stderr),
      )
      const list = JSON.parse((await gwCli(['prices', 'list', '--json'], { dataDir })).stdout)
      assert.equal(list.find((o: any) => o.model === 'anthropic/claude-sonnet-5-5').row.schedule.at(-1).input, 1.5)
      status = 200
    })
  })
})
