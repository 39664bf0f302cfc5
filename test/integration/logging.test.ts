// The gateway's log as an operator reads it after the fact: one line per inference request with
// who, what, where, how it ended, how long and how much; an internal error with its stack; never
// a secret (gateway key, provider key, Authorization) and never a body.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import OpenAI from 'openai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { builtinCatalog } from '../../src/gateway/pricing/catalog'
import type { CatalogModel } from '../../src/gateway/pricing/types'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { MemorySecretStore } from '../support/memorySecretStore'
import { tempDir } from '../support/tempDir'
import { testStoreFor } from '../support/harness'

const CONTENT = 'the secret recipe is 3 parts saffron'

/** A catalog entry whose price cannot be read: pricing it throws, an internal error of the pipeline. */
const broken = {
  provider: 'openai',
  model: 'broken-model',
  kind: 'chat',
  get input(): number {
    throw new Error('a catalog entry that cannot be read')
  },
} as CatalogModel

describe('the gateway log', () => {
  let fake: FakeOpenAI
  let running: RunningGateway
  let dataDir: string
  let logFile: string
  let secret: string
  let client: OpenAI
  const ids: Record<string, string> = {}
  let lines: Array<Record<string, any>> = []
  let text = ''

  before(async () => {
    fake = await startFakeOpenAI()
    dataDir = tempDir('gw-log-')
    logFile = path.join(dataDir, 'logs', 'gw.log')
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'info', logFile, ...(await testStoreFor(dataDir)) },
      {
        env: { OPENAI_API_KEY: fake.apiKey },
        secrets: new MemorySecretStore(),
        catalog: { ...builtinCatalog, models: [...builtinCatalog.models, broken] },
        routing: { maxRetries: 0, cooldownAfterFailures: 1_000_000 },
      },
    )
    const gw = running.gateway
    await gw.store.providers.upsert('openai', 'openai', fake.url)
    secret = (await gw.store.keys.create('logging-test')).secret
    await gw.configChanged()
    client = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: secret, maxRetries: 0 })

    const ask = (model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: CONTENT }] }).withResponse()
    ids.ok = (await ask('gpt-4o-mini')).response.headers.get('x-request-id')!
    fake.script({ kind: 'status', status: 500 })
    ids.providerFailure = await ask('gpt-4o-mini').then(
      () => assert.fail('the provider failed'),
      (e: InstanceType<typeof OpenAI.APIError>) => (assert.equal(e.status, 502), e.headers!.get('x-request-id')!),
    )
    ids.internal = await ask('openai/broken-model').then(
      () => assert.fail('pricing failed'),
      (e: InstanceType<typeof OpenAI.APIError>) => (assert.equal(e.status, 500), e.headers!.get('x-request-id')!),
    )
    const wrongKey = `gw-${'x'.repeat(43)}`
    const refused = await fetch(`${running.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${wrongKey}`, 'content-type': 'application/json', cookie: 'gw_session=cookie-value-1234' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: CONTENT }] }),
    })
    assert.equal(refused.status, 401)
    ids.refused = refused.headers.get('x-request-id')!
    ids.health = (await fetch(`${running.url}/healthz`)).headers.get('x-request-id')!
    const operator = {
      user: { id: 'operator', username: 'cli:test', role: 'admin' as const, created_at: 0 },
      sessionToken: null,
      address: 'local',
      operator: true,
    }
    const { result } = await running.admin.invoke('models.list', {}, operator)
    assert.equal(result.ok ? 200 : result.error.status, 500, 'listing models prices the broken entry')
    // Closing flushes what is still buffered.
    await running.close()
    text = fs.readFileSync(logFile, 'utf8')
    lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
  })
  after(async () => {
    await fake.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  const requestLines = (id: string) => lines.filter((l) => l.request_id === id && l.msg === 'request')

  it('has one info line per inference request: request id, key name, model, provider, status, latency, cost', () => {
    const [ok] = requestLines(ids.ok)
    assert.equal(requestLines(ids.ok).length, 1)
    assert.equal(ok.level, 30)
    assert.equal(ok.key, 'logging-test')
    assert.equal(ok.model, 'gpt-4o-mini')
    assert.equal(ok.provider, 'openai')
    assert.equal(ok.status, 200)
    assert.equal(ok.outcome, 'ok')
    assert.equal(typeof ok.latency_ms, 'number')
    assert.ok(ok.cost_usd > 0, 'the price of a priced model')

    const failed = requestLines(ids.providerFailure)
    assert.equal(failed.length, 1)
    assert.deepEqual(
      {
        level: failed[0].level,
        key: failed[0].key,
        provider: failed[0].provider,
        status: failed[0].status,
        outcome: failed[0].outcome,
        error: failed[0].error,
      },
      { level: 30, key: 'logging-test', provider: 'openai', status: 502, outcome: 'error', error: 'upstream_error' },
    )
    assert.equal(typeof failed[0].latency_ms, 'number')
    assert.ok('cost_usd' in failed[0])
  })

  it('logs an internal error at error level with its stack, and the request line', () => {
    const errors = lines.filter((l) => l.request_id === ids.internal && l.level === 50)
    assert.equal(errors.length, 1)
    assert.match(errors[0].err.message, /a catalog entry that cannot be read/)
    assert.match(errors[0].err.stack, /^Error: a catalog entry that cannot be read\n\s+at /)
    const [line] = requestLines(ids.internal)
    assert.deepEqual([line.status, line.model, line.error], [500, 'openai/broken-model', 'internal_error'])
  })

  it('logs an internal error of a management operation with its stack', () => {
    const [error] = lines.filter((l) => l.operation === 'models.list')
    assert.equal(error.level, 50)
    assert.match(error.err.stack, /^Error: a catalog entry that cannot be read\n\s+at /)
  })

  it('a refused request gets a short line; a health check none at info', () => {
    const refused = requestLines(ids.refused)
    assert.equal(refused.length, 1)
    assert.deepEqual(
      { method: refused[0].method, path: refused[0].path, status: refused[0].status },
      { method: 'POST', path: '/v1/chat/completions', status: 401 },
    )
    assert.equal(lines.filter((l) => l.request_id === ids.health).length, 0)
  })

  it('holds no secret and no body', () => {
    assert.ok(text.length > 0)
    for (const [what, value] of [
      ['the gateway key', secret],
      ['the refused key', `gw-${'x'.repeat(43)}`],
      ['the provider key', fake.apiKey],
      ['the message content', CONTENT],
      ['the cookie', 'cookie-value-1234'],
    ]) {
      assert.equal(text.includes(value), false, `${what} is in the log`)
    }
    assert.doesNotMatch(text, /authorization|bearer|x-api-key/i)
  })
})
