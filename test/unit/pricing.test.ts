import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { builtinCatalog } from '../../src/gateway/pricing/catalog'
import { catalogModel, holidayCalendar, priceRow } from '../../src/contract/prices'
import { PriceBook } from '../../src/gateway/pricing/priceBook'
import type { PriceOverride } from '../../src/gateway/store/pricesRepo'
import { describeIssues } from '../../src/contract/presets'
import { picoToUsd, priceUsage, ratesAt, usdPer1MToPicoPerToken } from '../../src/gateway/pricing/priceUsage'
import type { CatalogModel, NormalizedUsage } from '../../src/gateway/pricing/types'
import { normalizeResponsesUsage, normalizeUsage } from '../../src/gateway/pricing/usage'
import { normalizeAnthropicUsage } from '../../src/gateway/providers/anthropic/usage'

// Rates below are written in pico-dollars per token: $1/1M tokens = 1,000,000 pico per token.

const SOURCE = 'catalog 2026-11-21'
const TODAY = new Date('2026-11-21T12:00:00Z')

function model(provider: string, name: string): CatalogModel {
  const m = builtinCatalog.models.find((e) => e.provider === provider && e.model === name)
  assert.ok(m, `${provider}/${name} is in the catalog`)
  return m
}

function usage(u: Partial<NormalizedUsage> & { prompt_tokens: number; completion_tokens: number }): NormalizedUsage {
  return {
    total_tokens: u.prompt_tokens + u.completion_tokens,
    cached_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: 0,
    ...u,
  }
}

const price = (m: CatalogModel, u: NormalizedUsage, at = TODAY) => priceUsage({ model: m, usage: u, at, source: SOURCE })

describe('unit conversion', () => {
  it('turns USD per 1M into integer pico per token and back', () => {
    assert.equal(usdPer1MToPicoPerToken(0.0375), 37_500)
    assert.equal(usdPer1MToPicoPerToken(0.003), 3_000)
    assert.equal(usdPer1MToPicoPerToken(1.2 * 1.5), 1_800_000) // 1.7999999999999998 in floating point
    assert.equal(picoToUsd(435_000_000), 0.000435)
  })
})

describe('priceUsage: OpenAI', () => {
  it('prices a plain chat request', () => {
    // gpt-6.1-sol $2 in / $10 out: 1,000 × 2,000,000 = 2e9 pico; 500 × 10,000,000 = 5e9 pico
    const c = price(model('openai', 'gpt-6.1-sol'), usage({ prompt_tokens: 1_000, completion_tokens: 500 }))
    assert.equal(c.priced, true)
    assert.equal(c.unpriced_reason, null)
    assert.equal(c.input_usd, 0.002)
    assert.equal(c.output_usd, 0.005)
    assert.equal(c.cached_input_usd, 0)
    assert.equal(c.cache_write_usd, 0)
    assert.equal(c.cache_savings_usd, 0)
    assert.equal(c.final_usd, 0.007) // 2e9 + 5e9 = 7e9 pico
    assert.equal(c.price_source, SOURCE)
    assert.equal(c.long_context, false)
    assert.equal(c.estimated, false)
  })

  it('bills cached tokens at the cached rate, exactly', () => {
    // gpt-4o-mini $0.15 / cached $0.075 / out $0.60
    const c = price(model('openai', 'gpt-4o-mini'), usage({ prompt_tokens: 1_000, cached_tokens: 200, completion_tokens: 500 }))
    assert.equal(c.input_usd, 0.00012) // 800 uncached × 150,000 = 120,000,000 pico
    assert.equal(c.cached_input_usd, 0.000015) // 200 × 75,000 = 15,000,000 pico
    assert.equal(c.output_usd, 0.0003) // 500 × 600,000 = 300,000,000 pico
    assert.equal(c.final_usd, 0.000435) // 120e6 + 15e6 + 300e6 = 435,000,000 pico
    assert.equal(c.cache_savings_usd, 0.000015) // 200 × (150,000 − 75,000) = 15,000,000 pico
    assert.equal(c.cached_tokens, 200)
  })

  it('charges the GPT-5.6+ cache write', () => {
    // gpt-6.1-terra $1 / cached $0.05 / write $1.25 / out $5
    const c = price(
      model('openai', 'gpt-6.1-terra'),
      usage({ prompt_tokens: 10_000, cached_tokens: 4_000, cache_write_tokens: 2_000, completion_tokens: 1_000 }),
    )
    assert.equal(c.input_usd, 0.004) // (10,000 − 4,000 − 2,000) × 1,000,000 = 4e9
    assert.equal(c.cached_input_usd, 0.0002) // 4,000 × 50,000 = 2e8
    assert.equal(c.cache_write_usd, 0.0025) // 2,000 × 1,250,000 = 2.5e9
    assert.equal(c.output_usd, 0.005) // 1,000 × 5,000,000 = 5e9
    assert.equal(c.final_usd, 0.0117) // 4e9 + 2e8 + 2.5e9 + 5e9 = 1.17e10
    assert.equal(c.cache_savings_usd, 0.0033) // 4,000 × 950,000 − 2,000 × 250,000 = 3.8e9 − 5e8 = 3.3e9
    assert.equal(c.cache_write_tokens, 2_000)
  })

  it('applies the whole-request long-context tier only above 272,000 prompt tokens', () => {
    const sol = model('openai', 'gpt-6.1-sol') // short 2 / 0.10 / 10, long 4 / 0.20 / 15
    const short = price(sol, usage({ prompt_tokens: 272_000, cached_tokens: 72_000, completion_tokens: 1_000 }))
    assert.equal(short.long_context, false)
    assert.equal(short.input_usd, 0.4) // 200,000 × 2,000,000 = 4e11
    assert.equal(short.cached_input_usd, 0.0072) // 72,000 × 100,000 = 7.2e9
    assert.equal(short.output_usd, 0.01) // 1,000 × 10,000,000 = 1e10
    assert.equal(short.final_usd, 0.4172) // 4e11 + 7.2e9 + 1e10 = 4.172e11
    assert.equal(short.price_source, SOURCE)

    const long = price(sol, usage({ prompt_tokens: 272_001, cached_tokens: 72_001, completion_tokens: 1_000 }))
    assert.equal(long.long_context, true)
    assert.equal(long.input_usd, 0.8) // 200,000 × 4,000,000 = 8e11
    assert.equal(long.cached_input_usd, 0.0144002) // 72,001 × 200,000 = 14,400,200,000
    assert.equal(long.output_usd, 0.015) // 1,000 × 15,000,000 = 1.5e10
    assert.equal(long.final_usd, 0.8294002) // 8e11 + 14,400,200,000 + 1.5e10 = 829,400,200,000
    assert.equal(long.price_source, `${SOURCE} (long context)`)
  })

  it('bills GPT-5.6 Sol at the promo through 2026-11-21 and at list from 2026-11-22', () => {
    const sol = model('openai', 'gpt-5.6-sol')
    assert.ok(sol.aliases?.includes('gpt-5.6'))
    const u = usage({ prompt_tokens: 1_000, completion_tokens: 1_000 })
    // promo $4 / $20: 1,000 × 4,000,000 + 1,000 × 20,000,000 = 2.4e10
    assert.equal(price(sol, u, new Date('2026-11-21T23:59:59Z')).final_usd, 0.024)
    // list $5 / $30: 1,000 × 5,000,000 + 1,000 × 30,000,000 = 3.5e10
    assert.equal(price(sol, u, new Date('2026-11-22T00:00:00Z')).final_usd, 0.035)

    // the list row brings its own long-context rates: 300,000 × 10,000,000 + 1,000 × 45,000,000 = 3.045e12
    const long = price(sol, usage({ prompt_tokens: 300_000, completion_tokens: 1_000 }), new Date('2026-11-22T00:00:00Z'))
    assert.equal(long.final_usd, 3.045)
    assert.deepEqual(ratesAt(sol, new Date('2026-11-21T00:00:00Z'), 300_000), {
      rates: { input: 8, cached_input: 0.8, cache_write: 10, output: 30 },
      tier: 'long context',
    })
    assert.deepEqual(ratesAt(sol, new Date('2026-11-22T00:00:00Z'), 1_000), {
      rates: { input: 5, cached_input: 0.5, cache_write: 6.25, output: 30 },
      tier: null,
    })
  })
})

describe('priceUsage: Anthropic', () => {
  it('bills 5-minute and 1-hour cache writes at their own rates', () => {
    // claude-opus-5-5: $4 in / 5m write $5 / 1h write $8 / read $0.20 / out $20
    const c = price(
      model('anthropic', 'claude-opus-5-5'),
      usage({ prompt_tokens: 10_000, cached_tokens: 3_000, cache_write_tokens: 4_000, cache_write_1h_tokens: 1_000, completion_tokens: 2_000 }),
    )
    assert.equal(c.input_usd, 0.012) // (10,000 − 3,000 − 4,000) × 4,000,000 = 1.2e10
    assert.equal(c.cached_input_usd, 0.0006) // 3,000 × 200,000 = 6e8
    assert.equal(c.cache_write_usd, 0.023) // 3,000 × 5,000,000 + 1,000 × 8,000,000 = 1.5e10 + 8e9 = 2.3e10
    assert.equal(c.output_usd, 0.04) // 2,000 × 20,000,000 = 4e10
    assert.equal(c.final_usd, 0.0756) // 1.2e10 + 6e8 + 2.3e10 + 4e10 = 7.56e10
    // 3,000 × 3,800,000 − (2.3e10 − 4,000 × 4,000,000) = 1.14e10 − 7e9 = 4.4e9
    assert.equal(c.cache_savings_usd, 0.0044)
  })

  it('reports negative savings when a request only writes the cache', () => {
    // claude-haiku-4-5: $1 in, 5m write $1.25: 5,000 × 1,250,000 = 6.25e9; premium 5,000 × 250,000 = 1.25e9
    const c = price(model('anthropic', 'claude-haiku-4-5'), usage({ prompt_tokens: 5_000, cache_write_tokens: 5_000, completion_tokens: 0 }))
    assert.equal(c.input_usd, 0)
    assert.equal(c.cache_write_usd, 0.00625)
    assert.equal(c.cache_savings_usd, -0.00125)
    assert.equal(c.final_usd, 0.00625)
  })

  it('bills all five Haiku 5.5 rates x5 once the prompt exceeds 100,000 tokens', () => {
    const haiku = model('anthropic', 'claude-haiku-5-5')
    const u = (uncached: number) =>
      usage({
        prompt_tokens: uncached + 40_000,
        cached_tokens: 20_000,
        cache_write_tokens: 20_000,
        cache_write_1h_tokens: 5_000,
        completion_tokens: 1_000,
      })
    // short rates 100,000 / 5m 125,000 / 1h 200,000 / read 10,000 / out 500,000:
    // 60,000 × 100,000 + 20,000 × 10,000 + 15,000 × 125,000 + 5,000 × 200,000 + 1,000 × 500,000
    // = 6e9 + 2e8 + 1.875e9 + 1e9 + 5e8 = 9.575e9
    const short = price(haiku, u(60_000))
    assert.equal(short.long_context, false)
    assert.equal(short.final_usd, 0.009575)
    // long rates 500,000 / 625,000 / 1,000,000 / 50,000 / 2,500,000:
    // 60,001 × 500,000 + 20,000 × 50,000 + 15,000 × 625,000 + 5,000 × 1,000,000 + 1,000 × 2,500,000
    // = 30,000,500,000 + 1e9 + 9.375e9 + 5e9 + 2.5e9 = 47,875,500,000
    const long = price(haiku, u(60_001))
    assert.equal(long.long_context, true)
    assert.equal(long.input_usd, 0.0300005)
    assert.equal(long.cache_write_usd, 0.014375)
    assert.equal(long.final_usd, 0.0478755)
    assert.equal(long.price_source, `${SOURCE} (long context)`)
  })
})

describe('priceUsage: other providers', () => {
  it('doubles xAI rates at a 200,000-token prompt but not at 199,999', () => {
    const grok = model('xai', 'grok-4.7') // short 2 / 6, long 4 / 12
    const short = price(grok, usage({ prompt_tokens: 199_999, completion_tokens: 1_000 }))
    assert.equal(short.long_context, false)
    assert.equal(short.final_usd, 0.405998) // 199,999 × 2,000,000 + 1,000 × 6,000,000 = 399,998,000,000 + 6e9
    const long = price(grok, usage({ prompt_tokens: 200_000, completion_tokens: 1_000 }))
    assert.equal(long.long_context, true)
    assert.equal(long.final_usd, 0.812) // 200,000 × 4,000,000 + 1,000 × 12,000,000 = 8e11 + 1.2e10
  })

  it('doubles Gemini 4 Argon on 2026-12-01', () => {
    const argon = model('gemini', 'gemini-4-argon')
    const u = usage({ prompt_tokens: 10_000, cached_tokens: 2_000, completion_tokens: 1_000 })
    // $2 / cached $0.10 / $10: 8,000 × 2,000,000 + 2,000 × 100,000 + 1,000 × 10,000,000 = 1.6e10 + 2e8 + 1e10
    assert.equal(price(argon, u, new Date('2026-11-30T23:59:59Z')).final_usd, 0.0262)
    // $4 / cached $0.20 / $20: 8,000 × 4,000,000 + 2,000 × 200,000 + 1,000 × 20,000,000 = 3.2e10 + 4e8 + 2e10
    assert.equal(price(argon, u, new Date('2026-12-01T00:00:00Z')).final_usd, 0.0524)
  })

  it('doubles Gemini 3.6-3.8 Flash on 2027-01-01', () => {
    for (const name of ['gemini-3.6-flash', 'gemini-3.7-flash', 'gemini-3.8-flash']) {
      const m = model('gemini', name)
      assert.equal(ratesAt(m, new Date('2026-12-31T23:59:59Z'), 1).rates.input, 0.75)
      assert.deepEqual(ratesAt(m, new Date('2027-01-01T00:00:00Z'), 1).rates, { input: 1.5, cached_input: 0.15, output: 7.5 })
    }
  })

  it('bills DeepSeek at peak rates only inside weekday UTC windows', () => {
    const flash = model('deepseek', 'deepseek-flash')
    const u = usage({ prompt_tokens: 10_000, cached_tokens: 6_000, completion_tokens: 2_000 })
    // Monday 2026-11-23 07:00 UTC, peak $0.30 / hit $0.006 / out $1.20:
    // 4,000 × 300,000 + 6,000 × 6,000 + 2,000 × 1,200,000 = 1.2e9 + 3.6e7 + 2.4e9 = 3.636e9
    const peak = price(flash, u, new Date('2026-11-23T07:00:00Z'))
    assert.equal(peak.final_usd, 0.003636)
    assert.equal(peak.price_source, `${SOURCE} (peak)`)
    // off-peak $0.15 / $0.003 / $0.60: 4,000 × 150,000 + 6,000 × 3,000 + 2,000 × 600,000 = 6e8 + 1.8e7 + 1.2e9 = 1.818e9
    const noon = price(flash, u, new Date('2026-11-23T12:00:00Z'))
    assert.equal(noon.final_usd, 0.001818)
    assert.equal(noon.price_source, SOURCE)
    const saturday = price(flash, u, new Date('2026-11-28T07:00:00Z'))
    assert.equal(saturday.final_usd, 0.001818)

    const tierAt = (iso: string) => ratesAt(flash, new Date(iso), 1).tier
    assert.equal(tierAt('2026-11-23T00:59:59Z'), null)
    assert.equal(tierAt('2026-11-23T01:00:00Z'), 'peak')
    assert.equal(tierAt('2026-11-23T03:59:59Z'), 'peak')
    assert.equal(tierAt('2026-11-23T04:00:00Z'), null)
    assert.equal(tierAt('2026-11-23T06:00:00Z'), 'peak')
    assert.equal(tierAt('2026-11-23T10:00:00Z'), null)
  })

  it('bills cached tokens at the input rate when no cache-read rate is known', () => {
    // mistral-medium-3-5 $1.50 / $7.50, no cached rate: 1,000 × 1,500,000 + 100 × 7,500,000 = 1.5e9 + 7.5e8
    const c = price(model('mistral', 'mistral-medium-3-5'), usage({ prompt_tokens: 1_000, cached_tokens: 400, completion_tokens: 100 }))
    assert.equal(c.input_usd, 0.0009) // 600 × 1,500,000
    assert.equal(c.cached_input_usd, 0.0006) // 400 × 1,500,000
    assert.equal(c.cache_savings_usd, 0)
    assert.equal(c.final_usd, 0.00225)
  })
})

describe('priceUsage: embeddings, unknown prices, local and missing usage', () => {
  it('prices embeddings by input tokens alone', () => {
    // text-embedding-3-small $0.02: 12,345 × 20,000 = 246,900,000 pico
    const c = price(model('openai', 'text-embedding-3-small'), usage({ prompt_tokens: 12_345, completion_tokens: 0 }))
    assert.equal(c.priced, true)
    assert.equal(c.input_usd, 0.0002469)
    assert.equal(c.output_usd, 0)
    assert.equal(c.final_usd, 0.0002469)
  })

  it('refuses to price output tokens on a model without an output rate', () => {
    const c = price(model('gemini', 'gemini-embedding-2'), usage({ prompt_tokens: 100, completion_tokens: 5 }))
    assert.equal(c.priced, false)
    assert.match(c.unpriced_reason ?? '', /no output price/)
    assert.equal(c.final_usd, null)
  })

  it('leaves an unknown model unpriced, never $0', () => {
    const u = usage({ prompt_tokens: 100, cached_tokens: 10, completion_tokens: 50 })
    const c = priceUsage({ model: null, usage: u, at: TODAY, source: 'none', estimated: true })
    assert.equal(c.priced, false)
    assert.equal(c.unpriced_reason, 'no price known for this model')
    for (const k of ['input_usd', 'cached_input_usd', 'cache_write_usd', 'output_usd', 'cache_savings_usd', 'final_usd'] as const) {
      assert.equal(c[k], null, k)
    }
    assert.equal(c.price_source, null)
    assert.equal(c.prompt_tokens, 100)
    assert.equal(c.completion_tokens, 50)
    assert.equal(c.cached_tokens, 10)
    assert.equal(c.estimated, true)
    const custom = priceUsage({ model: null, usage: u, at: TODAY, source: 'none', unknownReason: 'set a price' })
    assert.equal(custom.unpriced_reason, 'set a price')
  })

  it('costs a local provider nothing', () => {
    const c = priceUsage({ model: null, usage: usage({ prompt_tokens: 100, completion_tokens: 50 }), at: TODAY, source: 'none', local: true })
    assert.equal(c.priced, true)
    assert.equal(c.unpriced_reason, null)
    assert.equal(c.final_usd, 0)
    assert.equal(c.input_usd, 0)
    assert.equal(c.output_usd, 0)
    assert.equal(c.price_source, 'local')
    assert.equal(c.prompt_tokens, 100)
  })

  it('leaves a request without usage unpriced', () => {
    const c = priceUsage({ model: model('openai', 'gpt-6.1-sol'), usage: null, at: TODAY, source: SOURCE })
    assert.equal(c.priced, false)
    assert.equal(c.unpriced_reason, 'provider reported no usage')
    assert.equal(c.prompt_tokens, 0)
    assert.equal(c.completion_tokens, 0)
    assert.equal(c.final_usd, null)
    assert.equal(c.input_usd, null)
  })
})

describe('normalizeResponsesUsage', () => {
  it('reads the Responses API shape: cached tokens inside the input, reasoning tokens inside the output', () => {
    const u = normalizeResponsesUsage({
      usage: {
        input_tokens: 1_000,
        input_tokens_details: { cached_tokens: 400 },
        output_tokens: 200,
        output_tokens_details: { reasoning_tokens: 50 },
        total_tokens: 1_200,
      },
    })
    assert.deepEqual(u, {
      prompt_tokens: 1_000,
      completion_tokens: 200,
      total_tokens: 1_200,
      cached_tokens: 400,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 50,
    })
  })

  it('is null without token counts, and flags counts that cannot be usage', () => {
    assert.equal(normalizeResponsesUsage(null), null)
    assert.equal(normalizeResponsesUsage({ usage: { total_tokens: 5 } }), null)
    const u = normalizeResponsesUsage({ usage: { input_tokens: 10, output_tokens: -3 } })!
    assert.equal(u.completion_tokens, 0)
    assert.match(u.anomaly!, /output_tokens = -3/)
  })
})

describe('normalizeUsage', () => {
  it('reads the OpenAI shape', () => {
    const u = normalizeUsage({
      prompt_tokens: 1_200,
      completion_tokens: 300,
      total_tokens: 1_500,
      prompt_tokens_details: { cached_tokens: 1_000, cache_write_tokens: 150, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 120 },
    })
    assert.deepEqual(u, {
      prompt_tokens: 1_200,
      completion_tokens: 300,
      total_tokens: 1_500,
      cached_tokens: 1_000,
      cache_write_tokens: 150,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 120,
    })
  })

  it('reads DeepSeek cache hits', () => {
    const u = normalizeUsage({
      prompt_tokens: 900,
      completion_tokens: 100,
      total_tokens: 1_000,
      prompt_cache_hit_tokens: 640,
      prompt_cache_miss_tokens: 260,
      completion_tokens_details: { reasoning_tokens: 40 },
    })
    assert.equal(u?.cached_tokens, 640)
    assert.equal(u?.reasoning_tokens, 40)
    // OpenAI's own field wins when a provider sends both
    assert.equal(
      normalizeUsage({ prompt_tokens: 10, completion_tokens: 1, prompt_cache_hit_tokens: 8, prompt_tokens_details: { cached_tokens: 5 } })?.cached_tokens,
      5,
    )
  })

  it('refuses counts that cannot be usage, naming them, and prices nothing from them', () => {
    const u = normalizeUsage({ prompt_tokens: 1e306, completion_tokens: -3, total_tokens: 7, completion_tokens_details: { reasoning_tokens: 1.5 } })!
    assert.equal(u.prompt_tokens, 0)
    assert.equal(u.completion_tokens, 0)
    assert.equal(u.reasoning_tokens, 0)
    assert.equal(
      u.anomaly,
      'the provider reported prompt_tokens = 1e+306, completion_tokens = -3, reasoning_tokens = 1.5; a token count is a whole number from 0 to 1,000,000,000',
    )
    const a = normalizeAnthropicUsage({ input_tokens: 10, output_tokens: 1e14, cache_read_input_tokens: '5' as unknown as number })
    assert.equal(a.prompt_tokens, 10)
    assert.match(a.anomaly!, /cache_read_input_tokens = "5", output_tokens = 100000000000000;/)
    const c = priceUsage({ model: model('openai', 'gpt-5.4'), usage: u, at: TODAY, source: SOURCE })
    assert.equal(c.priced, false)
    assert.equal(c.final_usd, null)
    assert.match(c.unpriced_reason!, /^the provider reported prompt_tokens = 1e\+306/)
    assert.equal(normalizeUsage({ prompt_tokens: 1_000_000_000, completion_tokens: 0 })!.anomaly, undefined)
  })

  it('defaults missing numbers to 0 and total to prompt + completion', () => {
    assert.deepEqual(normalizeUsage({ prompt_tokens: 7 }), {
      prompt_tokens: 7,
      completion_tokens: 0,
      total_tokens: 7,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
    })
    assert.equal(normalizeUsage({ prompt_tokens: 7, completion_tokens: 3, prompt_tokens_details: null })?.total_tokens, 10)
  })

  it('returns null when there is no usage', () => {
    assert.equal(normalizeUsage(undefined), null)
    assert.equal(normalizeUsage(null), null)
    assert.equal(normalizeUsage('12'), null)
    assert.equal(normalizeUsage([]), null)
    assert.equal(normalizeUsage({ total_tokens: 12 }), null)
  })
})

describe('builtin catalog', () => {
  it('is dated and well formed', () => {
    assert.match(builtinCatalog.as_of, /^\d{4}-\d{2}-\d{2}$/)
    assert.equal(builtinCatalog.as_of, '2026-11-21')
    const seen = new Set<string>()
    for (const m of builtinCatalog.models) {
      const id = `${m.provider}/${m.model}`
      assert.ok(['openai', 'anthropic', 'gemini', 'mistral', 'deepseek', 'xai', 'groq'].includes(m.provider), id)
      assert.ok(m.model, id)
      assert.ok(!seen.has(id), `${id} is listed once`)
      seen.add(id)
      assert.ok(m.input >= 0, id)
      if (m.kind === 'chat') assert.ok(m.output !== undefined && m.output >= 0, `${id} has an output price`)
      // The same schema checks every override: dates real, tiers whole, no unknown field.
      const parsed = catalogModel.safeParse(m)
      assert.ok(parsed.success, `${id}: ${parsed.success ? '' : describeIssues(parsed.error)}`)
      if (m.peak?.calendar) assert.ok(builtinCatalog.calendars[m.peak.calendar], `${id}: calendar ${m.peak.calendar} is shipped`)
      // Every rate must be a whole number of pico-dollars per token, or costs stop being exact.
      const tiers = [m, m.long_context, m.peak?.rates, ...(m.schedule ?? []), ...(m.schedule ?? []).map((s) => s.long_context)]
      for (const r of tiers) {
        for (const v of [r?.input, r?.output, r?.cached_input, r?.cache_write, r?.cache_write_1h]) {
          if (v !== undefined) assert.equal(Math.abs(v * 1e6 - usdPer1MToPicoPerToken(v)) < 1e-6, true, `${id} rate ${v}`)
        }
      }
    }
  })

  it('lists embeddings as embeddings and leaves out unpriced and shut-down models', () => {
    const ids = new Set(builtinCatalog.models.map((m) => `${m.provider}/${m.model}`))
    for (const id of [
      'openai/text-embedding-3-small',
      'openai/text-embedding-3-large',
      'openai/text-embedding-ada-002',
      'gemini/gemini-embedding-2',
      'gemini/gemini-embedding-001',
      'mistral/mistral-embed',
    ]) {
      assert.equal(builtinCatalog.models.find((m) => `${m.provider}/${m.model}` === id)?.kind, 'embedding', id)
    }
    for (const id of [
      'anthropic/claude-mythos-preview',
      'groq/qwen/qwen3.8-27b',
      'openai/o4-mini',
      'openai/gpt-4',
      'deepseek/deepseek-chat',
      'anthropic/claude-opus-4-1',
    ]) {
      assert.ok(!ids.has(id), `${id} is not priced`)
    }
    assert.ok(ids.has('groq/openai/gpt-oss-120b'))
  })
})

describe('reasoning tokens by provider convention', () => {
  it('bills xAI reasoning, reported outside completion_tokens, as output (the grok-4.7 case)', () => {
    // xAI's shape: completion_tokens is the visible answer; reasoning sits beside it, inside total_tokens.
    const raw = {
      prompt_tokens: 9_339,
      completion_tokens: 637,
      total_tokens: 10_876, // 9,339 + 637 + 900
      prompt_tokens_details: { text_tokens: 9_339, audio_tokens: 0, image_tokens: 0, cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 900, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      num_sources_used: 0,
    }
    const grok = model('xai', 'grok-4.7') // $2 in / $6 out
    const u = normalizeUsage(raw, 'outside')!
    assert.equal(u.completion_tokens, 1_537)
    assert.equal(u.reasoning_tokens, 900)
    // 9,339 × 2,000,000 + (637 + 900) × 6,000,000 = 18,678,000,000 + 9,222,000,000 = 2.79e10 pico
    assert.equal(price(grok, u).final_usd, 0.0279)
    // Read as OpenAI's convention it would be 9,339 × 2e6 + 637 × 6e6 = 2.25e10 pico: the $0.0225 of the issue.
    assert.equal(price(grok, normalizeUsage(raw, 'inside')!).final_usd, 0.0225)
  })

  it("takes xAI's reasoning count when a stream's usage has no total", () => {
    const u = normalizeUsage({ prompt_tokens: 32, completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 94 } }, 'outside')!
    assert.equal(u.completion_tokens, 103) // 9 + 94
  })

  it('adds nothing under the outside convention when the total already holds reasoning in completion_tokens (Gemini either way)', () => {
    // Gemini's OpenAI layer, thoughts folded into completion_tokens: total = prompt + completion.
    const folded = normalizeUsage(
      { prompt_tokens: 20, completion_tokens: 533, total_tokens: 553, completion_tokens_details: { reasoning_tokens: 382 } },
      'outside',
    )!
    assert.equal(folded.completion_tokens, 533)
    // Thoughts left out of completion_tokens and without a count: the total's gap is the reasoning.
    const apart = normalizeUsage({ prompt_tokens: 20, completion_tokens: 151, total_tokens: 553 }, 'outside')!
    assert.equal(apart.completion_tokens, 533) // 151 + (553 − 20 − 151)
    // gemini-3.8-flash $0.75 / $3.75: 20 × 750,000 + 533 × 3,750,000 = 1.5e7 + 1.99875e9 = 2.01375e9 pico, the same both ways
    const flash = model('gemini', 'gemini-3.8-flash')
    assert.equal(price(flash, folded).final_usd, 0.00201375)
    assert.equal(price(flash, apart).final_usd, 0.00201375)
  })

  it('keeps OpenAI and DeepSeek reasoning inside completion_tokens (nothing added)', () => {
    const openai = normalizeUsage({ prompt_tokens: 100, completion_tokens: 1_000, total_tokens: 1_100, completion_tokens_details: { reasoning_tokens: 800 } })!
    assert.equal(openai.completion_tokens, 1_000)
    const deepseek = normalizeUsage({
      prompt_tokens: 1_000,
      completion_tokens: 700,
      total_tokens: 1_700,
      prompt_cache_hit_tokens: 400,
      prompt_cache_miss_tokens: 600,
      completion_tokens_details: { reasoning_tokens: 500 },
    })!
    assert.equal(deepseek.completion_tokens, 700)
    assert.equal(deepseek.cached_tokens, 400)
    assert.equal(deepseek.reasoning_tokens, 500)
  })
})

describe('holiday calendars', () => {
  const flash = model('deepseek', 'deepseek-flash')
  const cn = builtinCatalog.calendars.cn
  const u = usage({ prompt_tokens: 1_000, cached_tokens: 400, completion_tokens: 200 })
  const at = (iso: string) => priceUsage({ model: flash, usage: u, at: new Date(iso), calendar: cn, source: SOURCE })
  // off-peak $0.15 / hit $0.003 / $0.60: 600 × 150,000 + 400 × 3,000 + 200 × 600,000 = 9e7 + 1.2e6 + 1.2e8 = 2.112e8 pico
  const OFF = 0.0002112
  // peak $0.30 / $0.006 / $1.20: 600 × 300,000 + 400 × 6,000 + 200 × 1,200,000 = 1.8e8 + 2.4e6 + 2.4e8 = 4.224e8 pico
  const PEAK = 0.0004224

  it('ships a valid calendar of Beijing dates', () => {
    assert.ok(holidayCalendar.safeParse(cn).success)
    assert.equal(cn.utc_offset_minutes, 480)
  })

  it('bills DeepSeek off-peak all day on a Chinese public holiday that falls on a weekday', () => {
    assert.equal(at('2026-10-01T02:30:00Z').final_usd, OFF) // Thursday, National Day, 10:30 Beijing
    assert.equal(at('2026-10-01T02:30:00Z').price_source, SOURCE)
    assert.equal(at('2026-10-08T02:30:00Z').final_usd, PEAK) // the Thursday after, a working day
    assert.equal(at('2026-10-08T02:30:00Z').price_source, `${SOURCE} (peak)`)
    assert.equal(at('2026-02-16T07:00:00Z').final_usd, OFF) // Monday of the Spring Festival
    assert.equal(at('2027-02-08T07:00:00Z').final_usd, OFF) // Monday, third day of the 2027 Spring Festival
  })

  it('decides the day in Beijing time: 16:00 UTC on 30 September is already 1 October there', () => {
    // The windows are UTC hours, so the Beijing date matters at their edges only; check the date logic directly.
    const custom: CatalogModel = { ...flash, peak: { ...flash.peak!, windows_utc: [[0, 24]] } }
    const c = (iso: string) => priceUsage({ model: custom, usage: u, at: new Date(iso), calendar: cn, source: SOURCE }).final_usd
    assert.equal(c('2026-09-30T15:59:59Z'), PEAK) // 23:59:59 on Wednesday 30 September in Beijing
    assert.equal(c('2026-09-30T16:00:00Z'), OFF) // 00:00 on 1 October in Beijing
  })

  it('keeps make-up Saturdays off-peak, unless a calendar lists them as workdays', () => {
    assert.equal(at('2026-10-10T02:30:00Z').final_usd, OFF) // Saturday worked in China, off-peak by DeepSeek's Monday-Friday rule
    const withWorkdays = { ...cn, workdays: ['2026-10-10'] }
    assert.equal(priceUsage({ model: flash, usage: u, at: new Date('2026-10-10T02:30:00Z'), calendar: withWorkdays, source: SOURCE }).final_usd, PEAK)
  })
})

describe('price history and retired slugs', () => {
  it("prices Sonnet 5.5's cache reads at $0.20 before the 2026-10-07 cut and $0.10 from it", () => {
    const sonnet = model('anthropic', 'claude-sonnet-5-5')
    const u = usage({ prompt_tokens: 10_000, cached_tokens: 8_000, completion_tokens: 100 })
    // 2,000 × 2,000,000 + 8,000 × 200,000 + 100 × 10,000,000 = 4e9 + 1.6e9 + 1e9 = 6.6e9 pico
    assert.equal(price(sonnet, u, new Date('2026-10-06T23:59:59Z')).final_usd, 0.0066)
    // 2,000 × 2,000,000 + 8,000 × 100,000 + 100 × 10,000,000 = 4e9 + 8e8 + 1e9 = 5.8e9 pico
    assert.equal(price(sonnet, u, new Date('2026-10-07T00:00:00Z')).final_usd, 0.0058)
  })

  it('bills Opus 4.6 prompts over 200K at the long-context row until 2026-03-13 only', () => {
    const opus = model('anthropic', 'claude-opus-4-6')
    const u = usage({ prompt_tokens: 200_001, completion_tokens: 1_000 })
    // long row $10 / $37.50: 200,001 × 10,000,000 + 1,000 × 37,500,000 = 2,000,010,000,000 + 3.75e10
    const before = price(opus, u, new Date('2026-03-12T12:00:00Z'))
    assert.equal(before.long_context, true)
    assert.equal(before.final_usd, 2.03751)
    // flat $5 / $25: 200,001 × 5,000,000 + 1,000 × 25,000,000 = 1,000,005,000,000 + 2.5e10
    const after = price(opus, u, new Date('2026-03-13T00:00:00Z'))
    assert.equal(after.long_context, false)
    assert.equal(after.final_usd, 1.025005)
  })

  it('prices a promotion with start and end dates only between them', () => {
    const promo: CatalogModel = { ...model('openai', 'gpt-6.1-sol'), schedule: [{ from: '2026-12-24', until: '2026-12-27', input: 1, output: 5 }] }
    const u = usage({ prompt_tokens: 1_000, completion_tokens: 100 })
    // list $2 / $10: 1,000 × 2,000,000 + 100 × 10,000,000 = 3e9; promo $1 / $5: 1e9 + 5e8 = 1.5e9
    assert.equal(price(promo, u, new Date('2026-12-23T23:59:59Z')).final_usd, 0.003)
    assert.equal(price(promo, u, new Date('2026-12-24T00:00:00Z')).final_usd, 0.0015)
    assert.equal(price(promo, u, new Date('2026-12-26T23:59:59Z')).final_usd, 0.0015)
    assert.equal(price(promo, u, new Date('2026-12-27T00:00:00Z')).final_usd, 0.003)
  })

  it("bills xAI's retired slug families at grok-4.3 rates, exact ids first", () => {
    const book = new PriceBook(builtinCatalog)
    for (const slug of ['grok-4-fast-reasoning', 'grok-4-fast-non-reasoning', 'grok-4-1-fast-reasoning', 'grok-3', 'grok-3-mini', 'grok-4-0709']) {
      assert.equal(book.lookup('xai', slug)?.entry.model, 'grok-4.3', slug)
      assert.equal(book.findBare(slug)[0]?.entry.model, 'grok-4.3', slug)
    }
    assert.equal(book.lookup('xai', 'grok-4.7')?.entry.model, 'grok-4.7')
    assert.equal(book.lookup('xai', 'grok-5'), null)
    // grok-4.3 $1.25 / cached $0.20 / $2.50: 800 × 1,250,000 + 200 × 200,000 + 150 × 2,500,000 = 1e9 + 4e7 + 3.75e8 = 1.415e9 pico
    const u = usage({ prompt_tokens: 1_000, cached_tokens: 200, completion_tokens: 150 })
    assert.equal(price(book.lookup('xai', 'grok-3-mini')!.entry, u).final_usd, 0.001415)
  })
})

describe('overrides are whole price rows', () => {
  const override = (row: PriceOverride['row']): PriceOverride => ({
    model: 'anthropic/claude-haiku-4-5',
    row,
    as_of: '2026-11-23',
    note: 'negotiated',
    updated_at: 0,
  })

  it('keep the 1-hour write rate, the long-context tier and the catalog limits they leave out', () => {
    const book = new PriceBook(builtinCatalog)
    book.reload([
      override({
        input: 0.8,
        cache_write: 1,
        cache_write_1h: 1.6,
        cached_input: 0.08,
        output: 4,
        long_context: { above_prompt_tokens: 100_000, input: 1.6, output: 8 },
      }),
    ])
    const p = book.lookup('anthropic', 'claude-haiku-4-5')!
    assert.equal(p.source, 'override 2026-11-23')
    assert.equal(p.entry.context_length, 200_000)
    assert.deepEqual(p.entry.aliases, ['claude-haiku-4-5-20251001'])
    const u = usage({ prompt_tokens: 10_000, cache_write_tokens: 4_000, cache_write_1h_tokens: 3_000, completion_tokens: 100 })
    // 6,000 × 800,000 + 1,000 × 1,000,000 + 3,000 × 1,600,000 + 100 × 4,000,000 = 4.8e9 + 1e9 + 4.8e9 + 4e8 = 1.1e10 pico
    const c = priceUsage({ model: p.entry, usage: u, at: TODAY, source: p.source })
    assert.equal(c.cache_write_usd, 0.0058)
    assert.equal(c.final_usd, 0.011)
    assert.equal(c.price_source, 'override 2026-11-23')
    // 100,001 prompt tokens at the override's own long-context row ($1.60 / $8): 100,001 × 1,600,000 + 100 × 8,000,000
    const long = priceUsage({ model: p.entry, usage: usage({ prompt_tokens: 100_001, completion_tokens: 100 }), at: TODAY, source: p.source })
    assert.equal(long.final_usd, 0.1608016)
  })

  it('take a holiday calendar override by name', () => {
    const book = new PriceBook(builtinCatalog)
    book.reload([], [{ name: 'cn', calendar: { ...builtinCatalog.calendars.cn, holidays: ['2026-11-23'] }, updated_at: 0 }])
    const p = book.lookup('deepseek', 'deepseek-flash')!
    assert.deepEqual(p.calendar?.holidays, ['2026-11-23'])
    assert.equal(ratesAt(p.entry, new Date('2026-11-23T02:00:00Z'), 1, p.calendar).tier, null)
    assert.equal(ratesAt(p.entry, new Date('2026-10-01T02:00:00Z'), 1, p.calendar).tier, 'peak')
    assert.equal(book.calendars().find((c) => c.name === 'cn')?.source, 'override')
  })

  it('are refused with the field named when a rate or date is wrong', () => {
    const bad = priceRow.safeParse({
      input: 1,
      schedule: [
        { from: '2026-02-30', input: 2 },
        { until: '2026-13-01', input: 3 },
      ],
    })
    assert.equal(bad.success, false)
    assert.match(describeIssues(bad.error!), /schedule\.0\.from: not a calendar date/)
    assert.match(describeIssues(bad.error!), /schedule\.1\.until: not a calendar date/)
    const negative = priceRow.safeParse({ input: 1, cache_write_1h: -2 })
    assert.match(describeIssues(negative.error!), /cache_write_1h/)
    assert.match(describeIssues(priceRow.safeParse({ input: 1, surprise: 1 }).error!), /surprise/)
  })
})
