import { priceUsage } from '../pricing/priceUsage'
import type { Cost, NormalizedUsage } from '../pricing/types'
import type { RequestContext } from './requestContext'

/** Prices what the provider reported for this request; unknown prices stay visibly unpriced. */
export function costOf(ctx: RequestContext, usage: NormalizedUsage | null, estimated = false): Cost | null {
  const t = ctx.target
  if (!t) return null
  return priceUsage({
    model: t.priced?.entry ?? null,
    usage,
    at: ctx.startedAt,
    source: t.priced?.source ?? 'none',
    local: t.provider.local && !t.priced,
    estimated,
    unknownReason: `no price known for ${t.provider.id}/${t.upstreamModel}; set one with \`gw prices set ${t.provider.id}/${t.upstreamModel} --input USD --output USD\``,
  })
}

/** The `gw` object every successful response carries next to the standard fields. */
export function gwExtension(ctx: RequestContext) {
  const t = ctx.target
  return {
    request_id: ctx.id,
    routing: {
      requested_model: ctx.model,
      preset: ctx.preset ? { name: ctx.preset.name, version: ctx.preset.version } : null,
      provider: t?.provider.id ?? null,
      upstream_model: t?.upstreamModel ?? null,
      attempts: ctx.attempts,
      fallback_used: ctx.fallbackUsed,
    },
    cost: ctx.cost,
  }
}
