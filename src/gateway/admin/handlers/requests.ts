import type { Scope } from '../../store/queries/requestQuery'
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
export const scope = async (ctx: AdminContext): Promise<Scope> => ({ keyIds: isAdmin(ctx) ? null : (await visibleKeys(ctx)).map((k) => k.id) })

export const requestHandlers: Handlers<'requests.list' | 'requests.export' | 'requests.get' | 'analytics.overview' | 'analytics.groupBy'> = {
  async 'requests.list'(ctx, input) {
    // Queued records would be missing from the page a user opens right after a request.
    await ctx.gw.records.flushed()
    return ctx.gw.store.queries.listRequests(input, await scope(ctx))
  },

  async 'requests.export'(ctx, input) {
    await ctx.gw.records.flushed()
    const { rows, truncated } = await ctx.gw.store.queries.exportRequests(input, await scope(ctx))
    return { csv: requestsCsv(rows), rows: rows.length, truncated }
  },

  async 'requests.get'(ctx, input) {
    await ctx.gw.records.flushed()
    const requests = ctx.gw.store.requests
    const record = await requests.get(input.id)
    const allowed = (await scope(ctx)).keyIds
    if (!record || (allowed !== null && !allowed.includes(record.key_id ?? ''))) throw notFound(`request ${input.id}`)
    return {
      record: record as unknown as Record<string, unknown>,
      bodies: withGwBlock(record, await requests.bodies(input.id)),
      cost_history: await requests.costHistory(input.id),
    }
  },

  async 'analytics.overview'(ctx, input) {
    await ctx.gw.records.flushed()
    return ctx.gw.store.queries.overview(input, await scope(ctx), ctx.gw.clock())
  },

  async 'analytics.groupBy'(ctx, input) {
    await ctx.gw.records.flushed()
    return (await ctx.gw.store.queries.groupBy(input, await scope(ctx))).map(({ value, requests, cost_usd, unpriced, tokens, errors }) => ({
      value,
      requests,
      cost_usd,
      unpriced,
      tokens,
      errors,
    }))
  },
}
