import type { z } from 'zod'
import type { catalogModel, holidayCalendar, longContextTier, peakPricing, priceRow, scheduledRates, tokenRates } from '../../contract/prices'

/**
 * Prices are USD per 1M tokens, as providers publish them. The cost engine converts them to
 * integer pico-dollars per token before multiplying, so every cost is exact to the token. The
 * shapes are the contract's schemas, so the catalog, overrides and the API cannot drift apart.
 */
export type TokenRates = z.infer<typeof tokenRates>
export type LongContextTier = z.infer<typeof longContextTier>
export type ScheduledRates = z.infer<typeof scheduledRates>
export type PeakPricing = z.infer<typeof peakPricing>
export type PriceRow = z.infer<typeof priceRow>
export type CatalogModel = z.infer<typeof catalogModel>
export type HolidayCalendar = z.infer<typeof holidayCalendar>

export interface PriceCatalog {
  /** Date the list prices were compiled (YYYY-MM-DD). */
  as_of: string
  source: string
  models: CatalogModel[]
  /** Holiday calendars peak pricing refers to, by name. */
  calendars: Record<string, HolidayCalendar>
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
  /** The service tier the provider says it served (`flex`, `priority`, `fast`, `standard`…); absent when it did not say. */
  service_tier?: string | null
  /** The data-residency region the provider says it served (Anthropic `inference_geo`). */
  inference_geo?: string | null
  /** Web searches (Gemini: grounded queries) the provider reports it ran, billed per call. */
  web_search_calls?: number
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
  /** Per-call fees (web searches), on top of the tokens; absent on records from before they were priced. */
  web_search_calls?: number
  fees_usd?: number | null
  /** The service tier the tokens were priced at, as the provider reported serving it; null for the standard tier. */
  service_tier?: string | null
  /** What the cached tokens would have cost at the input rate, minus what they cost. */
  cache_savings_usd: number | null
  final_usd: number | null
  /** Which rates applied: catalog date, override, local, tier. */
  price_source: string | null
  long_context: boolean
  /** The usage was reconstructed, not reported by the provider (aborted stream). */
  estimated: boolean
}
