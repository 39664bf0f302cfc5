import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { builtinCatalog } from '../../src/gateway/pricing/catalog'
import { priceInPico } from '../../src/gateway/pricing/priceUsage'
import { withExtras } from '../../src/gateway/pricing/usage'
import { geminiSearchCalls, normalizeGeminiUsage } from '../../src/gateway/providers/gemini/usage'

/** A thinking model's answer that used Google Search and a cached context: every count Google reports. */
const usageMetadata = {
  promptTokenCount: 12_000,
  cachedContentTokenCount: 8_000,
  toolUsePromptTokenCount: 500,
  candidatesTokenCount: 700,
  thoughtsTokenCount: 1_300,
  totalTokenCount: 14_500,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: 12_000 }],
  cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 8_000 }],
}

const grounded = {
  candidates: [
    {
      content: { role: 'model', parts: [{ text: 'Oslo is 4 °C and cloudy.' }] },
      finishReason: 'STOP',
      groundingMetadata: {
        webSearchQueries: ['weather Oslo today', 'Oslo forecast', 'Oslo temperature now'],
        groundingChunks: [{ web: { uri: 'https://example.test/oslo', title: 'example.test' } }],
      },
    },
  ],
  usageMetadata,
}

describe('Gemini’s native usage in OpenAI’s convention', () => {
  it('prompt holds the cached and tool-use tokens, completion the candidates and the thoughts', () => {
    assert.deepEqual(normalizeGeminiUsage(usageMetadata), {
      prompt_tokens: 12_500, // 12,000 (cached 8,000 inside) + 500 tool use
      completion_tokens: 2_000, // 700 + 1,300 thoughts
      total_tokens: 14_500,
      cached_tokens: 8_000,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 1_300,
    })
  })

  it('counts Google leaves out (zeros are not written) as 0, and totals them when it sends no total', () => {
    assert.deepEqual(normalizeGeminiUsage({ promptTokenCount: 8, candidatesTokenCount: 12, totalTokenCount: 20 }), {
      prompt_tokens: 8,
      completion_tokens: 12,
      total_tokens: 20,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
    })
    // A stream's running usage on an early chunk: the prompt alone.
    assert.deepEqual(normalizeGeminiUsage({ promptTokenCount: 31 }), {
      prompt_tokens: 31,
      completion_tokens: 0,
      total_tokens: 31,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
    })
    const noTotal = normalizeGeminiUsage({ promptTokenCount: 40, candidatesTokenCount: 2, thoughtsTokenCount: 90 })!
    assert.deepEqual([noTotal.completion_tokens, noTotal.total_tokens], [92, 132])
  })

  it('is null without any count', () => {
    for (const none of [undefined, null, {}, [], 'usage', { promptTokensDetails: [] }, { promptTokenCount: null }]) {
      assert.equal(normalizeGeminiUsage(none), null, JSON.stringify(none))
    }
  })

  it('names a count that cannot be one instead of billing it', () => {
    const u = normalizeGeminiUsage({ promptTokenCount: 100, candidatesTokenCount: -5, thoughtsTokenCount: 2.5, totalTokenCount: 'lots' })!
    assert.deepEqual([u.prompt_tokens, u.completion_tokens, u.reasoning_tokens, u.total_tokens], [100, 0, 0, 0])
    assert.match(u.anomaly!, /thoughtsTokenCount = 2\.5, candidatesTokenCount = -5, totalTokenCount = "lots"/)
    assert.equal(normalizeGeminiUsage(usageMetadata)!.anomaly, undefined)
  })
})

describe('Gemini’s grounding searches', () => {
  it('are the queries each candidate ran, as Gemini 3 bills them', () => {
    assert.equal(geminiSearchCalls(grounded), 3)
    const two = { candidates: [grounded.candidates[0], { groundingMetadata: { webSearchQueries: ['one more'] } }, { groundingMetadata: {} }, {}] }
    assert.equal(geminiSearchCalls(two), 4)
    for (const none of [{ candidates: [{ content: { parts: [{ text: 'hi' }] } }] }, {}, null, { candidates: 'x' }]) {
      assert.equal(geminiSearchCalls(none), 0, JSON.stringify(none))
    }
  })

  it('price with the tokens to the pico', () => {
    const model = builtinCatalog.models.find((m) => m.provider === 'gemini' && m.model === 'gemini-3.1-pro-preview')!
    const usage = withExtras(normalizeGeminiUsage(grounded.usageMetadata)!, null, null, geminiSearchCalls(grounded))
    const priced = priceInPico({ model, usage, at: new Date('2026-11-21T12:00:00Z'), source: 'catalog 2026-11-21' })
    // gemini-3.1-pro-preview $2 in / $0.20 cached / $12 out, grounding $14 per 1,000 queries:
    //   (12,500 − 8,000) × 2,000,000 = 9,000,000,000
    // + 8,000 × 200,000               = 1,600,000,000
    // + 2,000 × 12,000,000            = 24,000,000,000
    // + 3 × 14,000,000,000            = 42,000,000,000
    //                                 = 76,600,000,000 pico
    assert.equal(priced.pico, 76_600_000_000n)
    assert.equal(priced.cost.final_usd, 0.0766)
    assert.equal(priced.cost.web_search_calls, 3)
    assert.equal(priced.cost.fees_usd, 0.042)
  })
})
