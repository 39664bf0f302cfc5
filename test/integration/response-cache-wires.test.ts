/**
 * The response cache on every wire, native and translated, whole and streamed, through each
 * API's official SDK: a repeat is answered from the cache in the wire's own shape (the same text,
 * streamed as the wire's events) and recorded as a hit of the first request, at $0.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini'
import { TEST_SECRET_KEY, testStoreFor } from '../support/harness'
import { databases } from '../support/storeFile'
import { tempDir } from '../support/tempDir'
import { collect } from '../support/genai'
import { waitUntil } from '../support/waitUntil'

const ASK = { 'X-Gw-Cache': '1h' }

describe('the response cache on every wire, through the official SDKs', () => {
  let chatOnly: FakeOpenAI
  let both: FakeOpenAI
  let anthropic: FakeAnthropic
  let google: FakeGemini
  let running: RunningGateway
  let dataDir: string
  let openai: OpenAI
  let claude: Anthropic
  let ai: GoogleGenAI
  let n = 0
  /** A prompt no other case sends, so each case's first call misses. */
  const fresh = () => `question ${++n}`
  const calls = () => chatOnly.received.length + both.received.length + anthropic.received.length + google.received.length

  let recorded = 0
  /** The record of the request just answered, once it is stored: a record is queued after the answer went out. */
  async function newest(): Promise<RequestRecord> {
    const gw = running.gateway
    await waitUntil(
      async () => {
        await gw.records.flushed()
        return (await gw.store.requests.count()) > recorded
      },
      { what: 'the request recorded' },
    )
    recorded++
    return (await gw.store.requests.list(1))[0]
  }

  /** Sends `ask` twice: the first reaches its provider, the second is the cache's, with the same text and a hit of the first on record. */
  async function repeats(ask: () => Promise<string>): Promise<void> {
    const before = calls()
    const first = await ask()
    const firstRecord = await newest()
    assert.equal(calls(), before + 1, 'the first request reaches its provider')
    assert.deepEqual(firstRecord.response_cache, { hit: false })
    assert.ok(first.length > 0)
    const second = await ask()
    const hit = await newest()
    assert.equal(calls(), before + 1, 'the repeat is answered by the cache')
    assert.equal(second, first)
    assert.equal(hit.outcome, 'ok')
    assert.deepEqual(hit.response_cache, { hit: true, request_id: firstRecord.id, saved_usd: firstRecord.cost?.final_usd ?? null })
    assert.equal(hit.cost?.final_usd, 0)
    assert.deepEqual(hit.usage?.completion_tokens, firstRecord.usage?.completion_tokens)
    assert.equal(hit.provider, firstRecord.provider)
  }

  before(async () => {
    chatOnly = await startFakeOpenAI()
    both = await startFakeOpenAI()
    anthropic = await startFakeAnthropic()
    google = await startFakeGemini()
    dataDir = tempDir()
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
      {
        env: {
          OPENAI_API_KEY: chatOnly.apiKey,
          GROQ_API_KEY: both.apiKey,
          ANTHROPIC_API_KEY: anthropic.apiKey,
          GEMINI_API_KEY: google.apiKey,
          GW_SECRET_KEY: TEST_SECRET_KEY,
        },
        routing: { maxRetries: 0 },
      },
    )
    const store = running.gateway.store
    await store.providers.upsert('openai', 'openai', chatOnly.url, {}, 'chat')
    await store.providers.upsert('groq', 'openai', both.url, {}, 'both')
    await store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await store.providers.upsert('gemini', 'gemini', `${google.url}/v1beta`)
    const secret = (await store.keys.create('wires')).secret
    await running.gateway.configChanged()
    openai = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: secret, maxRetries: 0, defaultHeaders: ASK })
    claude = new Anthropic({ baseURL: running.url, apiKey: secret, maxRetries: 0, defaultHeaders: ASK })
    ai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: running.url, headers: ASK } })
  })

  after(async () => {
    await running?.close()
    await Promise.all([chatOnly?.close(), both?.close(), anthropic?.close(), google?.close()])
    fs.rmSync(dataDir, { recursive: true, force: true })
    databases.delete(dataDir)
  })

  const chat = async (model: string, stream: boolean) => {
    const messages = [{ role: 'user' as const, content: fresh() }]
    return async () => {
      if (!stream) return (await openai.chat.completions.create({ model, messages })).choices[0].message.content ?? ''
      let text = ''
      for await (const c of await openai.chat.completions.create({ model, messages, stream: true })) text += c.choices[0]?.delta?.content ?? ''
      return text
    }
  }

  const messages = async (model: string, stream: boolean) => {
    const body = { model, max_tokens: 100, messages: [{ role: 'user' as const, content: fresh() }] }
    return async () => {
      if (!stream) return (await claude.messages.create(body)).content.map((b) => (b.type === 'text' ? b.text : '')).join('')
      let text = ''
      for await (const ev of await claude.messages.create({ ...body, stream: true })) {
        if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text
      }
      return text
    }
  }

  const responses = async (model: string, stream: boolean) => {
    const input = fresh()
    return async () => {
      if (!stream) return (await openai.responses.create({ model, input })).output_text
      let text = ''
      for await (const ev of await openai.responses.create({ model, input, stream: true })) if (ev.type === 'response.output_text.delta') text += ev.delta
      return text
    }
  }

  const gemini = async (model: string, stream: boolean) => {
    const contents = fresh()
    return async () => {
      if (!stream) return (await ai.models.generateContent({ model, contents })).text ?? ''
      return (await collect(await ai.models.generateContentStream({ model, contents }))).map((c) => c.text ?? '').join('')
    }
  }

  for (const stream of [false, true]) {
    const how = stream ? 'streamed' : 'whole'
    it(`chat completions, native to OpenAI and translated to Anthropic, ${how}`, async () => {
      await repeats(await chat('openai/gpt-4o-mini', stream))
      await repeats(await chat('anthropic/claude-sonnet-4-5', stream))
    })
    it(`Messages, native to Anthropic and translated to OpenAI, ${how}`, async () => {
      await repeats(await messages('anthropic/claude-sonnet-4-5', stream))
      await repeats(await messages('openai/gpt-4o-mini', stream))
    })
    it(`Responses, native to a provider serving it and translated to chat completions and to Anthropic, ${how}`, async () => {
      await repeats(await responses('groq/gpt-4o-mini', stream))
      await repeats(await responses('openai/gpt-4o-mini', stream))
      await repeats(await responses('anthropic/claude-sonnet-4-5', stream))
    })
    it(`Gemini's generateContent, native to Google and translated to OpenAI and Anthropic, ${how}`, async () => {
      await repeats(await gemini('gemini/gemini-2.5-flash', stream))
      await repeats(await gemini('openai/gpt-4o-mini', stream))
      await repeats(await gemini('anthropic/claude-sonnet-4-5', stream))
    })
  }
})
