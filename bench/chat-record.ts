import type { RequestRecord } from '../src/gateway/store/requestsRepo'

/** gpt-4o-mini's list prices, USD a token. */
const INPUT_USD = 0.15e-6
const OUTPUT_USD = 0.6e-6

/**
 * The record a benchmark chat completion produces (gpt-4o-mini through the `openai` provider,
 * user `bench`), priced from its tokens: what the record benchmarks write and the duty proxy
 * (duty-proxy.ts) pushes for each request.
 */
export function chatRecord(id: string, usage = { prompt_tokens: 12, completion_tokens: 9 }, latencyMs = 1, stream = false): RequestRecord {
  const { prompt_tokens, completion_tokens } = usage
  const input_usd = prompt_tokens * INPUT_USD
  const output_usd = completion_tokens * OUTPUT_USD
  return {
    id,
    created_at: new Date().toISOString(),
    endpoint: 'chat.completions',
    source: 'api',
    status: 200,
    outcome: 'ok',
    key_id: 'key_bench',
    model: 'gpt-4o-mini',
    preset: null,
    preset_version: null,
    provider: 'openai',
    upstream_model: 'gpt-4o-mini',
    stream,
    attribution: { user_id: 'bench', trace_id: null, session_id: null, session_derived: false, tags: [], extra: {}, auto_cache: null },
    dimensions: {},
    ignored: [],
    usage: {
      prompt_tokens,
      completion_tokens,
      total_tokens: prompt_tokens + completion_tokens,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
    },
    cost: {
      currency: 'USD',
      priced: true,
      unpriced_reason: null,
      prompt_tokens,
      completion_tokens,
      cached_tokens: 0,
      cache_write_tokens: 0,
      input_usd,
      cached_input_usd: 0,
      cache_write_usd: 0,
      output_usd,
      cache_savings_usd: 0,
      final_usd: input_usd + output_usd,
      price_source: 'catalog 2026-11-21',
      long_context: false,
      estimated: false,
    },
    attempts: [{ provider: 'openai', model: 'gpt-4o-mini', status: 200, latency_ms: latencyMs, error: null }],
    fallback_used: false,
    latency_ms: latencyMs,
    ttfb_ms: null,
    error: null,
  }
}
