import type { RequestRecord } from '../../src/gateway/store/requestsRepo'

/** A request record described by what a query test cares about; everything else has a default. */
export interface RecordSpec {
  at: number
  id?: string
  key?: string | null
  model?: string | null
  provider?: string | null
  /** The model that answered, as the provider names it. */
  upstream?: string | null
  preset?: string | null
  status?: number
  outcome?: RequestRecord['outcome']
  user?: string | null
  trace?: string | null
  session?: string | null
  /** The tool that sent it (`source_tool`). */
  tool?: string | null
  /** The gateway that served it. */
  instance?: string | null
  tags?: string[]
  dims?: Record<string, string>
  source?: RequestRecord['source']
  endpoint?: RequestRecord['endpoint']
  /** undefined: no cost at all; null: unpriced; a number: priced. */
  cost?: number | null
  tokens?: [number, number] | null
  latency?: number
}

let n = 0

/** `defaults` supplies the model and provider a test file uses when a spec names none. */
export function recordFixture(s: RecordSpec, defaults: { model: string; provider: string; upstreamModel: string | null }): RequestRecord {
  const tokens = s.tokens === undefined ? [10, 5] : s.tokens
  const outcome = s.outcome ?? 'ok'
  return {
    id: s.id ?? `req_${++n}`,
    created_at: new Date(s.at).toISOString(),
    endpoint: s.endpoint ?? 'chat.completions',
    source: s.source ?? 'api',
    source_tool: s.tool ?? null,
    instance: s.instance ?? null,
    status: s.status ?? (outcome === 'error' ? 500 : outcome === 'aborted' ? 499 : 200),
    outcome,
    key_id: s.key === undefined ? 'key_a' : s.key,
    model: s.model === undefined ? defaults.model : s.model,
    preset: s.preset ?? null,
    preset_version: s.preset ? 1 : null,
    provider: s.provider === undefined ? defaults.provider : s.provider,
    upstream_model: s.upstream === undefined ? defaults.upstreamModel : s.upstream,
    stream: false,
    attribution: {
      user_id: s.user ?? null,
      trace_id: s.trace ?? null,
      session_id: s.session ?? null,
      session_derived: false,
      tags: s.tags ?? [],
      extra: {},
      auto_cache: null,
    },
    dimensions: s.dims ?? {},
    ignored: [],
    usage: tokens ? { prompt_tokens: tokens[0], completion_tokens: tokens[1] } : null,
    cost:
      s.cost === undefined
        ? null
        : {
            currency: 'USD',
            priced: s.cost !== null,
            unpriced_reason: s.cost === null ? 'no price' : null,
            prompt_tokens: tokens?.[0] ?? 0,
            completion_tokens: tokens?.[1] ?? 0,
            cached_tokens: 0,
            cache_write_tokens: 0,
            input_usd: s.cost,
            cached_input_usd: null,
            cache_write_usd: null,
            output_usd: null,
            cache_savings_usd: null,
            final_usd: s.cost,
            price_source: null,
            long_context: false,
            estimated: false,
          },
    attempts: [],
    fallback_used: false,
    latency_ms: s.latency ?? 100,
    ttfb_ms: null,
    error: outcome === 'error' ? { status: s.status ?? 500, type: 'api_error', code: null, message: 'failed' } : null,
  }
}
