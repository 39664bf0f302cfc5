import { groupBy, overview } from '../queries/analyticsQuery'
import { exportRequests, listRequests, type Scope } from '../queries/requestQuery'
import { requestsCsv } from '../queries/requestsCsv'
import { notFound } from '../adminError'
import { isAdmin, type AdminContext } from '../context'
import { visibleKeys } from './keys'
import type { Handlers } from './types'
import { gwBlock } from '../../pipeline/cost'
import type { LoggedBodies, RequestRecord } from '../../store/requestsRepo'

/**
 * A logged JSON answer is stored without its `gw` block (sendJson); it is shown as the client got
 * it, block included. Streams log their text, not chunks; bodies logged before carry the block.
 */
function withGwBlock(record: RequestRecord, bodies: LoggedBodies | null): LoggedBodies | null {
  const r = bodies?.response
  if (!bodies || record.stream || record.outcome !== 'ok' || !r || typeof r !== 'object' || Array.isArray(r) || 'gw' in r) return bodies
  return { ...bodies, response: { ...r, gw: gwBlock(record) } }
}

/** Admins see every request; a member only those made with their own keys. */
export const scope = (ctx: AdminContext): Scope => ({ keyIds: isAdmin(ctx) ? null : visibleKeys(ctx).map((k) => k.id) })

export const requestHandlers: Handlers<'requests.list' | 'requests.export' | 'requests.get' | 'analytics.overview' | 'analytics.groupBy'> = {
  async 'requests.list'(ctx, input) {
    // Queued records would be missing from the page a user opens right after a request.
    await ctx.gw.records.flushed()
    return listRequests(ctx.gw.db, input, scope(ctx))
  },

  async 'requests.export'(ctx, input) {
    await ctx.gw.records.flushed()
    const { rows, truncated } = exportRequests(ctx.gw.db, input, scope(ctx))
    return { csv: requestsCsv(rows), rows: rows.length, truncated }
  },

  async 'requests.get'(ctx, input) {
    await ctx.gw.records.flushed()
    const record = ctx.gw.requests.get(input.id)
    const allowed = scope(ctx).keyIds
    if (!record || (allowed !== null && !allowed.includes(record.key_id ?? ''))) throw notFound(`request ${input.id}`)
    return {
      record: record as unknown as Record<string, unknown>,
      bodies: withGwBlock(record, ctx.gw.requests.bodies(input.id)),
      cost_history: ctx.gw.requests.costHistory(input.id),
    }
  },

  async 'analytics.overview'(ctx, input) {
    await ctx.gw.records.flushed()
    return overview(ctx.gw.db, input, scope(ctx))
  },

  async 'analytics.groupBy'(ctx, input) {
    await ctx.gw.records.flushed()
    return groupBy(ctx.gw.db, input, scope(ctx)).map(({ value, requests, cost_usd, unpriced, tokens, errors }) => ({
      value,
      requests,
      cost_usd,
      unpriced,
      tokens,
      errors,
    }))
  },
}
