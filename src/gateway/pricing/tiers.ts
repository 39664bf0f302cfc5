import type { CatalogModel, NormalizedUsage, ScheduledRates } from './types'

/** Names providers give the standard tier when they report it: billed at the list rates. */
const STANDARD = new Set(['default', 'standard', 'auto', 'standard_only'])

/** Regions that carry no uplift (Anthropic's `global` routing). */
const NO_UPLIFT_GEO = new Set(['global'])

/** The multiplier every token rate bills at, and the label `price_source` shows; or why there is none. */
export type TierPrice = { multiplier: number; tier: string | null; label: string | null } | { unpriced: string }

const times = (m: number) => `×${m}`

/**
 * What the tier and region the provider reports serving cost over the list rates (the dated row's
 * own multipliers, else the model's). A tier or region the price row does not list is not
 * guessed at: billing a `priority` answer at standard rates would be a silent undercharge.
 */
export function tierPrice(model: CatalogModel, listed: Partial<ScheduledRates>, usage: NormalizedUsage): TierPrice {
  let multiplier = 1
  const labels: string[] = []
  const served = usage.service_tier ?? null
  const tier = served !== null && !STANDARD.has(served) ? served : null
  if (tier !== null) {
    const m = (listed.service_tiers ?? model.service_tiers)?.[tier]
    if (m === undefined) return { unpriced: `no price for the ${tier} service tier of ${model.provider}/${model.model}` }
    multiplier *= m
    labels.push(`${tier} ${times(m)}`)
  }
  const geo = usage.inference_geo ?? null
  if (geo !== null && !NO_UPLIFT_GEO.has(geo)) {
    const m = (listed.inference_geo ?? model.inference_geo)?.[geo]
    if (m === undefined) return { unpriced: `no price for inference_geo "${geo}" on ${model.provider}/${model.model}` }
    multiplier *= m
    labels.push(`geo ${geo} ${times(m)}`)
  }
  return { multiplier, tier, label: labels.length ? labels.join(', ') : null }
}

/** USD per 1,000 web searches in force, or why the searches the provider reported cannot be priced. */
export function webSearchFee(model: CatalogModel, listed: Partial<ScheduledRates>, calls: number): number | { unpriced: string } {
  if (calls === 0) return 0
  const fee = (listed.call_fees ?? model.call_fees)?.web_search
  if (fee === undefined) return { unpriced: `${calls} web search call(s) reported and no per-call price for ${model.provider}/${model.model}` }
  return fee
}

/**
 * The tier a request asked for, as its body says (every wire names it `service_tier`; Anthropic
 * asks for fast mode with `speed: "fast"`). Recorded beside the tier served, which is the one billed.
 */
export function requestedTier(body: Record<string, unknown>): string | null {
  if (body.speed === 'fast') return 'fast'
  return typeof body.service_tier === 'string' ? body.service_tier.slice(0, 40) : null
}
