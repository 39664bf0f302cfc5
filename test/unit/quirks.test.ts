import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { ProviderDialect } from '../../src/contract/providers'
import { openaiAdapter } from '../../src/gateway/providers/openai/adapter'
import { dialectOf, quirksOf } from '../../src/gateway/providers/quirks'
import { ProviderRegistry } from '../../src/gateway/providers/registry'
import { Redactor } from '../../src/gateway/secrets/redactor'
import type { ProviderRow } from '../../src/gateway/store/providersRepo'
import { MemorySecretStore } from '../support/memorySecretStore'

const provider = (id: string, baseUrl: string, dialect: ProviderDialect | null = null, kind = 'openai') => ({ id, kind, baseUrl, dialect })
const row = (id: string, base_url: string | null, dialect: ProviderDialect | null = null): ProviderRow => ({
  id,
  kind: 'openai',
  base_url,
  created_at: 0,
  updated_at: 0,
  timeouts: '{}',
  wire: null,
  dialect,
})

describe('provider quirks, from what a provider is', () => {
  it("its base URL's host tells the dialect when none is set, whatever the id", () => {
    const cases: Array<[string, ProviderDialect]> = [
      ['https://api.openai.com/v1', 'openai'],
      ['https://API.OpenAI.com/v1/', 'openai'],
      ['https://eu.api.openai.com/v1', 'openai'],
      ['https://my-resource.openai.azure.com/openai/v1', 'openai'],
      ['https://generativelanguage.googleapis.com/v1beta/openai', 'gemini'],
      ['https://api.x.ai/v1', 'xai'],
      ['https://api.mistral.ai/v1', 'generic'],
      // Not OpenAI's host, only a name that contains it.
      ['https://api.openai.com.example.net/v1', 'generic'],
      ['http://127.0.0.1:11434/v1', 'generic'],
      ['not a url', 'generic'],
    ]
    for (const [url, dialect] of cases) assert.equal(dialectOf(provider('openai-eu', url)), dialect, url)
    // The id plays no part: `openai` at Mistral's address is not OpenAI, `grok` at xAI's is xAI.
    assert.equal(dialectOf(provider('openai', 'https://api.mistral.ai/v1')), 'generic')
    assert.equal(dialectOf(provider('grok', 'https://api.x.ai/v1')), 'xai')
  })

  it('a dialect set for a provider wins over its host (a proxy, or a server the host misleads about); other kinds have none', () => {
    assert.equal(dialectOf(provider('corp-proxy', 'https://llm.corp.example/openai/v1', 'openai')), 'openai')
    assert.equal(dialectOf(provider('openai-compat', 'https://api.openai.com/v1', 'generic')), 'generic')
    assert.equal(dialectOf(provider('claude', 'https://api.openai.com/v1', null, 'anthropic')), null)
  })

  it('each dialect has its quirks: the token-limit field, where reasoning is counted, Gemini bodies', () => {
    const q = (dialect: ProviderDialect) => quirksOf(provider('p', 'http://127.0.0.1/v1', dialect))
    assert.deepEqual(q('openai'), { limitField: 'max_completion_tokens', reasoning: 'inside', geminiBody: false, promptCacheKey: true })
    assert.deepEqual(q('gemini'), { limitField: 'max_tokens', reasoning: 'outside', geminiBody: true, promptCacheKey: false })
    assert.deepEqual(q('xai'), { limitField: 'max_tokens', reasoning: 'outside', geminiBody: false, promptCacheKey: false })
    assert.deepEqual(q('generic'), { limitField: 'max_tokens', reasoning: 'inside', geminiBody: false, promptCacheKey: false })
    assert.equal(quirksOf(provider('claude', 'https://api.anthropic.com/v1', null, 'anthropic')).limitField, 'max_tokens')
  })

  it('built-in providers keep their dialect wherever their base URL points; an added one has the one stored, else its host’s', () => {
    const registry = new ProviderRegistry(new MemorySecretStore(), {})
    const dialects = () => Object.fromEntries(registry.all().map((p) => [p.id, dialectOf(p)]))
    assert.deepEqual(Object.fromEntries(['openai', 'gemini', 'xai', 'mistral', 'anthropic'].map((id) => [id, dialects()[id]])), {
      openai: 'openai',
      gemini: 'gemini',
      xai: 'xai',
      mistral: 'generic',
      anthropic: null,
    })
    registry.reload([
      row('openai', 'http://127.0.0.1:9/v1'),
      row('openai-eu', 'http://127.0.0.1:9/v1', 'openai'),
      row('eu-direct', 'https://eu.api.openai.com/v1'),
      row('vllm', 'https://llm.corp.example/v1'),
      row('gateway-in-front', 'https://api.openai.com/v1', 'generic'),
    ])
    const now = dialects()
    assert.equal(now.openai, 'openai', 'the built-in pointed at a proxy or a test fake is still OpenAI')
    assert.equal(now['openai-eu'], 'openai')
    assert.equal(now['eu-direct'], 'openai', "OpenAI's regional host is OpenAI's")
    assert.equal(now.vllm, 'generic', 'a host other than the ones known says nothing')
    assert.equal(now['gateway-in-front'], 'generic')
  })

  it("usage is read in the provider's dialect: xAI's reasoning outside completion_tokens counts under any id", () => {
    // xAI: completion 637, reasoning 900 beside it, both inside total_tokens.
    const answer = () => ({
      choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 100, completion_tokens: 637, total_tokens: 1_637, completion_tokens_details: { reasoning_tokens: 900 } },
    })
    const completion = (p: ReturnType<typeof provider>) => openaiAdapter.chatResponse(answer(), p).usage?.completion_tokens
    assert.equal(completion(provider('grok', 'https://api.x.ai/v1')), 1_537)
    assert.equal(completion(provider('xai', 'http://127.0.0.1:9/v1')), 637, 'the id xai alone says nothing')
    assert.equal(completion(provider('xai-proxy', 'http://127.0.0.1:9/v1', 'xai')), 1_537)
    const streamed = openaiAdapter
      .streamTranslator(provider('grok', 'https://api.x.ai/v1'), new Redactor())
      .event({ event: null, data: JSON.stringify({ choices: [], usage: answer().usage }) })
    assert.equal(streamed.usage?.completion_tokens, 1_537)
  })
})
