import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { AdminService } from '../../src/gateway/admin/adminService'
import { KeychainSecretStore } from '../../src/gateway/secrets/secretStore'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { json, startTestGateway, waitForRecord } from '../support/harness'
import { tempDir } from '../support/tempDir'

const hex = () => randomBytes(16).toString('hex')
/** From the environment. Its quote and backslash are escaped in JSON, so an echo there does not read as the key itself. */
const OPENAI_KEY = `sk-fake-${hex()}"\\${hex()}`
/** From the keychain, set through the admin API. */
const ANTHROPIC_KEY = `sk-ant-fake-${hex()}${hex()}`
/** A credential the provider refuses, and quotes back in its 401. */
const WRONG_KEY = `sk-wrong-${hex()}`
/** Short enough for JSON.parse to quote whole in its error when a provider answers it as its model list. */
const SHORT_KEY = 'sk-short1'
const KEYS = [OPENAI_KEY, ANTHROPIC_KEY, WRONG_KEY, SHORT_KEY]

/** Whether text shows any of a key: whole, JSON-escaped, or any 16 of its characters in a row (a prefix a provider cut off). */
function shows(text: string, key: string): boolean {
  return [key, JSON.stringify(key).slice(1, -1)].some((form) =>
    form.length <= 16 ? text.includes(form) : Array.from({ length: form.length - 15 }, (_, i) => form.slice(i, i + 16)).some((run) => text.includes(run)),
  )
}

const assertClean = (label: string, text: string) => {
  for (const key of KEYS) assert.ok(!shows(text, key), `${label} shows a provider key: ${text.slice(0, 2000)}`)
}

describe('provider keys echoed back by a provider reach no client, record or log', () => {
  let openai: FakeOpenAI
  let anthropic: FakeAnthropic
  /** Answers its model list with the Authorization header it received, which is not JSON. */
  let garbled: FakeOpenAI
  let gateway: RunningGateway
  let dataDir: string
  let admin: AdminService
  let key: string
  const operator = {
    user: { id: 'operator', username: 'cli:test', role: 'admin' as const, created_at: 0 },
    sessionToken: null,
    address: 'local',
    operator: true,
  }

  const invoke = async (op: string, input: unknown) => {
    const { result } = await admin.invoke(op, input, operator)
    assert.ok(result.ok, JSON.stringify(result))
    return result.value as any
  }

  /** A chat call with fetch: the raw body the client reads, and the request's record and detail as the dashboard and `gw requests` read them. */
  const chat = async (model: string, stream: boolean) => {
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }),
    })
    const text = await res.text()
    const id = res.headers.get('x-request-id')
    const record = await waitForRecord(gateway.gateway, id)
    const detail = await invoke('requests.get', { id })
    assertClean(`${model} response`, text)
    assertClean(`${model} record`, JSON.stringify(record))
    assertClean(`${model} request detail`, JSON.stringify(detail))
    return { status: res.status, text, record }
  }

  before(async () => {
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY, quirks: { echoCredential: true }, modelsStatus: 500 })
    anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY, echoCredential: true, modelsStatus: 500 })
    garbled = await startFakeOpenAI({ apiKey: SHORT_KEY, modelsBody: (authorization) => authorization })
    dataDir = tempDir()
    gateway = await startGateway(
      // Everything the gateway logs, at its most talkative, lands in the data dir checked below.
      { port: 0, dataDir, logLevel: 'trace', logFile: path.join(dataDir, 'gw.log') },
      {
        env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_WRONG_API_KEY: WRONG_KEY, GARBLED_API_KEY: SHORT_KEY },
        secrets: new KeychainSecretStore('GW Gateway secrets test'),
        routing: { maxRetries: 0, cooldownAfterFailures: 1_000_000 },
      },
    )
    const gw = gateway.gateway
    admin = new AdminService(gw, {
      base_url: `${gateway.url}/v1`,
      version: 'test',
      data_dir: dataDir,
      log_file: path.join(dataDir, 'gw.log'),
      log_rotation: null,
      metrics: null,
    })
    await gw.store.providers.upsert('openai', 'openai', openai.url)
    await gw.store.providers.upsert('openai-wrong', 'openai', openai.url)
    await gw.store.providers.upsert('garbled', 'openai', garbled.url)
    await invoke('providers.set', { id: 'anthropic', base_url: anthropic.url, api_key: ANTHROPIC_KEY })
    await gw.store.settings.write({ log_bodies: true })
    key = (await gw.store.keys.create('t')).secret
    await gw.configChanged()
  })

  after(async () => {
    await invoke('providers.remove', { id: 'anthropic' })
    await gateway.close()
    await openai.close()
    await anthropic.close()
    await garbled.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('has fakes that quote the credential in their errors', async () => {
    const res = await fetch(`${openai.url}/models`, { headers: { authorization: `Bearer ${OPENAI_KEY}` } })
    assert.ok((await json(res)).error.message.includes(OPENAI_KEY))
    const ant = await fetch(`${anthropic.url}/models`, { headers: { 'x-api-key': ANTHROPIC_KEY, 'anthropic-version': '2023-06-01' } })
    assert.ok((await json(ant)).error.message.includes(ANTHROPIC_KEY))
  })

  it('scrubs an OpenAI-kind error before the first byte, whatever its shape', async () => {
    const cases: Array<[string, Parameters<FakeOpenAI['script']>[0], number]> = [
      ['OpenAI error body, provider failure', { kind: 'status', status: 500 }, 502],
      ['OpenAI error body, caller error passed on', { kind: 'status', status: 400 }, 400],
      ['plain text', { kind: 'status', status: 503, body: 'upstream connect error' }, 503],
      // No message field: the gateway shows the body itself, as JSON, where the key is escaped.
      ['JSON without a message', { kind: 'status', status: 500, body: { detail: 'internal' } }, 502],
      ['plain text with a cut-off key', { kind: 'status', status: 502, body: `bad gateway, request had Bearer ${OPENAI_KEY.slice(0, 30)}` }, 502],
    ]
    for (const [name, behaviour, status] of cases) {
      openai.script(behaviour)
      const { status: got, text, record } = await chat('openai/gpt-4o-mini', false)
      assert.equal(got, status, name)
      assert.match(JSON.parse(text).error.message, /\[redacted\]/, name)
      assert.match(record.error!.message, /\[redacted\]/, name)
      assert.match(record.attempts[0].error!, /\[redacted\]/, name)
    }
  })

  it('scrubs a refused key the provider quotes back', async () => {
    const { status, text, record } = await chat('openai-wrong/gpt-4o-mini', false)
    assert.equal(status, 502)
    assert.equal(JSON.parse(text).error.code, 'provider_auth_failed')
    assert.match(record.attempts[0].error!, /\[redacted\]/)
  })

  it('scrubs an OpenAI-kind error event mid-stream', async () => {
    openai.script({ kind: 'fail-mid-stream', afterChunks: 2, mode: 'error-event' })
    const { status, text, record } = await chat('openai/gpt-4o-mini', true)
    assert.equal(status, 200)
    assert.match(text, /"error":\{"message":"openai: The server had an error[^"]*\[redacted\]/)
    assert.match(record.error!.message, /\[redacted\]/)
  })

  it('scrubs Anthropic-kind errors, before the first byte and mid-stream', async () => {
    anthropic.script({ kind: 'status', status: 500 })
    const before = await chat('anthropic/claude-sonnet-4-5', false)
    assert.equal(before.status, 502)
    assert.match(JSON.parse(before.text).error.message, /\[redacted\]/)
    anthropic.script({ kind: 'error-mid-stream', errorType: 'api_error' })
    const mid = await chat('anthropic/claude-sonnet-4-5', true)
    assert.match(mid.text, /failed mid-stream \(api_error\): Internal server error \(x-api-key: \[redacted\]\)/)
    assert.match(mid.record.error!.message, /\[redacted\]/)
  })

  it('scrubs the model list and the provider test', async () => {
    const res = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
    const text = await res.text()
    assertClean('GET /v1/models', text)
    const reasons = (JSON.parse(text).data as any[]).map((m) => m.gw.availability.reason as string | null)
    assert.ok(reasons.some((r) => r?.startsWith('openai answered 500') && r.includes('[redacted]')))
    assert.ok(reasons.some((r) => r?.startsWith('anthropic answered 500') && r.includes('[redacted]')))
    assertClean('models.list', JSON.stringify(await invoke('models.list', {})))
    for (const id of ['openai', 'openai-wrong', 'anthropic']) {
      const tested = await invoke('providers.test', { id })
      assert.equal(tested.ok, false, id)
      assert.match(tested.reason, /\[redacted\]/, id)
      assertClean(`providers.test ${id}`, JSON.stringify(tested))
    }
    const notJson = await invoke('providers.test', { id: 'garbled' })
    assertClean('providers.test of a model list that is not JSON', JSON.stringify(notJson))
    assert.equal(notJson.reason, 'garbled answered 200 with a model list that is not JSON')
  })

  it('leaves no key in the logs or the data directory', async () => {
    await gateway.gateway.records.flushed()
    await new Promise<void>((resolve) => gateway.gateway.logger.flush(() => resolve()))
    assert.match(fs.readFileSync(path.join(dataDir, 'gw.log'), 'utf8'), /answered 500|provider_|upstream_error/, 'the log holds the failures')
    for (const file of fs.readdirSync(dataDir)) assertClean(file, fs.readFileSync(path.join(dataDir, file), 'latin1'))
  })
})

describe('sign-in throttling', () => {
  it('checks at most 5 of 40 parallel wrong guesses and refuses the rest with 429', async () => {
    const t = await startTestGateway()
    try {
      const signIn = (password: string) =>
        fetch(`${t.url}/api/auth.signIn`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'owner', password }),
        })
      const setup = await fetch(`${t.url}/api/auth.setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'owner', password: 'correct horse battery' }),
      })
      assert.equal(setup.status, 200)
      const statuses = (await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(`wrong guess ${i}`)))).map((r) => r.status)
      const count = (s: number) => statuses.filter((x) => x === s).length
      assert.deepEqual({ checked: count(401), refused: count(429) }, { checked: 5, refused: 35 })
      assert.equal((await signIn('correct horse battery')).status, 429, 'the right password waits out the window too')
    } finally {
      await t.close()
    }
  })
})
