/**
 * A real Prometheus scrapes a gateway under a small load on every wire (the official SDKs as
 * clients, fake providers speaking each wire), and the series read back through its HTTP API
 * agree with what was sent and with the request records.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini'
import { TEST_SECRET_KEY, TEST_STORE, testStoreFor } from '../support/harness'
import { databases } from '../support/storeFile'
import { tempDir } from '../support/tempDir'
import { waitUntil } from '../support/waitUntil'
import { collect } from '../support/genai'
import { prometheusMissing, startPrometheus, type Prometheus, type Sample } from '../support/prometheus'

const TOKEN = 'scrape-token-for-the-test'

describe('Prometheus scrapes /metrics', { skip: prometheusMissing }, () => {
  let openai: FakeOpenAI
  let anthropic: FakeAnthropic
  let google: FakeGemini
  let running: RunningGateway
  let prometheus: Prometheus
  let dataDir: string
  let secret: string
  let emptySecret: string

  before(async () => {
    ;[openai, anthropic, google] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGemini()])
    dataDir = tempDir()
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', metrics: true, metricsToken: TOKEN, ...(await testStoreFor(dataDir)) },
      {
        env: { OPENAI_API_KEY: openai.apiKey, ANTHROPIC_API_KEY: anthropic.apiKey, GEMINI_API_KEY: google.apiKey, GW_SECRET_KEY: TEST_SECRET_KEY },
        routing: { maxRetries: 0 },
      },
    )
    const store = running.gateway.store
    await store.providers.upsert('openai', 'openai', openai.url)
    await store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await store.providers.upsert('gemini', 'gemini', `${google.url}/v1beta`)
    secret = (await store.keys.create('metrics')).secret
    emptySecret = (await store.keys.create('prepaid, spent', { balanceUsd: 0 })).secret
    await running.gateway.configChanged()
    prometheus = await startPrometheus([new URL(running.url).host], { token: TOKEN })
  })

  after(async () => {
    await prometheus?.close()
    await running?.close()
    await Promise.all([openai?.close(), anthropic?.close(), google?.close()])
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    databases.delete(dataDir)
  })

  /** Polls an instant query until `done` holds for its samples (the scrape after the last request), and returns them. */
  async function settled(promql: string, done: (samples: Sample[]) => boolean): Promise<Sample[]> {
    let samples: Sample[] = []
    await waitUntil(async () => done((samples = await prometheus.query(promql))), {
      what: () => `${promql} settled; last: ${JSON.stringify(samples)}`,
      timeoutMs: 30_000,
      intervalMs: 250,
    })
    return samples
  }
  const byLabel = (samples: Sample[], label: string) => Object.fromEntries(samples.map((s) => [s.metric[label], s.value]))

  it('counts every request per wire, sums cost to the records to 1e-9, and shows a 402 under its reason', async () => {
    const chat = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: secret, maxRetries: 0 })
    const messages = new Anthropic({ baseURL: running.url, apiKey: secret, maxRetries: 0 })
    const ai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: running.url } })
    const ask = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hello' }] }
    for (let i = 0; i < 3; i++) await chat.chat.completions.create(ask)
    for (let i = 0; i < 2; i++) {
      const stream = await chat.chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } })
      for await (const chunk of stream) void chunk
    }
    for (let i = 0; i < 2; i++) await chat.embeddings.create({ model: 'text-embedding-3-small', input: `embed ${i}` })
    for (let i = 0; i < 2; i++) await messages.messages.create({ model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'Hello' }] })
    for (let i = 0; i < 2; i++) await chat.responses.create({ model: 'gpt-4o-mini', input: 'Hello' })
    await ai.models.generateContent({ model: 'gemini/gemini-2.5-flash', contents: 'Hello' })
    await collect(await ai.models.generateContentStream({ model: 'gemini/gemini-2.5-flash', contents: 'Hello' }))
    const refused = await new OpenAI({ baseURL: `${running.url}/v1`, apiKey: emptySecret, maxRetries: 0 }).chat.completions.create(ask).catch((e) => e)
    assert.equal(refused.status, 402)

    const sent = { 'chat.completions': 6, embeddings: 2, messages: 2, responses: 2, generateContent: 2 }
    const counted = (s: Sample[]) => s.length === 5 && Object.entries(sent).every(([wire, n]) => byLabel(s, 'wire')[wire] === n)
    const perWire = await settled('sum by (wire) (gw_requests_total)', counted)
    assert.deepEqual(byLabel(perWire, 'wire'), sent)

    await running.gateway.records.flushed()
    const records = await running.gateway.store.requests.list(100)
    assert.equal(records.length, 14)
    const recordsUsd = records.reduce((sum, r) => sum + (r.cost?.final_usd ?? 0), 0)
    assert.ok(recordsUsd > 0, 'the load cost something')
    const [cost] = await prometheus.query('sum(gw_cost_usd_total)')
    assert.ok(Math.abs(cost.value - recordsUsd) < 1e-9, `Prometheus ${cost.value} against the records' ${recordsUsd}`)

    const refusals = await prometheus.query('gw_refusals_total')
    assert.deepEqual(
      refusals.map((s) => [s.metric.wire, s.metric.reason, s.value]),
      [['chat.completions', 'balance', 1]],
    )
    const [refusedSeries] = await prometheus.query('gw_requests_total{status_class="4xx"}')
    assert.deepEqual([refusedSeries.metric.wire, refusedSeries.metric.outcome, refusedSeries.value], ['chat.completions', 'error', 1])

    // Every stream ended, and was counted as it ran.
    assert.deepEqual(
      (await prometheus.query('gw_open_streams')).map((s) => s.value),
      [0],
    )
    const inputTokens = records.reduce((sum, r) => sum + (r.usage?.prompt_tokens ?? 0), 0)
    const [tokens] = await prometheus.query('sum(gw_tokens_total{type="input"})')
    assert.equal(tokens.value, inputTokens)
    const [latencies] = await prometheus.query('sum(gw_request_duration_seconds_count)')
    assert.equal(latencies.value, 14)
    const [attempts] = await prometheus.query('sum(gw_upstream_attempts_total)')
    assert.equal(
      attempts.value,
      records.reduce((n, r) => n + r.attempts.length, 0),
    )
  })

  it("exposes the PostgreSQL pools' connections, and none on SQLite", async () => {
    const pools = await settled('gw_db_pool_connections', () => true)
    if (TEST_STORE === 'postgres') {
      assert.deepEqual([...new Set(pools.map((s) => s.metric.pool))].sort(), ['limits', 'main', 'records'])
      const [waiting] = await prometheus.query('sum(gw_db_pool_waiting)')
      assert.equal(waiting.value, 0)
    } else assert.deepEqual(pools, [])
  })

  it('labels no series with a key, user or session id', async () => {
    const names = await fetch(`${prometheus.url}/api/v1/labels`).then((r) => r.json() as Promise<{ data: string[] }>)
    const labels = names.data.filter((l) => !['__name__', 'instance', 'job', 'le', 'quantile'].includes(l))
    for (const label of labels) assert.doesNotMatch(label, /key|user|session/, `label ${label}`)
    const values = await fetch(`${prometheus.url}/api/v1/series?match[]={job="gw"}`).then((r) => r.json() as Promise<{ data: Record<string, string>[] }>)
    const text = JSON.stringify(values.data)
    assert.doesNotMatch(text, /key_|gw-/)
  })
})
