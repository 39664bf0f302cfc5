import { freeCost, priceUsage } from '../pricing/priceUsage'
import type { Cost, NormalizedUsage } from '../pricing/types'
import type { RequestContext } from './requestContext'
import type { RoutingFields } from '../store/requestsRepo'

/** Prices what the provider reported for this request; unknown prices stay visibly unpriced. */
export function costOf(ctx: RequestContext, usage: NormalizedUsage | null, estimated = false): Cost | null {
  const t = ctx.target
  if (!t) return null
  return priceUsage({
    model: t.priced?.entry ?? null,
    usage,
    at: ctx.startedAt,
    calendar: t.priced?.calendar,
    source: t.priced?.source ?? 'none',
    local: t.provider.local && !t.priced,
    estimated,
    unknownReason: `no price known for ${t.provider.id}/${t.upstreamModel}; set one with \`gw prices set ${t.provider.id}/${t.upstreamModel} --input USD --output USD\` (then \`gw prices reprice\` prices this request too)`,
  })
}

/** A token count costs nothing once it reaches a counter, whatever the counter answers: a failed count is not billed either. */
export const countedFree = (ctx: RequestContext): void => {
  ctx.cost = freeCost('free: token counting is not billed')
}

/**
 * A request that ended before anything went to a provider (its providers cooling down, refused
 * by policy, closed by its client) cost exactly $0, said so; one that reached a provider and
 * failed before usage stays unpriced, since the provider may bill it.
 */
export const pricedIfSentNowhere = (ctx: RequestContext): void => {
  if (ctx.cost === null && !ctx.sent && ctx.target) ctx.cost = freeCost('free: nothing was sent to any provider')
}

/**
 * The `gw` object every successful response carries next to the standard fields. Made of fields
 * the request's record keeps, so a logged answer, stored without it, is shown with it again.
 */
export function gwBlock(r: RoutingFields) {
  return {
    request_id: r.id,
    routing: {
      requested_model: r.model,
      preset: r.preset === null ? null : { name: r.preset, version: r.preset_version },
      alias: r.alias ?? null,
      provider: r.provider,
      upstream_model: r.upstream_model,
      attempts: r.attempts,
      fallback_used: r.fallback_used,
    },
    cost: r.cost,
  }
}

export const gwExtension = (ctx: RequestContext) => gwBlock(ctx.routing())
