/**
 * Google's generateContent API on the gateway, through Google's own SDK (`@google/genai`): natively
 * to a provider of kind gemini (a fake Google server speaking the exact wire), translated to a
 * chat-completions provider and to Anthropic; its errors, token counts, embeddings and model list.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { DEFAULT_GEMINI_MODELS, startFakeGemini, type FakeGemini } from '../support/fake-gemini'
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { TEST_SECRET_KEY, testStoreFor, waitForRecord } from '../support/harness'
import { databases } from '../support/storeFile'
import { tempDir } from '../support/tempDir'
import { collect, refusal } from '../support/genai'

const NATIVE = 'gemini/gemini-2.5-flash'

/** The gateway's request id of an SDK answer: its `sdkHttpResponse` headers keep the gateway's. */
const requestIdOf = (res: GenerateContentResponse): string => {
  const id = res.sdkHttpResponse?.headers?.['x-gw-request-id']
  assert.ok(id, 'x-gw-request-id on the answer')
  return id
}

describe("Google's generateContent API, through @google/genai", () => {
  let google: FakeGemini
  let openai: FakeOpenAI
  let anthropic: FakeAnthropic
  let running: RunningGateway
  let dataDir: string
  let secret: string
  let ai: GoogleGenAI
  const lastGoogle = () => google.received.at(-1)!

  before(async () => {
    google = await startFakeGemini({ thoughtSignatures: true, models: [...DEFAULT_GEMINI_MODELS, 'gemini-3.1-pro-preview-customtools'] })
    openai = await startFakeOpenAI()
    anthropic = await startFakeAnthropic()
    dataDir = tempDir()
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
      {
        env: { GEMINI_API_KEY: google.apiKey, OPENAI_API_KEY: openai.apiKey, ANTHROPIC_API_KEY: anthropic.apiKey, GW_SECRET_KEY: TEST_SECRET_KEY },
        routing: { maxRetries: 0 },
      },
    )
    const store = running.gateway.store
    await store.providers.upsert('gemini', 'gemini', `${google.url}/v1beta`)
    await store.providers.upsert('openai', 'openai', openai.url)
    await store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    secret = (await store.keys.create('gemini-wire')).secret
    await running.gateway.configChanged()
    ai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: running.url } })
  })

  after(async () => {
    await running?.close()
    await Promise.all([google?.close(), openai?.close(), anthropic?.close()])
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    databases.delete(dataDir)
  })

  describe('natively, to a provider of kind gemini', () => {
    it("sends the body as written with Google's key, answers as Google wrote it with gw, and prices usageMetadata to the token", async () => {
      const usage = { promptTokenCount: 1000, cachedContentTokenCount: 200, candidatesTokenCount: 100, thoughtsTokenCount: 50, toolUsePromptTokenCount: 0 }
      google.script({ kind: 'reply', text: 'Native answer.', usage })
      const config = {
        systemInstruction: 'Be brief.',
        temperature: 0.2,
        thinkingConfig: { thinkingBudget: 512, includeThoughts: false },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' as any, threshold: 'BLOCK_NONE' as any }],
      }
      const res = await ai.models.generateContent({ model: NATIVE, contents: 'Hi', config })
      assert.equal(res.text, 'Native answer.')
      const sent = lastGoogle()
      assert.equal(sent.path, '/v1beta/models/gemini-2.5-flash:generateContent')
      assert.equal(sent.headers['x-goog-api-key'], google.apiKey, "Google's key, not the gateway's")
      assert.deepEqual(sent.body.generationConfig.thinkingConfig, { thinkingBudget: 512, includeThoughts: false })
      assert.deepEqual(sent.body.safetySettings, [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }])
      const id = requestIdOf(res)
      // gemini-2.5-flash: $0.30 input, $0.03 cached, $2.50 output per 1M. 800 × 0.30 + 200 × 0.03 + (100 + 50) × 2.50 = 621 µ$.
      assert.equal(res.sdkHttpResponse?.headers?.['x-gw-cost-usd'], '0.000621')
      const record = await waitForRecord(running.gateway, id)
      assert.equal(record.endpoint, 'generateContent')
      assert.equal(record.provider, 'gemini')
      assert.equal(record.upstream_model, 'gemini-2.5-flash')
      assert.equal(record.cost?.final_usd, 0.000621)
      assert.deepEqual(
        [record.usage?.prompt_tokens, record.usage?.cached_tokens, record.usage?.completion_tokens, record.usage?.reasoning_tokens],
        [1000, 200, 150, 50],
      )
    })

    it("sends a bare catalog alias as asked (Gemini CLI's pro model), priced as the entry it belongs to", async () => {
      google.script({ kind: 'reply', usage: { promptTokenCount: 1000, candidatesTokenCount: 100 } })
      const res = await ai.models.generateContent({ model: 'gemini-3.1-pro-preview-customtools', contents: 'Hi' })
      assert.equal(lastGoogle().path, '/v1beta/models/gemini-3.1-pro-preview-customtools:generateContent')
      const record = await waitForRecord(running.gateway, requestIdOf(res))
      assert.equal(record.upstream_model, 'gemini-3.1-pro-preview-customtools')
      assert.equal(record.cost?.priced, true)
      assert.match(record.cost?.price_source ?? '', /catalog/)
    })

    it('relays a stream chunk by chunk with usage and gw on the last chunk, and records its cost', async () => {
      google.script({
        kind: 'reply',
        text: 'A streamed native answer in several chunks.',
        runningUsage: true,
        usage: { promptTokenCount: 40, candidatesTokenCount: 9 },
      })
      const chunks = await collect(await ai.models.generateContentStream({ model: NATIVE, contents: 'Stream it' }))
      assert.ok(chunks.length > 1, 'several chunks')
      assert.equal(chunks.map((c) => c.text ?? '').join(''), 'A streamed native answer in several chunks.')
      const last = chunks.at(-1)!
      assert.equal(last.candidates?.[0].finishReason, 'STOP')
      assert.equal(last.usageMetadata?.candidatesTokenCount, 9)
      assert.match(lastGoogle().path, /:streamGenerateContent\?alt=sse$/)
      const record = await waitForRecord(running.gateway, requestIdOf(last))
      // 40 × 0.30 + 9 × 2.50 = 34.5 µ$
      assert.equal(record.cost?.final_usd, 0.0000345)
      assert.equal(record.stream, true)
    })

    it("ends a stream whose provider fails mid-way with Google's error, charged for the text it relayed, estimated", async () => {
      google.script({ kind: 'fail-mid-stream', afterChunks: 3, mode: 'error-event' })
      const res = await fetch(`${running.url}/v1beta/models/${NATIVE}:streamGenerateContent?alt=sse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': secret },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Stream it' }] }] }),
      })
      const chunks = (await res.text())
        .split('\n\n')
        .filter(Boolean)
        .map((e) => JSON.parse(e.slice('data: '.length)))
      assert.ok(chunks.at(-1).error, "Google's error ends the stream")
      const relayed = chunks.slice(0, -1).flatMap((c) => c.candidates[0].content.parts.map((p: { text: string }) => p.text))
      assert.equal(relayed.length, 3)
      const record = await waitForRecord(running.gateway, res.headers.get('x-gw-request-id')!)
      assert.equal(record.outcome, 'error')
      // Four characters a token, from the text the client got.
      assert.equal(record.usage?.completion_tokens, Math.ceil(relayed.join('').length / 4))
      assert.equal(record.cost?.estimated, true)
    })

    it('times the first byte of a stream that is one chunk, as Google streams a function call', async () => {
      google.script({ kind: 'reply', functionCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] })
      const chunks = await collect(await ai.models.generateContentStream({ model: NATIVE, contents: 'Read a.txt' }))
      assert.equal(chunks.length, 1)
      const record = await waitForRecord(running.gateway, requestIdOf(chunks[0]))
      assert.equal(typeof record.ttfb_ms, 'number')
    })

    it("puts gw on a stream's last SSE chunk, and streams one JSON array without alt=sse, the colon encoded", async () => {
      const headers = { 'x-goog-api-key': secret, 'content-type': 'application/json' }
      const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] })
      const sse = await fetch(`${running.url}/v1beta/models/${NATIVE}:streamGenerateContent?alt=sse`, { method: 'POST', headers, body })
      assert.equal(sse.headers.get('content-type'), 'text/event-stream; charset=utf-8')
      const events = (await sse.text()).split('\n\n').filter(Boolean)
      const lastEvent = JSON.parse(events.at(-1)!.replace(/^data: /, ''))
      assert.equal(lastEvent.gw.routing.provider, 'gemini')
      assert.equal(typeof lastEvent.gw.cost.final_usd, 'number')

      const array = await fetch(`${running.url}/v1beta/models/${encodeURIComponent(NATIVE)}%3AstreamGenerateContent`, { method: 'POST', headers, body })
      assert.equal(array.status, 200)
      assert.match(array.headers.get('content-type') ?? '', /^application\/json/)
      const chunks = JSON.parse(await array.text())
      assert.ok(Array.isArray(chunks) && chunks.length > 0)
      assert.ok(chunks.at(-1).gw, 'gw on the last element')
      assert.equal(chunks.map((c: any) => c.candidates[0].content.parts[0]?.text ?? '').join(''), 'Hello from the fake Gemini.')
    })

    it('passes function calls and their thought signatures through both ways', async () => {
      google.script({ kind: 'reply', functionCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] })
      const tools = [{ functionDeclarations: [{ name: 'read_file', parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } } } }] }]
      const first = await ai.models.generateContent({ model: NATIVE, contents: 'Read a.txt', config: { tools } })
      const call = first.candidates![0].content!.parts![0]
      assert.deepEqual(call.functionCall, { name: 'read_file', args: { path: 'a.txt' } })
      assert.ok(call.thoughtSignature, 'the signature Google gave')
      google.script({ kind: 'reply', text: 'It says hello.' })
      const second = await ai.models.generateContent({
        model: NATIVE,
        contents: [
          { role: 'user', parts: [{ text: 'Read a.txt' }] },
          { role: 'model', parts: [call] },
          { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: 'hello' } } }] },
        ],
        config: { tools },
      })
      assert.equal(second.text, 'It says hello.')
      assert.equal(lastGoogle().body.contents[1].parts[0].thoughtSignature, call.thoughtSignature)
    })

    it('counts tokens at Google, free, and embeds natively, one request or a batch', async () => {
      const counted = await ai.models.countTokens({ model: NATIVE, contents: 'How many tokens is this?' })
      assert.ok((counted.totalTokens ?? 0) > 0)
      assert.match(lastGoogle().path, /gemini-2\.5-flash:countTokens$/)
      const embedded = await ai.models.embedContent({ model: 'gemini/gemini-embedding-001', contents: 'Embed me' })
      assert.equal(embedded.embeddings?.length, 1)
      assert.match(lastGoogle().path, /gemini-embedding-001:(embedContent|batchEmbedContents)$/)
      const batch = await ai.models.embedContent({ model: 'gemini/gemini-embedding-001', contents: ['one', 'two'] })
      assert.equal(batch.embeddings?.length, 2)
      assert.match(lastGoogle().path, /:batchEmbedContents$/)
      assert.deepEqual(
        lastGoogle().body.requests.map((r: any) => r.model),
        ['models/gemini-embedding-001', 'models/gemini-embedding-001'],
      )
    })
  })

  describe('what every wire has: presets, attribution, policies, balances', () => {
    it("applies a preset named in the path: its system prompt before the caller's, its parameters in generationConfig", async () => {
      await running.gateway.store.presets.save(
        { name: 'terse', model: NATIVE, system_prompt: 'Be terse.', temperature: 0.1, top_p: null, max_tokens: 50, fallbacks: [], description: null },
        'test',
      )
      await running.gateway.configChanged()
      const res = await ai.models.generateContent({ model: '@preset/terse', contents: 'Hi', config: { systemInstruction: 'Use French.', temperature: 0.9 } })
      const sent = lastGoogle()
      assert.equal(sent.path, '/v1beta/models/gemini-2.5-flash:generateContent')
      assert.deepEqual(sent.body.systemInstruction.parts, [{ text: 'Be terse.' }, { text: 'Use French.' }])
      assert.equal(sent.body.generationConfig.temperature, 0.1)
      assert.equal(sent.body.generationConfig.maxOutputTokens, 50)
      const record = await waitForRecord(running.gateway, requestIdOf(res))
      assert.equal(record.preset, 'terse')
    })

    it('reads X-Gw-* attribution, and a max_tokens policy fills generationConfig.maxOutputTokens or refuses more', async () => {
      const { secret: capped } = await running.gateway.store.keys.create('capped', { policy: { max_tokens: 32 } })
      await running.gateway.configChanged()
      const client = new GoogleGenAI({ apiKey: capped, httpOptions: { baseUrl: running.url, headers: { 'X-Gw-User-Id': 'ana', 'X-Gw-Team': 'core' } } })
      const res = await client.models.generateContent({ model: NATIVE, contents: 'Hi' })
      assert.equal(lastGoogle().body.generationConfig.maxOutputTokens, 32)
      const record = await waitForRecord(running.gateway, requestIdOf(res))
      assert.equal(record.attribution.user_id, 'ana')
      assert.equal(record.dimensions.team, 'core')
      const refused = await refusal(client.models.generateContent({ model: NATIVE, contents: 'Hi', config: { maxOutputTokens: 500 } }))
      assert.equal(refused.status, 403)
      assert.equal(refused.error.status, 'PERMISSION_DENIED')
      assert.match(refused.error.message, /at most 32 output tokens/)
      assert.ok(refused.error.details.some((d: any) => d.fieldViolations?.[0]?.field === 'generationConfig.maxOutputTokens'))
    })

    it('charges a prepaid key the exact cost, and refuses it with PERMISSION_DENIED once its balance is spent', async () => {
      const { info, secret: prepaid } = await running.gateway.store.keys.create('prepaid-gemini', { balanceUsd: 0.000621 })
      await running.gateway.configChanged()
      const client = new GoogleGenAI({ apiKey: prepaid, httpOptions: { baseUrl: running.url } })
      google.script({ kind: 'reply', usage: { promptTokenCount: 1000, cachedContentTokenCount: 200, candidatesTokenCount: 100, thoughtsTokenCount: 50 } })
      await client.models.generateContent({ model: NATIVE, contents: 'Hi', config: { maxOutputTokens: 150 } })
      assert.equal(await running.gateway.store.ledger.balance(info.id), 0n, 'the balance was exactly the cost')
      const broke = await refusal(client.models.generateContent({ model: NATIVE, contents: 'Hi', config: { maxOutputTokens: 150 } }))
      assert.equal(broke.status, 403)
      assert.equal(broke.error.status, 'PERMISSION_DENIED')
      assert.match(broke.error.message, /no prepaid balance left/)
    })
  })

  describe('translated, to chat-completions and Anthropic providers', () => {
    it('answers generateContent from a chat-completions provider, priced from its usage, ignored fields named', async () => {
      const res = await ai.models.generateContent({
        model: 'openai/gpt-4o-mini',
        contents: 'Hi',
        config: { systemInstruction: 'Be brief.', maxOutputTokens: 64, topK: 5, temperature: 0.5 },
      })
      assert.ok(res.text && res.text.length > 0)
      assert.equal(res.candidates?.[0].finishReason, 'STOP')
      const sent = openai.received.at(-1)!
      assert.equal(sent.path, '/v1/chat/completions')
      assert.equal(sent.body.messages[0].role, 'system')
      assert.equal(sent.body.temperature, 0.5)
      const record = await waitForRecord(running.gateway, requestIdOf(res))
      assert.equal(record.endpoint, 'generateContent')
      assert.equal(record.provider, 'openai')
      assert.ok(record.cost?.priced)
      assert.ok(
        record.ignored.some((d) => d.name === 'generationConfig.topK'),
        JSON.stringify(record.ignored),
      )
    })

    it('streams a chat-completions answer as Google chunks with usage on the last', async () => {
      const chunks = await collect(await ai.models.generateContentStream({ model: 'openai/gpt-4o-mini', contents: 'Stream it' }))
      assert.ok(chunks.map((c) => c.text ?? '').join('').length > 0)
      const last = chunks.at(-1)!
      assert.ok(last.usageMetadata?.promptTokenCount)
      const record = await waitForRecord(running.gateway, requestIdOf(last))
      assert.equal(record.provider, 'openai')
      assert.equal(record.stream, true)
    })

    it('answers from Anthropic through its adapter', async () => {
      const res = await ai.models.generateContent({ model: 'anthropic/claude-sonnet-4-5', contents: 'Hi', config: { maxOutputTokens: 100 } })
      assert.ok(res.text && res.text.length > 0)
      assert.equal(anthropic.received.at(-1)!.path, '/v1/messages')
      const record = await waitForRecord(running.gateway, requestIdOf(res))
      assert.equal(record.provider, 'anthropic')
    })

    it("falls back from Google to a chat-completions provider mid-request: each attempt in its own provider's wire", async () => {
      await running.gateway.store.presets.save(
        {
          name: 'resilient',
          model: NATIVE,
          system_prompt: null,
          temperature: null,
          top_p: null,
          max_tokens: null,
          fallbacks: ['openai/gpt-4o-mini'],
          description: null,
        },
        'test',
      )
      await running.gateway.configChanged()
      google.script({ kind: 'status', status: 503 })
      const res = await ai.models.generateContent({ model: '@preset/resilient', contents: 'Hi' })
      assert.ok(res.text && res.text.length > 0)
      assert.equal(openai.received.at(-1)!.path, '/v1/chat/completions')
      const record = await waitForRecord(running.gateway, requestIdOf(res))
      assert.equal(record.fallback_used, true)
      assert.deepEqual(
        record.attempts.map((a) => [a.provider, a.status]),
        [
          ['gemini', 503],
          ['openai', 200],
        ],
      )
    })

    it("embeds through a chat-completions provider's embeddings: each request's text one input, outputDimensionality as dimensions, the answer in Google's shape", async () => {
      const batch = await ai.models.embedContent({
        model: 'openai/text-embedding-3-small',
        contents: ['one', 'two'],
        config: { outputDimensionality: 4, taskType: 'RETRIEVAL_DOCUMENT' },
      })
      const sent = openai.received.at(-1)!
      assert.equal(sent.path, '/v1/embeddings')
      assert.deepEqual([sent.body.model, sent.body.input, sent.body.dimensions], ['text-embedding-3-small', ['one', 'two'], 4])
      assert.deepEqual(
        batch.embeddings?.map((e) => e.values),
        [fakeEmbedding('one', 4), fakeEmbedding('two', 4)],
      )
      const record = await waitForRecord(running.gateway, batch.sdkHttpResponse!.headers!['x-gw-request-id'])
      assert.equal(record.endpoint, 'embedContent')
      assert.ok(record.cost?.priced)
      assert.ok(
        record.ignored.some((d) => d.name === 'requests[0].taskType'),
        JSON.stringify(record.ignored),
      )
    })

    it('estimates a token count where the provider cannot count, calling nobody', async () => {
      const before = openai.received.length
      const counted = await ai.models.countTokens({ model: 'openai/gpt-4o-mini', contents: 'How many tokens is this?' })
      assert.ok((counted.totalTokens ?? 0) > 0)
      assert.equal(openai.received.length, before)
    })
  })

  describe("errors in Google's shape", () => {
    it('refuses a bad key with UNAUTHENTICATED and a body without contents with INVALID_ARGUMENT naming the field', async () => {
      const stranger = new GoogleGenAI({ apiKey: 'gw-not-a-key', httpOptions: { baseUrl: running.url } })
      const bad = await refusal(stranger.models.generateContent({ model: NATIVE, contents: 'Hi' }))
      assert.equal(bad.status, 401)
      assert.equal(bad.error.status, 'UNAUTHENTICATED')
      const res = await fetch(`${running.url}/v1beta/models/${NATIVE}:generateContent?key=${secret}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contents: 'nope' }),
      })
      assert.equal(res.status, 400)
      const body = (await res.json()) as { error: { status: string; message: string } }
      assert.equal(body.error.status, 'INVALID_ARGUMENT')
      assert.match(body.error.message, /^contents:/)
    })

    it("passes Google's refusal on in Google's shape, and an unknown method is NOT_FOUND", async () => {
      google.script({ kind: 'status', status: 429, retryDelay: '30s' })
      const limited = await refusal(ai.models.generateContent({ model: NATIVE, contents: 'Hi' }))
      assert.equal(limited.status, 429)
      assert.equal(limited.error.status, 'RESOURCE_EXHAUSTED')
      const unknown = await fetch(`${running.url}/v1beta/models/${NATIVE}:predict`, { method: 'POST', headers: { 'x-goog-api-key': secret }, body: '{}' })
      assert.equal(unknown.status, 404)
      assert.equal(((await unknown.json()) as { error: { status: string } }).error.status, 'NOT_FOUND')
    })
  })

  it("lists models in Google's shape, by page", async () => {
    const pager = await ai.models.list({ config: { pageSize: 2 } })
    const names: string[] = []
    for await (const m of pager) names.push(m.name!)
    assert.ok(names.includes(`models/${NATIVE}`), names.join(', '))
    assert.equal(new Set(names).size, names.length, 'no model twice across pages')
    const one = await ai.models.get({ model: NATIVE })
    assert.ok(one.supportedActions?.includes('generateContent'))
  })
})
