/**
 * A native request's body goes to the provider as the client's own bytes where the gateway changed
 * nothing in it, and serialised again from what the gateway checked wherever it changed anything
 * (the model, a token limit a key's policy fills in, a field inside a value) or where the text
 * could mean something else to the provider than to the gateway (a key written twice or escaped).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { TEST_SECRET_KEY, testStoreFor } from '../support/harness'
import { databases } from '../support/storeFile'
import { tempDir } from '../support/tempDir'

describe("the client's body text, sent upstream as it came where nothing changed it", () => {
  let anthropic: FakeAnthropic
  let google: FakeGemini
  let openai: FakeOpenAI
  let running: RunningGateway
  let dataDir: string
  let free: string
  let capped: string

  before(async () => {
    anthropic = await startFakeAnthropic()
    google = await startFakeGemini()
    openai = await startFakeOpenAI()
    dataDir = tempDir()
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
      {
        env: { ANTHROPIC_API_KEY: anthropic.apiKey, GEMINI_API_KEY: google.apiKey, OPENAI_API_KEY: openai.apiKey, GW_SECRET_KEY: TEST_SECRET_KEY },
        routing: { maxRetries: 0 },
      },
    )
    const store = running.gateway.store
    await store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await store.providers.upsert('gemini', 'gemini', `${google.url}/v1beta`)
    await store.providers.upsert('openai', 'openai', openai.url)
    free = (await store.keys.create('free')).secret
    capped = (await store.keys.create('capped', { policy: { max_tokens: 7 } })).secret
    await running.gateway.configChanged()
  })

  after(async () => {
    await running?.close()
    await Promise.all([anthropic?.close(), google?.close(), openai?.close()])
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    databases.delete(dataDir)
  })

  const post = async (path: string, key: string, text: string) => {
    const res = await fetch(`${running.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: text,
    })
    assert.equal(res.status, 200, await res.clone().text())
    await res.text()
  }
  const messages = (key: string, text: string) => post('/v1/messages', key, text)
  const generate = (key: string, text: string) => post('/v1beta/models/gemini-2.5-flash:generateContent', key, text)

  /** A system prompt that makes the body large enough for its text to be read (smaller ones are serialised again: core/clientText.ts). */
  const long = 'Answer in one short sentence. '.repeat(160)
  /** What no serialiser writes: spaces, a number as `1.0`, a character escaped that needs no escape, a key order of its own. */
  const messagesText = (model: string, extra = '') =>
    `{ "system": "${long}", "messages" : [ {"role":"user","content":"caf\\u00e9 \\"quoted\\" \\\\ ok"} ],\n  "temperature": 1.0, ${extra}"model": "${model}", "metadata": {"user_id": "u"} }`

  it('sends a Messages body the gateway left alone byte for byte, native to Anthropic', async () => {
    const text = messagesText('claude-sonnet-4-5', '"max_tokens": 64, ')
    await messages(free, text)
    assert.equal(anthropic.received.at(-1)!.text, text)
  })

  it('sends the text without the byte-order mark a client put before it, as the gateway read it', async () => {
    const text = messagesText('claude-sonnet-4-5', '"max_tokens": 64, ')
    await messages(free, `\ufeff${text}`)
    assert.equal(anthropic.received.at(-1)!.text, text)
  })

  it('serialises it again when the model is rewritten, and when a policy fills in the token limit', async () => {
    await messages(free, messagesText('anthropic/claude-sonnet-4-5', '"max_tokens": 64, '))
    const renamed = anthropic.received.at(-1)!
    assert.equal(renamed.text, JSON.stringify(renamed.body))
    assert.equal(renamed.body.model, 'claude-sonnet-4-5')
    assert.equal(renamed.body.temperature, 1)

    await messages(capped, messagesText('claude-sonnet-4-5'))
    const filled = anthropic.received.at(-1)!
    assert.equal(filled.body.max_tokens, 7)
    assert.equal(filled.text, JSON.stringify(filled.body))
  })

  it('serialises it again when a key is written twice or escaped, so the provider reads what the gateway checked', async () => {
    // The gateway (as JSON.parse) keeps the last of a repeated key; a provider could keep the first.
    await messages(free, messagesText('claude-sonnet-4-5', '"max_tokens": 5000, "max_tokens": 64, '))
    const twice = anthropic.received.at(-1)!
    assert.equal(twice.body.max_tokens, 64)
    assert.equal(twice.text.match(/"max_tokens"/g)?.length, 1)

    await messages(free, messagesText('claude-sonnet-4-5', '"max_tok\\u0065ns": 64, '))
    const escaped = anthropic.received.at(-1)!
    assert.equal(escaped.body.max_tokens, 64)
    assert.equal(escaped.text, JSON.stringify(escaped.body))

    // Inside a message too: the gateway estimates the prompt from what it parsed.
    await messages(free, `{"model":"claude-sonnet-4-5","max_tokens":64,"system":"${long}","messages":[{"role":"user","content":"long","content":"hi"}]}`)
    assert.deepEqual(anthropic.received.at(-1)!.body.messages, [{ role: 'user', content: 'hi' }])
    assert.equal(anthropic.received.at(-1)!.text.match(/"content"/g)?.length, 1)
  })

  it("sends Google's body as written, and a policy's limit inside generationConfig without losing what was there", async () => {
    const text = `{"systemInstruction": {"parts": [{"text": "${long}"}]}, "contents": [{"role": "user", "parts": [{"text": "Hi"}]}], "generationConfig": {"temperature": 0.5}}`
    await generate(free, text)
    assert.equal(google.received.at(-1)!.text, text)

    await generate(capped, text)
    const filled = google.received.at(-1)!
    assert.deepEqual(filled.body.generationConfig, { temperature: 0.5, maxOutputTokens: 7 })
    assert.equal(filled.text, JSON.stringify(filled.body))

    // The limit set on a copy: the next request without the policy still goes as it came.
    await generate(free, text)
    assert.equal(google.received.at(-1)!.text, text)
  })

  it('sends chat completions and Responses bodies as written to OpenAI, but a chat stream, which the gateway asks for its usage', async () => {
    const chat = (extra: string) =>
      `{"model": "gpt-4o-mini", "messages": [{"role": "system", "content": "${long}"}, {"role": "user", "content": "Hi"}]${extra}}`
    await post('/v1/chat/completions', free, chat(', "temperature": 1.0'))
    assert.equal(openai.received.at(-1)!.text, chat(', "temperature": 1.0'))

    await post('/v1/chat/completions', free, chat(', "stream": true'))
    const streamed = openai.received.at(-1)!
    assert.deepEqual(streamed.body.stream_options, { include_usage: true })
    assert.equal(streamed.text, JSON.stringify(streamed.body))

    const responses = `{"model": "gpt-4o-mini", "instructions": "${long}", "input": "Hi", "store": false}`
    await post('/v1/responses', free, responses)
    assert.equal(openai.received.at(-1)!.text, responses)
  })
})
