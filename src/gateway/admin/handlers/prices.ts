import { requestIdFloor } from '../../pipeline/requestContext'
import { diffListing, fetchListing, refreshedRow } from '../../pricing/refresh'
import { repriceBatch } from '../../pricing/reprice'
import { AdminError, notFound } from '../adminError'
import { actorOf } from '../context'
import type { Handlers } from './types'

const today = (now: number) => new Date(now).toISOString().slice(0, 10)

export const priceHandlers: Handlers<
  'prices.list' | 'prices.get' | 'prices.set' | 'prices.remove' | 'prices.setCalendar' | 'prices.removeCalendar' | 'prices.reprice' | 'prices.refresh'
> = {
  'prices.list': async (ctx) => ({ overrides: await ctx.gw.store.prices.all(), calendars: ctx.gw.priceBook.calendars() }),

  async 'prices.get'(ctx, input) {
    const slash = input.model.indexOf('/')
    const priced = ctx.gw.priceBook.lookup(input.model.slice(0, slash), input.model.slice(slash + 1))
    if (!priced) return null
    const { provider: _p, model: _m, status: _s, unconfirmed: _u, aliases: _a, ...row } = priced.entry
    const override = (await ctx.gw.store.prices.all()).find((o) => o.model === input.model)
    return { row, source: priced.source, note: override?.note ?? null }
  },

  async 'prices.set'(ctx, input) {
    await ctx.gw.store.prices.set({ model: input.model, row: input.row, as_of: input.as_of ?? today(ctx.gw.clock()), note: input.note })
    return { ok: true as const }
  },

  async 'prices.remove'(ctx, input) {
    if (!(await ctx.gw.store.prices.remove(input.model))) throw notFound(`price override for ${input.model}`)
    return { ok: true as const }
  },

  async 'prices.setCalendar'(ctx, input) {
    await ctx.gw.store.prices.setCalendar(input.name, input.calendar)
    return { ok: true as const }
  },

  async 'prices.removeCalendar'(ctx, input) {
    if (!(await ctx.gw.store.prices.removeCalendar(input.name))) throw notFound(`holiday calendar override ${input.name}`)
    return { ok: true as const }
  },

  async 'prices.refresh'(ctx, input) {
    const source = ctx.gw.settings.price_source_url
    const catalog = ctx.gw.priceBook.catalog.as_of
    if (!source) {
      throw new AdminError(
        409,
        'not_configured',
        `no price source is set (the price_source_url setting); nothing is fetched until one is. The catalog of ${catalog} and your overrides stand`,
      )
    }
    let listing: Awaited<ReturnType<typeof fetchListing>>
    try {
      listing = await fetchListing(source)
    } catch (err) {
      const why = (err as Error).name === 'TimeoutError' ? 'no answer in 15 s' : ((err as { cause?: Error }).cause?.message ?? (err as Error).message)
      throw new AdminError(
        502,
        'source_unavailable',
        `could not read prices from ${source}: ${why}. Nothing changed: the catalog of ${catalog} and your overrides stand`,
      )
    }
    await ctx.gw.refresh()
    const now = ctx.gw.clock()
    const diff = diffListing(ctx.gw.priceBook, listing, new Date(now))
    if (input.apply && diff.rows.length > 0) {
      const as_of = today(now)
      const rows = diff.rows.map((r) => ({ model: r.model, row: refreshedRow(ctx.gw.priceBook, r, as_of) }))
      const note = `refreshed from ${source} on ${as_of} by ${actorOf(ctx)}`
      await ctx.gw.store.prices.setMany(
        rows.map((r) => ({ ...r, as_of, note })),
        now,
      )
    }
    return { source, catalog_as_of: catalog, applied: input.apply, ...diff }
  },

  async 'prices.reprice'(ctx, input) {
    // Records still queued in the writer would be missed by this batch.
    await ctx.gw.records.flushed()
    await ctx.gw.refresh()
    // Ids sort by time, so the scan walks the id index from the first id of `since` on.
    const cursor = input.cursor ?? requestIdFloor(Date.parse(`${input.since}T00:00:00Z`))
    return repriceBatch(ctx.gw.store.requests, ctx.gw.priceBook, { ...input, cursor, dryRun: input.dry_run, actor: actorOf(ctx) }, ctx.gw.clock())
  },
}
