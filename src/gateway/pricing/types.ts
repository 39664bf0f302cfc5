/**
 * Prices are USD per 1M tokens, as providers publish them. The cost engine converts them to
 * integer pico-dollars per token before multiplying, so every cost is exact to the token.
 */
export interface TokenRates {
  input: number
  output?: number
  /** Cache read / cache hit rate. Absent: cached tokens bill at `input`. */
  cached_input?: number
  /** Cache write rate (OpenAI GPT-5.6+ 30-minute write; Anthropic 5-minute write). */
  cache_write?: number
  /** Anthropic 1-hour cache write. */
  cache_write_1h?: number
}

/** Whole-request long-context tier: when the prompt crosses the line, every token bills at these rates. */
export interface LongContextTier extends TokenRates {
  /** The tier applies when prompt tokens (input + cache reads + cache writes) are greater than this. */
  above_prompt_tokens: number
}

/** A dated change of list price (promotion end, announced rise). Applies from `from` (UTC date, inclusive). */
export interface ScheduledRates extends TokenRates {
  from: string
  long_context?: LongContextTier
}

/** Time-of-day pricing (DeepSeek): `peak` rates apply inside the windows, base rates outside. */
export interface PeakPricing {
  /** UTC hour ranges [start, end) during which peak rates apply. */
  windows_utc: Array<[number, number]>
  weekdays_only: boolean
  rates: TokenRates
}

export interface CatalogModel extends TokenRates {
  /** Provider id as used in `<provider-id>/<model>` (openai, anthropic, gemini, mistral, deepseek, xai, groq). */
  provider: string
  /** Model id as the provider names it upstream. */
  model: string
  kind: 'chat' | 'embedding'
  context_length?: number
  max_output_tokens?: number
  long_context?: LongContextTier
  schedule?: ScheduledRates[]
  peak?: PeakPricing
  /** Lifecycle note shown in the model list (deprecated, shutdown date, promotion). */
  status?: string
  /** True when a figure is flagged UNCONFIRMED or CONFLICT in the source table. */
  unconfirmed?: boolean
  aliases?: string[]
}

export interface PriceCatalog {
  /** Date the list prices were compiled (YYYY-MM-DD). */
  as_of: string
  source: string
  models: CatalogModel[]
}

/** Usage in OpenAI's convention: cached and cache-write tokens are inside prompt_tokens. */
export interface NormalizedUsage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  cached_tokens: number
  cache_write_tokens: number
  /** Anthropic 1-hour writes, a subset of cache_write_tokens. */
  cache_write_1h_tokens: number
  reasoning_tokens: number
  /** Counts the provider reported that cannot be usage (set to 0 above): the request is not priced from them. */
  anomaly?: string
}

export interface Cost {
  currency: 'USD'
  priced: boolean
  /** Why the cost is unknown (no price, no usage), when priced is false. */
  unpriced_reason: string | null
  prompt_tokens: number
  completion_tokens: number
  cached_tokens: number
  cache_write_tokens: number
  input_usd: number | null
  cached_input_usd: number | null
  cache_write_usd: number | null
  output_usd: number | null
  /** What the cached tokens would have cost at the input rate, minus what they cost. */
  cache_savings_usd: number | null
  final_usd: number | null
  /** Which rates applied: catalog date, override, local, tier. */
  price_source: string | null
  long_context: boolean
  /** The usage was reconstructed, not reported by the provider (aborted stream). */
  estimated: boolean
}
