import { freeCost, priceInPico, type Priced } from '../pricing/priceUsage'
import type { NormalizedUsage } from '../pricing/types'
import type { Target } from './resolveModel'
import type { ResponseCacheNote, RoutingFields } from '../store/requestsRepo'

/** Prices what the provider reported for a request made at `at`; unknown prices stay visibly unpriced. */
export function costOf(target: Target, at: Date, usage: NormalizedUsage | null, estimated = false): Priced {
  return priceInPico({
    model: target.priced?.entry ?? null,
    usage,
    at,
    calendar: target.priced?.calendar,
    source: target.priced?.source ?? 'none',
    local: target.provider.local && !target.priced,
    estimated,
    unknownReason: `no price known for ${target.provider.id}/${target.upstreamModel}; set one with \`gw prices set ${target.provider.id}/${target.upstreamModel} --input USD --output USD\` (then \`gw prices reprice\` prices this request too)`,
  })
}

/** A token count costs nothing once it reaches a counter, whatever the counter answers: a failed count is not billed either. */
export const countedFree = (): Priced => ({ cost: freeCost('free: token counting is not billed'), pico: 0n })

/**
 * A request that ended before anything went to a provider (its providers cooling down, refused
 * by policy, closed by its client) cost exactly $0, said so; one that reached a provider and
 * failed before usage stays unpriced, since the provider may bill it.
 */
export const sentNowhere = (): Priced => ({ cost: freeCost('free: nothing was sent to any provider'), pico: 0n })

/**
 * What an answer the response cache replayed costs: nothing, its tokens counted as the provider
 * reported them the first time. What it would have cost again (`full`) is what it saved.
 */
export const replayedCost = (full: Priced): Priced => ({
  cost: {
    ...full.cost,
    priced: true,
    unpriced_reason: null,
    input_usd: 0,
    cached_input_usd: 0,
    cache_write_usd: 0,
    output_usd: 0,
    ...(full.cost.fees_usd !== undefined && { fees_usd: 0 }),
    cache_savings_usd: 0,
    final_usd: 0,
    price_source: 'response cache',
  },
  pico: 0n,
})

/**
 * The `gw` object every successful response carries next to the standard fields. Made of fields
 * the request's record keeps, so a logged answer, stored without it, is shown with it again.
 */
export function gwBlock(r: RoutingFields): GwBlock {
  const block: GwBlock = {
    request_id: r.id,
    routing: {
      requested_model: r.model,
      preset: r.preset === null ? null : { name: r.preset, version: r.preset_version },
      alias: r.alias ?? null,
      soft_cap: r.soft_cap ?? null,
      moved: r.moved ?? null,
      provider: r.provider,
      upstream_model: r.upstream_model,
      attempts: r.attempts,
      fallback_used: r.fallback_used,
    },
    cost: r.cost,
  }
  // Only on a request that used the response cache: the block stays as it was for every other.
  if (r.response_cache) block.cache = r.response_cache
  return block
}

/** The `gw` block an answer carries. */
export interface GwBlock {
  request_id: string
  routing: {
    requested_model: string | null
    preset: { name: string; version: number | null } | null
    alias: RoutingFields['alias'] | null
    /** Set when a soft cap sent the request to a cheaper model. */
    soft_cap: NonNullable<RoutingFields['soft_cap']> | null
    /** Set when a session's turn left the provider and model of its previous turn. */
    moved: NonNullable<RoutingFields['moved']> | null
    provider: string | null
    upstream_model: string | null
    attempts: RoutingFields['attempts']
    fallback_used: boolean
  }
  cost: RoutingFields['cost']
  /** The response cache: a miss, or a hit with the request it replayed and what it saved. */
  cache?: ResponseCacheNote
}
