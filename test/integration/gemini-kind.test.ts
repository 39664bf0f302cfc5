// The gemini provider kind: Google's two APIs under one base URL (its version root) and one key.
// A small fake of Google's server on loopback answers both as Google does: its OpenAI layer under
// /v1beta/openai with a bearer token, its native API (the model list) with x-goog-api-key, each
// refusing the other's way of giving the key with Google's API_KEY_INVALID.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import OpenAI from 'openai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { gwCli, TEST_SECRET_KEY, testStoreFor, waitForRecord } from '../support/harness'
import { listenOnLoopback, readBody } from '../support/loopbackServer'
import { databases } from '../support/storeFile'
import { tempDir } from '../support/tempDir'

const KEY = 'AIzaSy-fake-google-key-0123456789abcdef'

interface Seen {
  method: string
  /** With its query. */
  path: string
  headers: IncomingHttpHeaders
  body: any
  /** When it arrived (performance.now()). */
  at: number
}

/** Google's error body for a status; the OpenAI layer sends it wrapped in an array. */
const googleError = (code: number, status: string, message: string, details: unknown[] = []) => ({ error: { code, message, status, details } })
const KEY_INVALID = googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
  { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
])
const exhausted = (retryDelay: string) => [
  googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).', [
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
  ]),
]

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** Gemini's OpenAI layer reports thoughts outside completion_tokens, inside total_tokens. */
const USAGE = { prompt_tokens: 9, completion_tokens: 5, total_tokens: 39, completion_tokens_details: { reasoning_tokens: 25 } }

async function startFakeGoogle() {
  const seen: Seen[] = []
  /** Answers for the next chat requests, before the normal one. */
  const failures: Array<{ status: number; body: unknown }> = []
  const server = await listenOnLoopback(
    async (req, res) => {
      const at = performance.now()
      const { body } = await readBody(req)
      const path = req.url ?? '/'
      seen.push({ method: req.method ?? '', path, headers: req.headers, body, at })
      const { pathname } = new URL(path, 'http://google')
      const native = req.headers['x-goog-api-key'] === KEY
      const bearer = req.headers.authorization === `Bearer ${KEY}`
      if (req.method === 'GET' && pathname === '/v1beta/models') {
        if (!native) return send(res, 400, KEY_INVALID)
        return send(res, 200, {
          models: [
            { name: 'models/gemini-3.8-flash', supportedGenerationMethods: ['generateContent', 'countTokens'] },
            { name: 'models/gemini-fake-flash', supportedGenerationMethods: ['generateContent'] },
            { name: 'models/gemini-embedding-001', supportedGenerationMethods: ['embedContent'] },
            { name: 'models/imagen-4.0-generate-001', supportedGenerationMethods: ['predict'] },
          ],
        })
      }
      if (req.method === 'POST' && pathname.startsWith('/v1beta/openai/')) {
        if (!bearer) return send(res, 400, [KEY_INVALID])
        const failure = failures.shift()
        if (failure) return send(res, failure.status, failure.body)
        if (pathname === '/v1beta/openai/embeddings') {
          return send(res, 200, {
            object: 'list',
            data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5] }],
            model: body.model,
            usage: { prompt_tokens: 2, total_tokens: 2 },
          })
        }
        if (pathname !== '/v1beta/openai/chat/completions') return send(res, 404, [googleError(404, 'NOT_FOUND', `no ${pathname}`)])
        const created = 1_764_000_000
        const base = { id: 'gem-1', object: 'chat.completion', created, model: body.model }
        if (!body.stream) {
          return send(res, 200, {
            ...base,
            choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from Google.' }, finish_reason: 'stop' }],
            usage: USAGE,
          })
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        const chunk = (delta: unknown, finish: string | null, usage?: unknown) =>
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`
        res.end(chunk({ role: 'assistant', content: 'Hello ' }, null) + chunk({ content: 'streamed.' }, 'stop', USAGE) + 'data: [DONE]\n\n')
        return
      }
      send(res, 404, googleError(404, 'NOT_FOUND', `no ${req.method} ${pathname}`))
    },
    (res, err) => send(res, 500, googleError(500, 'INTERNAL', String(err))),
  )
  return { url: `http://127.0.0.1:${server.port}/v1beta`, seen, failures, close: () => server.close() }
}

describe('the gemini kind: the built-in gemini on both of Google’s APIs, with one key', () => {
  let google: Awaited<ReturnType<typeof startFakeGoogle>>
  let running: RunningGateway
  let dataDir: string
  let client: OpenAI
  const cli = (...args: string[]) => gwCli(args, { dataDir, env: { GEMINI_API_KEY: KEY, GOOG_API_KEY: KEY } })
  const since = (n: number) => google.seen.slice(n).map((s) => `${s.method} ${s.path}`)

  before(async () => {
    google = await startFakeGoogle()
    dataDir = tempDir()
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
      {
        env: { GEMINI_API_KEY: KEY, GOOG_API_KEY: KEY, GW_SECRET_KEY: TEST_SECRET_KEY },
        // One retry, with a backoff far shorter than the waits Google asks for: a wait seen is Google's.
        routing: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5, cooldownAfterFailures: 1_000_000 },
      },
    )
    // The built-in, its address moved to the fake's version root: still of kind gemini.
    await running.gateway.store.providers.upsert('gemini', 'gemini', google.url)
    const { secret } = await running.gateway.store.keys.create('gemini-kind')
    await running.gateway.configChanged()
    client = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: secret, maxRetries: 0 })
  })

  after(async () => {
    await running?.close()
    await google?.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    databases.delete(dataDir)
  })

  it("sends chat completions to Google's OpenAI layer under the base URL with a bearer token, and reads them with the gemini dialect", async () => {
    const before = google.seen.length
    const res = await client.chat.completions.create({ model: 'gemini/gemini-3.8-flash', messages: [{ role: 'user', content: 'Hi' }] })
    assert.equal(res.choices[0].message.content, 'Hello from Google.')
    const [call] = google.seen.slice(before)
    assert.deepEqual(since(before), ['POST /v1beta/openai/chat/completions'])
    assert.equal(call.headers.authorization, `Bearer ${KEY}`)
    assert.equal(call.headers['x-goog-api-key'], undefined)
    assert.equal(call.body.model, 'gemini-3.8-flash')
    // Thoughts outside completion_tokens (the gemini dialect): 5 + 25 billed as output.
    const record = await waitForRecord(running.gateway, (res as any).gw.request_id)
    assert.equal(record.usage?.completion_tokens, 30)

    const streamed = await client.chat.completions
      .stream({ model: 'gemini/gemini-3.8-flash', messages: [{ role: 'user', content: 'Hi' }], stream_options: { include_usage: true } })
      .finalChatCompletion()
    assert.equal(streamed.choices[0].message.content, 'Hello streamed.')
    assert.equal(google.seen.at(-1)!.path, '/v1beta/openai/chat/completions')
  })

  it("sends embeddings to the OpenAI layer's embeddings", async () => {
    const before = google.seen.length
    const res = await client.embeddings.create({ model: 'gemini/gemini-embedding-001', input: 'hi' })
    assert.deepEqual(res.data[0].embedding, [0.25, -0.5])
    assert.deepEqual(since(before), ['POST /v1beta/openai/embeddings'])
    assert.equal(google.seen.at(-1)!.headers.authorization, `Bearer ${KEY}`)
  })

  it("checks its health with Google's native model list and x-goog-api-key, listing what generates content or embeds", async () => {
    const before = google.seen.length
    const tested = await cli('providers', 'test', 'gemini', '--json')
    assert.equal(JSON.parse(tested.stdout).ok, true, tested.stdout)
    assert.equal(JSON.parse(tested.stdout).models, 3)
    const probe = google.seen.slice(before).find((s) => s.method === 'GET')!
    assert.equal(new URL(probe.path, 'http://google').pathname, '/v1beta/models')
    assert.equal(probe.headers['x-goog-api-key'], KEY)
    assert.equal(probe.headers.authorization, undefined)

    const models = (await client.models.list()).data.filter((m: any) => m.gw.provider === 'gemini') as any[]
    const ids = models.map((m) => m.id)
    assert.ok(ids.includes('gemini/gemini-fake-flash'), 'a model Google lists beyond the catalog')
    assert.ok(!ids.includes('gemini/imagen-4.0-generate-001'), 'a model that neither generates content nor embeds')
    assert.equal(models.find((m) => m.id === 'gemini/gemini-3.8-flash').gw.availability.available, true)
  })

  it("waits as long as Google's RetryInfo says before the retry; a longer wait goes back to the client as retry-after", async () => {
    google.failures.push({ status: 429, body: exhausted('0.400s') })
    const before = google.seen.length
    const res = await client.chat.completions.create({ model: 'gemini/gemini-3.8-flash', messages: [{ role: 'user', content: 'Hi' }] })
    assert.equal(res.choices[0].message.content, 'Hello from Google.')
    const record = await waitForRecord(running.gateway, (res as any).gw.request_id)
    assert.deepEqual(
      record.attempts.map((a) => a.status),
      [429, 200],
    )
    const [first, second] = google.seen.slice(before)
    assert.ok(second.at - first.at >= 400, `retried after ${second.at - first.at} ms`)

    google.failures.push({ status: 429, body: exhausted('30s') })
    const refused = await client.chat.completions
      .create({ model: 'gemini/gemini-3.8-flash', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e)
    assert.ok(refused instanceof OpenAI.RateLimitError)
    assert.equal(refused.headers?.get('retry-after'), '30')
    assert.equal(refused.headers?.get('retry-after-ms'), '30000')
  })

  it("a refused key (Google's 400 API_KEY_INVALID) is the gateway's credential failing, not the caller's request", async () => {
    google.failures.push({ status: 400, body: [KEY_INVALID] })
    const refused = await client.chat.completions
      .create({ model: 'gemini/gemini-3.8-flash', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e)
    assert.ok(refused instanceof OpenAI.APIError)
    assert.equal(refused.status, 502)
    assert.equal(refused.code, 'provider_auth_failed')
  })

  it('is a kind `gw providers set --kind gemini` adds, with neither wire nor dialect to set', async () => {
    await cli('providers', 'set', 'goog', '--kind', 'gemini', '--base-url', google.url)
    const listed = (JSON.parse((await cli('providers', 'list', '--json')).stdout) as any[]).filter((p) => ['goog', 'gemini'].includes(p.id))
    assert.deepEqual(
      listed.map((p) => [p.id, p.kind, p.base_url, p.wire, p.dialect]),
      [
        ['gemini', 'gemini', google.url, null, null],
        ['goog', 'gemini', google.url, null, null],
      ],
    )
    const setting = (flag: string, value: string) => cli('providers', 'set', 'goog', '--kind', 'gemini', '--base-url', google.url, flag, value)
    await assert.rejects(setting('--dialect', 'gemini'), (e: any) => /dialect applies to providers of kind openai; goog is of kind gemini/.test(e.stderr))
    await assert.rejects(setting('--wire', 'both'), (e: any) => /wire applies to providers of kind openai; goog is of kind gemini/.test(e.stderr))
    const before = google.seen.length
    const res = await client.chat.completions.create({ model: 'goog/gemini-3.8-flash', messages: [{ role: 'user', content: 'Hi' }] })
    assert.equal(res.choices[0].message.content, 'Hello from Google.')
    assert.deepEqual(since(before), ['POST /v1beta/openai/chat/completions'])
  })
})
